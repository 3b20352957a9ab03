"""Steps per second of the vectorized environment against the PettingZoo one, one core.

    python benchmarks/rl_vector.py [--seconds 3] [--runs 5] [--players 2] [--flor]

A *step* is one action of one seat in one game, with its observation (the observation
tensor) and its mask ready for the next seat, and a uniformly random legal action drawn
for it. ``pettingzoo``: :func:`truco.rl.env.env` (PettingZoo's wrappers included: the
classic games' forfeit on an illegal action, bounds, order) driven by
``agent_iter``/``last``/``step``; ``pettingzoo_raw``: :class:`truco.rl.env.raw_env`, the
same without any wrapper; ``vector N`` (the ratios are to ``pettingzoo``):
:class:`truco.rl.vector.TrucoVectorEnv` (a ``gymnasium.vector.VectorEnv``) with N games
stepped together. Whole matches, dealt again as they end. The process is
pinned to one core and figures are steps per second of CPU time. Each measured env first
runs ``--warmup`` seconds unmeasured (its games past their first hands, their memory
allocated: a training run's steady state), and the settings take turns, ``--runs``
rounds, so that a change of the machine's load touches them all alike.
Prints one line per setting (the median of its runs, with their range) with its ratio to
the PettingZoo figure measured here and to the 14,000 steps/s issue 15 measured, then a
JSON object; the figures of docs/research.md come from it. What a figure leaves out:
learning (the policy here is a random draw), and the first reset.
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

from truco.rl.env import env, raw_env
from truco.rl.vector import TrucoVectorEnv


def rate(step_some: Callable[[], int], seconds: float, warmup: float) -> float:
    """Steps per second of CPU time of ``step_some`` (which steps a few times and says
    how many steps it made), after ``warmup`` seconds of it unmeasured: the games past
    their first hands, their memory allocated, as in a long training run."""
    start = time.process_time()
    while time.process_time() - start < warmup:
        step_some()
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        steps += step_some()
    return steps / (time.process_time() - start)


def pettingzoo_steps(
    seconds: float, seed: int, table: dict[str, object], warmup: float, wrapped: bool = True
) -> float:
    e = env(**table) if wrapped else raw_env(**table)
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)

    def step_some() -> int:
        steps = 0
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
            if steps == 256:
                return steps
        e.reset()
        return steps

    return rate(step_some, seconds, warmup)


def vector_steps(
    num_envs: int, seconds: float, seed: int, table: dict[str, object], warmup: float
) -> float:
    venv = TrucoVectorEnv(num_envs, seed=seed, **table)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)
    venv.reset()

    def step_some() -> int:
        venv.step(venv.sample_actions(rng))
        return num_envs

    return rate(step_some, seconds, warmup)


#: The PettingZoo env's speed as issue 15 measured it ("14k steps/s"), the 5x target's base.
ISSUE_PETTINGZOO = 14_000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="seconds each env runs before it is measured"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--sizes", default="1,64,1024", help="numbers of games stepped together")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    table: dict[str, object] = {"players": args.players, "flor": args.flor}
    results: dict[str, object] = {"table": table, "load_before": os.getloadavg()[0]}
    settings: dict[str, Callable[[float, int], float]] = {
        "pettingzoo": lambda seconds, seed: pettingzoo_steps(seconds, seed, table, args.warmup),
        "pettingzoo_raw": lambda seconds, seed: pettingzoo_steps(
            seconds, seed, table, args.warmup, wrapped=False
        ),
    }
    for size in [int(s) for s in args.sizes.split(",")]:
        settings[f"vector_{size}"] = lambda seconds, seed, size=size: vector_steps(
            size, seconds, seed, table, args.warmup
        )
    figures: dict[str, list[float]] = {name: [] for name in settings}
    for i in range(args.runs):
        for name, run in settings.items():
            figures[name].append(run(args.seconds, i))
    base = statistics.median(figures["pettingzoo"])
    for name, runs in figures.items():
        median = statistics.median(runs)
        label = f"{name:<14}" if name.startswith("pettingzoo") else f"vector {name[7:]:>7}"
        print(
            f"{label} {median:>10,.0f} steps/s (runs {min(runs):,.0f}..{max(runs):,.0f})"
            f"  {median / base:5.1f}x pettingzoo measured,"
            f" {median / ISSUE_PETTINGZOO:5.1f}x issue 15's 14k",
            file=sys.stderr,
            flush=True,
        )
        results[name] = round(median)
        results[f"{name}_runs"] = [round(f) for f in runs]
        results[f"{name}_vs_pettingzoo"] = round(median / base, 2)
        results[f"{name}_vs_issue_14k"] = round(median / ISSUE_PETTINGZOO, 2)
    results["load_after"] = os.getloadavg()[0]
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
