"""Steps per second of the vectorized environment against the PettingZoo one, one core.

    python benchmarks/rl_vector.py [--seconds 3] [--runs 5] [--players 2] [--flor]

A *step* is one action of one seat in one game, with its observation (the observation
tensor) and its mask ready for the next seat, and a uniformly random legal action drawn
for it. ``pettingzoo``: :func:`truco.rl.env.env` (PettingZoo's wrappers included) driven
by ``agent_iter``/``last``/``step``; ``vector N``: :class:`truco.rl.vector.TrucoVectorEnv`
with N games stepped together. Whole matches, dealt again as they end. The process is
pinned to one core. Prints one line per setting (the median of ``--runs`` runs, with
their range) and a JSON object at the end; the figures of docs/research.md come from it.
What a figure leaves out: learning (the policy here is a random draw), and the first
reset.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from truco.rl.env import env
from truco.rl.vector import TrucoVectorEnv


def pettingzoo_steps(seconds: float, seed: int, table: dict[str, object]) -> float:
    e = env(**table)
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
            if steps % 256 == 0 and time.process_time() - start >= seconds:
                break
        else:
            e.reset()
    return steps / (time.process_time() - start)


def vector_steps(num_envs: int, seconds: float, seed: int, table: dict[str, object]) -> float:
    venv = TrucoVectorEnv(num_envs, seed=seed, **table)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)
    venv.reset()
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        venv.step(venv.sample_actions(rng))
        steps += num_envs
    return steps / (time.process_time() - start)


def _median(run: Callable[[int], float], runs: int) -> tuple[float, float, float]:
    figures = [run(i) for i in range(runs)]
    return statistics.median(figures), min(figures), max(figures)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--sizes", default="1,64,1024", help="numbers of games stepped together")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    table: dict[str, object] = {"players": args.players, "flor": args.flor}
    results: dict[str, object] = {"table": table, "load_before": os.getloadavg()[0]}
    base, lo, hi = _median(lambda i: pettingzoo_steps(args.seconds, i, table), args.runs)
    print(f"pettingzoo   {base:>10,.0f} steps/s (runs {lo:,.0f}..{hi:,.0f})", file=sys.stderr)
    results["pettingzoo"] = base
    for size in [int(s) for s in args.sizes.split(",")]:
        median, lo, hi = _median(
            lambda i, size=size: vector_steps(size, args.seconds, i, table), args.runs
        )
        print(
            f"vector {size:>5} {median:>10,.0f} steps/s (runs {lo:,.0f}..{hi:,.0f})"
            f"  {median / base:5.1f}x pettingzoo",
            file=sys.stderr,
            flush=True,
        )
        results[f"vector_{size}"] = median
    results["load_after"] = os.getloadavg()[0]
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
