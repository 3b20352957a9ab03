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
from open_spiel.python import policy as policy_lib  # type: ignore[import-not-found]

from truco.bots import make_bot
from truco.rl import TrucoGame
from truco.rl.efg import Tree, action_label, to_efg
from truco.rl.openspiel import MINI_PARAMS
from truco.view import seat_view


def bot_policy(game: Any, tree: Tree, spec: str, seed: int = 0) -> Any:
    """The bot ``spec`` as a tabular policy of the efg game: at each information set, the
    action it chooses from the seat's view of a state of that set."""
    tabular = policy_lib.TabularPolicy(game)
    if spec == "random":
        return tabular  # uniform over the legal actions
    bot = make_bot(spec, seed)
    for key, row in tabular.state_lookup.items():
        seat, number = key.rsplit("-s", 1)[1].split("-")
        state = tree.states[int(seat)][int(number)]
        view = seat_view(state.game, int(seat))
        chosen = action_label(bot.choose(view, state.legal_actions(), state.game.rules))
        efg_state = tabular.states[row]
        probs = tabular.action_probability_array[row]
        probs[:] = 0.0
        for a in efg_state.legal_actions():
            if efg_state.action_to_string(a) == chosen:
                probs[a] = 1.0
        assert probs.sum() == 1.0, f"{spec} chose {chosen} outside the tree at {key}"
    return tabular


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
    out["exploitability"] = {"cfr_plus": pyspiel.exploitability(game, solver.average_policy())}
    for spec in args.bots:
        tabular = bot_policy(game, tree, spec)
        pol = policy_lib.python_policy_to_pyspiel_policy(tabular)
        out["exploitability"][spec] = pyspiel.exploitability(game, pol)
    for name, value in out["exploitability"].items():
        print(f"exploitability of {name}: {value:.4f} points per hand", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
