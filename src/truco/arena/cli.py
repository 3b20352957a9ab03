"""The ``truco arena`` command: run the matches on every core and print the report."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..bots import make_bot
from ..rules import Rules, RulesError
from .match import MatchResult, play_match
from .report import summarize


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena",
        help="play two bots against each other in duplicate matches and compare them",
        description="Duplicate matches: each deal sequence is played twice with the seats swapped.",
    )
    p.add_argument("bots", nargs=2, metavar="BOT", help="a bot as name or name:level (search:hard)")
    p.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    p.add_argument("--flor", action="store_true", help="a table con flor")
    p.add_argument("--target", type=int, choices=(15, 30), default=30)
    p.add_argument(
        "--matches", type=int, default=100, help="matches to play, in duplicate pairs (default 100)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="the seed of the deals and the bots (default 0)"
    )
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: every core)")
    p.add_argument(
        "--records", metavar="DIR", help="save every match as a truco-record/1 file in DIR"
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="stop starting pairs after this long and report the finished ones",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=run_arena)


def _task(args: tuple[tuple[str, str], Rules, int, int, bool, bool]) -> MatchResult:
    specs, rules, seed, pair, swapped, keep = args
    return play_match(specs, rules, seed, pair, swapped, keep)


def run_arena(args: argparse.Namespace) -> int:
    specs = (args.bots[0], args.bots[1])
    try:
        rules = Rules(players=args.players, flor=args.flor, target=args.target)
        for spec in specs:
            make_bot(spec, 0)
    except (RulesError, ValueError) as exc:
        print(f"truco arena: {exc}", file=sys.stderr)
        return 2
    if args.matches < 1:
        print("truco arena: --matches must be at least 1", file=sys.stderr)
        return 2
    pairs = (args.matches + 1) // 2
    records = Path(args.records) if args.records else None
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    tasks = [
        (specs, rules, args.seed, p, swapped, records is not None)
        for p in range(pairs)
        for swapped in (False, True)
    ]
    jobs = args.jobs if args.jobs and args.jobs > 0 else (os.cpu_count() or 1)
    results = _run(tasks, jobs, args.max_seconds)
    by_pair: dict[int, int] = {}
    for r in results:
        by_pair[r.pair] = by_pair.get(r.pair, 0) + 1
    results = sorted(
        (r for r in results if by_pair[r.pair] == 2), key=lambda r: (r.pair, r.swapped)
    )
    if not results:
        print("truco arena: no duplicate pair finished", file=sys.stderr)
        return 1
    if records is not None:
        for r in results:
            path = records / f"pair{r.pair:05d}-{'b' if r.swapped else 'a'}.json"
            path.write_text(json.dumps(r.record, ensure_ascii=False) + "\n", encoding="utf-8")
    report = summarize(specs, results)
    if args.json:
        out = report.to_json()
        out.update({"rules": rules.to_dict(), "seed": args.seed, "jobs": jobs})
        print(json.dumps(out))
    else:
        print(f"{specs[0]} vs {specs[1]}, {rules.describe()}, seed {args.seed}")
        print(report.table())
    return 0


class _NoBar:
    """Stands in for rich's progress bar on the base install (rich comes with the extras)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, *args: Any, **kwargs: Any) -> None:
        return None

    def advance(self, bar: Any) -> None:
        return None


def _progress_bar() -> tuple[Any, bool]:
    """A progress bar on stderr and whether stderr is a terminal."""
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
    except ImportError:
        return _NoBar(), False
    console = Console(stderr=True)
    bar = Progress(
        TextColumn("arena"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    return bar, console.is_terminal


def _run(tasks: list[Any], jobs: int, max_seconds: float | None) -> list[MatchResult]:
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    results: list[MatchResult] = []
    bar_or_not, on_terminal = _progress_bar()
    log_every = 0 if on_terminal else max(1, len(tasks) // 20)

    def advance(progress: Any, bar: Any) -> None:
        progress.advance(bar)
        if log_every and len(results) % log_every == 0:  # no terminal: a line now and then
            print(f"arena: {len(results)}/{len(tasks)} matches", file=sys.stderr, flush=True)

    with bar_or_not as progress:
        bar = progress.add_task("matches", total=len(tasks))
        if jobs == 1:
            for task in tasks:
                if deadline is not None and time.monotonic() > deadline:
                    break
                results.append(_task(task))
                advance(progress, bar)
            return results
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            pending = [pool.apply_async(_task, (task,)) for task in tasks]
            for job in pending:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                try:
                    results.append(job.get(timeout=remaining))
                except multiprocessing.TimeoutError:
                    break
                advance(progress, bar)
            pool.terminate()
    return results
