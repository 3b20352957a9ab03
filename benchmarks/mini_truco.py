"""Mini-truco solved: CFR+ to a small NashConv, and the exact exploitability of bots.

Mini-truco is ``python_mini_truco`` (``truco.rl.openspiel.MINI_PARAMS``: 1v1 sin flor to
15, one hand of one card each from six cards, every call kept, the hand's points as
returns). Its whole tree is written once by the engine (``truco.rl.efg.to_efg``) and
loaded as OpenSpiel's C++ ``efg_game``, where ``CFRPlusSolver``, ``nash_conv`` and
``exploitability`` run in C++.

    python benchmarks/mini_truco.py [--nash-conv 0.01] [--bots random simple]

Prints the tree's size, the CFR+ iterations (and CPU seconds, the NashConv checks
included) until the average policy's NashConv is at most ``--nash-conv``, then the exact
exploitability (OpenSpiel's: NashConv / 2, in points per hand) of the CFR+ policy and of
each bot, a bot's choice at an information set being asked of it with the seat's view of
a state of that set; then a JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import pyspiel  # type: ignore[import-not-found]

from truco.bots import make_bot
from truco.rl import TrucoGame
from truco.rl.efg import Tree, action_label, to_efg
from truco.rl.openspiel import MINI_PARAMS
from truco.view import seat_view


def information_sets(game: Any) -> dict[str, tuple[Any, dict[str, int]]]:
    """Every information set of the efg game: its string -> a state of it and its legal
    actions by label (a walk of the tree that keeps one state per set: the tabular
    policies of ``open_spiel.python.policy`` keep every state, tens of gigabytes here)."""
    found: dict[str, tuple[Any, dict[str, int]]] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            key = state.information_state_string()
            if key not in found:
                found[key] = (
                    state.clone(),
                    {state.action_to_string(a): a for a in state.legal_actions()},
                )
        for a in state.legal_actions():
            stack.append(state.child(a))
    return found


def bot_policy(game: Any, tree: Tree, sets: dict[str, Any], spec: str, seed: int = 0) -> Any:
    """The bot ``spec`` as a ``pyspiel.TabularPolicy`` of the efg game: at each
    information set, the action it chooses from the seat's view of a state of that set
    (``random``: uniform over the legal actions)."""
    table: dict[str, list[tuple[int, float]]] = {}
    bot = None if spec == "random" else make_bot(spec, seed)
    for key, (_, actions) in sets.items():
        if bot is None:
            table[key] = [(a, 1.0 / len(actions)) for a in actions.values()]
            continue
        seat, number = key.rsplit("-s", 1)[1].split("-")
        state = tree.states[int(seat)][int(number)]
        view = seat_view(state.game, int(seat))
        chosen = action_label(bot.choose(view, state.legal_actions(), state.game.rules))
        table[key] = [(a, 1.0 if label == chosen else 0.0) for label, a in actions.items()]
    return pyspiel.TabularPolicy(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--nash-conv", type=float, default=0.01)
    parser.add_argument("--max-iterations", type=int, default=5000)
    parser.add_argument("--check-every", type=int, default=25)
    parser.add_argument("--bots", nargs="*", default=["random", "simple"])
    args = parser.parse_args(argv)
    out: dict[str, Any] = {"params": {k: v for k, v in MINI_PARAMS.items() if k != "deck"}}
    out["params"]["deck"] = MINI_PARAMS["deck"]
    start = time.process_time()
    tree = to_efg(TrucoGame(MINI_PARAMS), "mini-truco")
    game = pyspiel.load_efg_game(tree.text)
    out["nodes"] = tree.nodes
    out["information_sets"] = [len(s) for s in tree.states]
    out["cpu_s_tree"] = round(time.process_time() - start, 1)
    print(
        f"tree: {tree.nodes} nodes, {out['information_sets']} information sets per seat "
        f"({out['cpu_s_tree']} cpu s)",
        file=sys.stderr,
        flush=True,
    )
    solver = pyspiel.CFRPlusSolver(game)
    start = time.process_time()
    nash_conv = float("inf")
    iterations = 0
    while iterations < args.max_iterations:
        solver.evaluate_and_update_policy()
        iterations += 1
        if iterations % args.check_every == 0:
            nash_conv = pyspiel.nash_conv(game, solver.average_policy())
            print(f"CFR+ {iterations}: NashConv {nash_conv:.5f}", file=sys.stderr, flush=True)
            if nash_conv <= args.nash_conv:
                break
    out["cfr_plus_iterations"] = iterations
    out["cfr_plus_nash_conv"] = nash_conv
    out["cpu_s_cfr_plus"] = round(time.process_time() - start, 1)
    print(f"CFR+: {iterations} iterations, {out['cpu_s_cfr_plus']} cpu s", file=sys.stderr)
    out["exploitability"] = {"cfr_plus": nash_conv / 2}
    sets = information_sets(game) if args.bots else {}
    for spec in args.bots:
        pol = bot_policy(game, tree, sets, spec)
        out["exploitability"][spec] = pyspiel.exploitability(game, pol)
        print(
            f"exploitability of {spec}: {out['exploitability'][spec]:.4f} points per hand",
            file=sys.stderr,
            flush=True,
        )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
