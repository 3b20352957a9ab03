"""The ``truco analyze`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ..locale import DEFAULT_LANGUAGE
from ..narrate import decision_words
from ..record import RecordError, load_record, replay
from .engine import DEFAULT_WORLDS, Analysis, analyze
from .words import report


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="weigh every decision of a game record and grade the mistakes",
        description="Every decision is weighed by the top bot of the ladder (master) from "
        "the deciding seat's view only (no peeking at hidden cards): what the move gave away "
        "in points of the hand and in chance of winning the match, and the bot's move. "
        "The same record always gives the same analysis.",
    )
    p.add_argument("file", metavar="RECORD", help="a truco-record/1 file")
    p.add_argument("--seat", type=int, action="append", help="only this seat (repeatable)")
    p.add_argument(
        "--resample",
        type=int,
        default=0,
        metavar="N",
        help="with --worlds, draw other worlds (default 0: the record's own worlds, the "
        "same analysis every time)",
    )
    p.add_argument(
        "--worlds",
        type=int,
        default=DEFAULT_WORLDS,
        help="a sampled second opinion: the search of search:expert-2026 with this many "
        "worlds per decision (default: none, the top bot's evaluator)",
    )
    p.add_argument("--json", action="store_true", help="print the analysis as one JSON object")
    p.add_argument(
        "--show",
        action="store_true",
        help="step through the record in the terminal viewer with the graded decisions "
        "marked (the same as: truco show RECORD --analyze; needs the 'tui' extra)",
    )

    p.set_defaults(func=run_analyze)


def _fail(message: str) -> int:
    print(f"truco analyze: {message}", file=sys.stderr)
    return 2


def run_analyze(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "rb") as f:
            text = f.read()
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    try:
        record = load_record(text)
        result = replay(record)
    except RecordError as exc:
        return _fail(f"{args.file}: {exc}")
    if result.error is not None:
        e = result.error
        return _fail(
            f"{args.file}: hand {e.hand} action {e.action} ({e.token}) is illegal: {e.reason}"
        )
    n = record.rules.players
    seats = set(args.seat) if args.seat else None
    if seats is not None and not seats <= set(range(n)):
        return _fail(f"--seat must be between 0 and {n - 1}")
    if args.worlds is not None and not 1 <= args.worlds <= 2000:
        return _fail(f"--worlds must be between 1 and 2000, got {args.worlds}")
    analysis = analyze(record, seats, worlds=args.worlds, resample=args.resample)
    if args.json:
        print(json.dumps(analysis.to_json(), ensure_ascii=False))
    else:
        print(report(analysis))
    return 0


def marks_text(
    analysis: Analysis, names: Sequence[str], lang: str = DEFAULT_LANGUAGE
) -> dict[tuple[int, int], str]:
    """One sentence per graded decision, by (hand, action number), for the record viewer:
    in ``lang``, the seats by ``names``, the moves in words ("Imprecisión: Lugar 1 jugó el
    12 de bastos (pierde 0,62 puntos); mejor: cantar truco")."""
    return {
        key: decision_words(d.grade, names[d.seat], d.chosen, d.best, d.points, lang)
        for key, d in analysis.marks().items()
        if d.grade is not None
    }
