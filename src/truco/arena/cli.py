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

from ..bots import GAUNTLET, Bot, make_bot
from ..rules import Rules, RulesError
from .match import MatchResult, agent_name, play_match
from .report import ArenaReport, GauntletReport, summarize


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena",
        help="play two bots against each other in duplicate matches and compare them",
        description="Duplicate matches: each deal sequence is played twice with the seats swapped. "
        "With --gauntlet BOT, BOT plays every opponent style of the gauntlet in turn.",
    )
    p.add_argument(
        "bots", nargs="*", metavar="BOT", help="two bots as name or name:level (search:hard)"
    )
    p.add_argument(
        "--gauntlet",
        metavar="BOT",
        help=f"play BOT against every gauntlet style ({', '.join(GAUNTLET)}) and report "
        "each, the minimum and the mean",
    )
    p.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    p.add_argument("--flor", action="store_true", help="a table con flor")
    p.add_argument("--target", type=int, choices=(15, 30), default=30)
    p.add_argument(
        "--matches",
        type=int,
        default=100,
        help="matches to play (per opponent with --gauntlet), an even number: duplicate pairs "
        "(default 100)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="the seed of the deals and the bots (default 0)"
    )
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core)")
    p.add_argument(
        "--records", metavar="DIR", help="save every match as a truco-record/1 file in DIR"
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="stop starting pairs after this long (in all, with --gauntlet) and report the "
        "finished ones",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=run_arena)


def _task(
    args: tuple[tuple[str | Bot, str | Bot], Rules, int, int, bool, bool],
) -> MatchResult:
    specs, rules, seed, pair, swapped, keep = args
    return play_match(specs, rules, seed, pair, swapped, keep)


class UsageError(ValueError):
    """A bad command line: reported in one line, nothing played."""


def _check(args: argparse.Namespace) -> tuple[list[tuple[str, str]], Rules]:
    """The match-ups to play and the table, or :class:`UsageError`."""
    if args.gauntlet is not None:
        if args.bots:
            raise UsageError("give either two bots or --gauntlet BOT, not both")
        matchups = [(args.gauntlet, rival) for rival in GAUNTLET]
    elif len(args.bots) != 2:
        raise UsageError(f"expected two bots (or --gauntlet BOT), got {len(args.bots)}")
    else:
        matchups = [(args.bots[0], args.bots[1])]
    if args.matches < 2 or args.matches % 2:
        raise UsageError(
            f"--matches must be an even number of at least 2 (duplicate pairs), got {args.matches}"
        )
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    if args.max_seconds is not None and not args.max_seconds > 0:
        raise UsageError(f"--max-seconds must be positive, got {args.max_seconds}")
    try:
        rules = Rules(players=args.players, flor=args.flor, target=args.target)
        for spec in {s for m in matchups for s in m}:
            make_bot(spec, 0)
    except (RulesError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return matchups, rules


def run_arena(args: argparse.Namespace) -> int:
    try:
        matchups, rules = _check(args)
    except UsageError as exc:
        print(f"truco arena: {exc}", file=sys.stderr)
        return 2
    records = Path(args.records) if args.records else None
    if records is not None:
        try:
            records.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"truco arena: cannot make {records}: {exc.strerror}", file=sys.stderr)
            return 2
    jobs = args.jobs or os.cpu_count() or 1
    budget = None if args.max_seconds is None else args.max_seconds / len(matchups)
    reports: list[tuple[tuple[str, str], ArenaReport]] = []
    for specs in matchups:
        folder = None
        if records is not None:
            folder = records if len(matchups) == 1 else records / specs[1].replace(":", "-")
            folder.mkdir(exist_ok=True)
        report = _play(specs, rules, args.seed, args.matches // 2, jobs, budget, folder)
        if report is None:
            print(
                f"truco arena: no duplicate pair of {specs[0]} vs {specs[1]} finished",
                file=sys.stderr,
            )
            return 1
        reports.append((specs, report))
    if args.gauntlet is not None:
        gauntlet = GauntletReport(args.gauntlet, [(s[1], r) for s, r in reports])
        if args.json:
            out = gauntlet.to_json()
            out.update({"rules": rules.to_dict(), "seed": args.seed, "jobs": jobs})
            print(json.dumps(out))
        else:
            print(f"{args.gauntlet} against the gauntlet, {rules.describe()}, seed {args.seed}")
            print(gauntlet.table())
        return 0
    specs, report = reports[0]
    if args.json:
        out = report.to_json()
        out.update({"rules": rules.to_dict(), "seed": args.seed, "jobs": jobs})
        print(json.dumps(out))
    else:
        print(f"{specs[0]} vs {specs[1]}, {rules.describe()}, seed {args.seed}")
        print(report.table())
    return 0


def _play(
    specs: tuple[str | Bot, str | Bot],
    rules: Rules,
    seed: int,
    pairs: int,
    jobs: int,
    max_seconds: float | None,
    records: Path | None,
) -> ArenaReport | None:
    """Play ``pairs`` duplicate pairs of ``specs`` and summarize the finished ones."""
    tasks = [
        (specs, rules, seed, p, swapped, records is not None)
        for p in range(pairs)
        for swapped in (False, True)
    ]
    results = _run(tasks, jobs, max_seconds)
    by_pair: dict[int, int] = {}
    for r in results:
        by_pair[r.pair] = by_pair.get(r.pair, 0) + 1
    results = sorted(
        (r for r in results if by_pair[r.pair] == 2), key=lambda r: (r.pair, r.swapped)
    )
    if not results:
        return None
    if records is not None:
        for r in results:
            path = records / f"pair{r.pair:05d}-{'b' if r.swapped else 'a'}.json"
            path.write_text(json.dumps(r.record, ensure_ascii=False) + "\n", encoding="utf-8")
    return summarize((agent_name(specs[0]), agent_name(specs[1])), results)


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
