"""Chaos run: ``truco serve`` killed with SIGKILL at random moments, many times, while people
(WebSocket clients) and bots play; reports kills survived and actions lost (goal 0).

    .venv/bin/python benchmarks/chaos.py --kills 200 --db sqlite
    .venv/bin/python benchmarks/chaos.py --kills 200 --db postgresql

SQLite runs on a fresh file, PostgreSQL on a schema of its own (127.0.0.1:5432, database
``test``), dropped at the end. What is checked: see ``tests/chaos_monkey.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from chaos_monkey import ChaosRun, Report
from databases import postgres_schema, postgres_unreachable, sqlite_url


async def guarded(run: ChaosRun) -> Report:
    """The run, stopped cleanly by SIGINT or SIGTERM (server killed, schema dropped)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, run.stop)
    return await run.run()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200, help="SIGKILLs (default 200)")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--tables", type=int, default=3, help="tables played at once (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--up", type=float, nargs=2, default=(0.2, 1.5), metavar=("MIN", "MAX"),
        help="seconds the server runs between its start and the kill (uniform; default 0.2 1.5)",
    )  # fmt: skip
    parser.add_argument("--hours", type=float, default=2.0, help="time limit (default 2)")
    args = parser.parse_args()
    with ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="truco-chaos-")))
        if args.db == "sqlite":
            url = sqlite_url(directory, "chaos.sqlite3")
        else:
            reason = postgres_unreachable()
            if reason:
                print(reason, file=sys.stderr)
                return 2
            url = stack.enter_context(postgres_schema("truco_chaos"))
        run = ChaosRun(
            url,
            args.kills,
            seed=args.seed,
            tables=args.tables,
            up=tuple(args.up),
            log_dir=directory,
            progress=lambda text: print(text, file=sys.stderr, flush=True),
            time_limit=args.hours * 3600,
        )
        report = asyncio.run(guarded(run))
        if not report.ok and run.log_path.exists():
            kept = Path(f"chaos-{args.db}-serve.log")
            kept.write_bytes(run.log_path.read_bytes())
            print(f"server log kept in {kept}", file=sys.stderr)
    print(json.dumps(report.to_json(), indent=2))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
