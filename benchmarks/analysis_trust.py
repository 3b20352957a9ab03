"""Can players trust ``truco analyze``? The figures of docs/analysis.md, on records
made with ``truco arena A B --records DIR``:

* **resamples**: each record analysed ``--resamples`` times (``truco analyze --resample
  N``): the share of decisions whose grade is the same every time. The default analysis
  (the top bot's evaluator) samples nothing; with ``--worlds W`` the sampled search's
  second opinion draws other worlds each time, and the figure says how much of its
  grading is the sampling's;
* **strength**: the share of matches where the stronger bot (the first of ``--stronger``
  pairs, by name in the record's headers) has the higher accuracy;
* **seconds** of CPU per match for one analysis (what the web waits for).

Usage::

    truco arena simple random --target 15 --matches 20 --seed 1 --jobs 1 --records DIR1
    python benchmarks/analysis_trust.py DIR1 [DIR2 ...] --resamples 5 --stronger simple \
        [--worlds W]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from truco.analysis import analyze
from truco.record import load_record


def _share_kept(analysis: Any, seat: int) -> float:
    """The other accuracy measured: the share of the summed stakes kept (a big call
    weighs as much as its stake)."""
    mine = [d for d in analysis.decisions if d.seat == seat]
    stake = sum(d.stake for d in mine)
    return 100.0 * (1 - sum(d.loss for d in mine) / stake) if stake else 100.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", type=Path)
    p.add_argument("--resamples", type=int, default=5, help="analyses per record (default 5)")
    p.add_argument(
        "--stronger", action="append", default=[], help="the stronger bot's name (repeatable)"
    )
    p.add_argument("--limit", type=int, default=0, help="records per directory (0: all)")
    p.add_argument(
        "--worlds", type=int, default=None, help="the sampled search's worlds (default: none)"
    )
    args = p.parse_args(argv)
    same = total = ordered = matches = 0
    seconds: list[float] = []
    for directory in args.dirs:
        files = sorted(directory.glob("*.json"))
        if args.limit:
            files = files[: args.limit]
        for path in files:
            record = load_record(path.read_bytes())
            grades = []
            for resample in range(args.resamples):
                start = time.process_time()
                analysis = analyze(record, resample=resample, worlds=args.worlds)
                seconds.append(time.process_time() - start)
                grades.append([d.grade for d in analysis.decisions])
                if resample == 0:
                    accuracy = {p.name: p.accuracy for p in analysis.players}
                    kept = {
                        p.name: round(_share_kept(analysis, p.seat), 1) for p in analysis.players
                    }
            agree = sum(len(set(per_seed)) == 1 for per_seed in zip(*grades, strict=True))
            same += agree
            total += len(grades[0])
            strong = [n for n in accuracy if n in args.stronger]
            weak = [n for n in accuracy if n not in args.stronger]
            if strong and weak:
                matches += 1
                ordered += accuracy[strong[0]] > accuracy[weak[0]]
            print(
                json.dumps(
                    {
                        "record": str(path),
                        "accuracy": accuracy,
                        "share_of_all_stakes_kept": kept,
                        "same_grade": [agree, len(grades[0])],
                        "cpu_seconds": round(seconds[-1], 2),
                    }
                ),
                file=sys.stderr,
                flush=True,
            )
    seconds.sort()
    report = {
        "records": sum(1 for _ in seconds) // max(args.resamples, 1),
        "decisions": total,
        "same_grade_all_resamples": round(same / max(total, 1), 4),
        "matches_compared": matches,
        "stronger_more_accurate": round(ordered / max(matches, 1), 4),
        "cpu_seconds_per_match_median": round(seconds[len(seconds) // 2], 2) if seconds else None,
        "cpu_seconds_per_match_max": round(seconds[-1], 2) if seconds else None,
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
