"""``truco verify RECORD``: check every hand's commitment against its revealed deck.

Exit status: 0 every hand verifies; 1 at least one hand does not (tampered or
inconsistent); 2 the file cannot be read or is not a record; 3 nothing failed but
some hands cannot be verified (no fairness data, or a hand still being played).
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any, Literal

from .deal import SeededDealer
from .fairness import FAIRNESS_KEY, NOT_REVEALED, check_hand
from .record import RecordError, load_record

Status = Literal["ok", "mismatch", "missing", "pending"]

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_FILE, EXIT_UNVERIFIED = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand: ``ok``, ``mismatch`` (with the reason), ``missing``
    (no fairness data) or ``pending`` (committed, not revealed yet)."""

    hand: int
    status: Status
    reason: str = ""


def verify_record(text: str | bytes) -> list[HandCheck]:
    """Check every hand of a ``truco-record/1``; raise :class:`~truco.record.RecordError`
    when the text is not a record.

    >>> from truco.game import Game
    >>> from truco.record import game_to_record
    >>> verify_record(json.dumps(game_to_record(Game(seed=1))))
    [HandCheck(hand=0, status='missing', reason='no fairness data')]
    """
    record = load_record(text)
    raw_hands = json.loads(text)["hands"]
    dealer = SeededDealer(record.seed) if record.seed is not None else None
    checks = []
    for h, (hand, raw) in enumerate(zip(record.hands, raw_hands, strict=True)):
        data = raw.get(FAIRNESS_KEY)
        if data is None:
            checks.append(HandCheck(h, "missing", "no fairness data"))
            continue
        if hand.deal is not None:
            deal = hand.deal
        else:
            assert dealer is not None  # load_record refuses a hand without deal or seed
            deal = dealer.deal(record.rules.players, h)
        reason = check_hand(data, deal, h)
        if reason is None:
            checks.append(HandCheck(h, "ok"))
        elif reason == NOT_REVEALED:
            checks.append(HandCheck(h, "pending", reason))
        else:
            checks.append(HandCheck(h, "mismatch", reason))
    return checks


def exit_status(checks: list[HandCheck]) -> int:
    """0 when every hand verifies, 1 when one fails, 3 when some cannot be verified."""
    if any(c.status == "mismatch" for c in checks):
        return EXIT_MISMATCH
    if not checks or any(c.status != "ok" for c in checks):
        return EXIT_UNVERIFIED
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace) -> int:
    name = args.file
    try:
        if name == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as f:
                text = f.read()
    except OSError as exc:
        print(f"truco verify: cannot read {name}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_FILE
    try:
        checks = verify_record(text)
    except RecordError as exc:
        print(f"truco verify: {name}: {exc}", file=sys.stderr)
        return EXIT_BAD_FILE
    if all(c.status == "missing" for c in checks):
        print(
            f"truco verify: {name}: no fairness data: this record carries no commitments "
            "(written without commit-reveal deals), nothing to verify",
            file=sys.stderr,
        )
        return EXIT_UNVERIFIED
    for c in checks:
        label = {"ok": "ok", "mismatch": "MISMATCH", "missing": "unverified", "pending": "pending"}
        print(f"hand {c.hand + 1}: {label[c.status]}" + (f": {c.reason}" if c.reason else ""))
    status = exit_status(checks)
    good = sum(c.status == "ok" for c in checks)
    summary = {
        EXIT_OK: f"all {good} hands verified",
        EXIT_MISMATCH: f"{sum(c.status == 'mismatch' for c in checks)} hand(s) do not verify",
        EXIT_UNVERIFIED: f"{good} of {len(checks)} hands verified; the others cannot be checked",
    }[status]
    print(f"{name}: {summary}")
    return status


def register(sub: Any) -> None:
    """Add ``truco verify`` to the ``truco`` command."""
    p = sub.add_parser(
        "verify",
        help="check a record's committed deals: each hand's deck and salt against its commitment",
    )
    p.add_argument("file", metavar="RECORD", help="a truco-record/1 file, or - for standard input")
    p.set_defaults(func=_cmd_verify)
