"""Tensors per second through pyspiel against a reused observer, one core.

    python benchmarks/rl_openspiel.py [--positions 3000] [--runs 5] [--players 2] [--flor]

Random positions of whole matches (decision nodes) are collected first; each run then
asks, on fresh copies of them (nothing cached), for the current seat's tensor:

- ``pyspiel C++``: pyspiel's own binding, ``pyspiel.State.information_state_tensor``
  called on the state (what C++ algorithms get; a list of floats);
- ``pyspiel``: ``state.information_state_tensor()`` as Python code calls it (the
  game's own method, a list of floats);
- ``pyspiel array``: ``state.tensor(True)``, the same as a read-only numpy array;
- ``observer``: one ``make_py_observer`` reused, ``set_from`` then its ``tensor``;

and the same for the observation tensor. Tensors per second of **CPU time** (the
machine is shared), the median of ``--runs`` runs with their range, then JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import pyspiel  # type: ignore[import-not-found]

import truco.rl.openspiel  # noqa: F401  (registers the game)


def positions(game: Any, count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    found: list[Any] = []
    state = game.new_initial_state()
    while len(found) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        else:
            found.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return found


def rate(states: list[Any], ask: Callable[[Any], object]) -> float:
    fresh = [s.clone() for s in states]  # no tensor cached yet
    start = time.process_time()
    for s in fresh:
        ask(s)
    return len(fresh) / (time.process_time() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    parser.add_argument("--flor", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    game = pyspiel.load_game("python_truco_argento", {"players": args.players, "flor": args.flor})
    states = positions(game, args.positions, 0)
    info = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))

    def observe(observer: Any) -> Callable[[Any], object]:
        return lambda s: observer.set_from(s, s.current_player()) or observer.tensor

    asks: dict[str, Callable[[Any], object]] = {
        "information state, pyspiel C++": lambda s: pyspiel.State.information_state_tensor(
            s, s.current_player()
        ),
        "information state, pyspiel": lambda s: s.information_state_tensor(),
        "information state, pyspiel array": lambda s: s.tensor(True),
        "information state, observer": observe(info),
        "observation, pyspiel C++": lambda s: pyspiel.State.observation_tensor(
            s, s.current_player()
        ),
        "observation, pyspiel": lambda s: s.observation_tensor(),
        "observation, pyspiel array": lambda s: s.tensor(False),
        "observation, observer": observe(obs),
    }
    if not hasattr(states[0], "tensor"):  # before the fast path (to measure the old code)
        asks = {k: v for k, v in asks.items() if not k.endswith("array")}
    results: dict[str, Any] = {"table": vars(args), "load_before": os.getloadavg()[0]}
    for name, ask in asks.items():
        figures = [rate(states, ask) for _ in range(args.runs)]
        median = statistics.median(figures)
        results[name] = {
            "median": round(median),
            "min": round(min(figures)),
            "max": round(max(figures)),
        }
        print(
            f"{name:36s} {median:9.0f} tensors/s  ({min(figures):.0f}–{max(figures):.0f})",
            file=sys.stderr,
            flush=True,
        )
    results["load_after"] = os.getloadavg()[0]
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
