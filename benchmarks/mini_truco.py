"""Mini-truco solved: CFR+ to a small NashConv, and the exact exploitability of bots.

Mini-truco is ``python_mini_truco`` (``truco.rl.openspiel.MINI_PARAMS``: 1v1 sin flor to
15, one hand of one card each from six cards, every call kept, the hand's points as
returns). Its whole tree is written once by the engine (``truco.rl.efg.to_efg``) and
loaded as OpenSpiel's C++ ``efg_game``, where ``CFRPlusSolver``, ``nash_conv`` and
``exploitability`` run in C++.

    python benchmarks/mini_truco.py [--nash-conv 0.01] [--bots random simple search:expert]

Prints the tree's size, the CFR+ iterations (and CPU seconds, the NashConv checks
included) until the average policy's NashConv is at most ``--nash-conv``, then for each
bot its exact exploitability (OpenSpiel's: NashConv / 2, what a best response wins per
hand, averaged over the two seats). A bot is asked at each information set it can
reach with the seat's view, ``--bot-seeds`` fresh bots (seeds 0, 1...), and plays what
they chose in proportion (:func:`truco.rl.exact.bot_player`: one seed is one pure
strategy; more estimate the bot's own mixed play); ``random`` is the uniform policy. Next to it, the
best-response learner of ``benchmarks/exploitability.py`` (:mod:`truco.rl.best_response`)
trained against the bot on the same game, ``--learner-matches`` hands: what it wins
measured as that benchmark measures it (``--learner-seeds`` hands in duplicate, a 95%
bootstrap interval), and the exact value of its greedy policy against the bot
(:func:`truco.rl.exact.value`), a lower bound of the exploitability. Then a JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import pyspiel  # type: ignore[import-not-found]

from truco.bots import make_bot
from truco.rl import TrucoGame
from truco.rl.best_response import BestResponse, paired_hands, per_hand, train
from truco.rl.efg import Tree, action_label, to_efg
from truco.rl.exact import Player, bot_player, choices, pure, uniform, value
from truco.rl.openspiel import MINI_PARAMS
from truco.rules import Rules
from truco.view import SeatView


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


def tabular(sets: dict[str, Any], table: dict[str, dict[str, float]]) -> Any:
    """A ``pyspiel.TabularPolicy`` of the efg game: at the sets of ``table`` (efg name ->
    action label -> probability) that policy, at every other set the uniform policy (a
    set the player never reaches: what it does there changes no value)."""
    out: dict[str, list[tuple[int, float]]] = {}
    for key, (_, actions) in sets.items():
        chosen = table.get("s" + key.rsplit("-s", 1)[1])  # efg_game: "0-0-1-s0-1"
        if chosen is None:
            out[key] = [(a, 1.0 / len(actions)) for a in actions.values()]
        else:
            out[key] = [(a, chosen.get(label, 0.0)) for label, a in actions.items()]
    return pyspiel.TabularPolicy(out)


def policy_table(spec: TrucoGame, tree: Tree, player: Player) -> dict[str, dict[str, float]]:
    """A player's policy at every information set it reaches, on both seats, by efg
    name (:func:`truco.rl.exact.choices`)."""
    return {
        tree.name(seat, key): {action_label(a): p for a, p in policy.items()}
        for seat in (0, 1)
        for key, policy in choices(spec, seat, player).items()
    }


def bot_as_player(bot: str, seeds: int) -> Player:
    """``random`` as the uniform policy, any other bot as :func:`bot_player`."""
    return uniform if bot == "random" else bot_player(bot, seeds)


def exact_exploitability(
    spec: TrucoGame, tree: Tree, game: Any, sets: dict[str, Any], player: Player
) -> float:
    """OpenSpiel's exploitability of ``player`` on the efg game."""
    return float(pyspiel.exploitability(game, tabular(sets, policy_table(spec, tree, player))))


def learner_player(learner: BestResponse) -> Player:
    """The trained learner's greedy policy as a function of the view (a fresh base bot
    seeded 0 at each decision)."""

    def choose(view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        return learner.choose(view, legal, base=make_bot(learner.base_spec, 0))

    return pure(choose)


def versus(spec: TrucoGame, player: Player, bot: Player) -> float:
    """The exact points per hand ``player`` wins against ``bot``, averaged over the two
    seats (as exploitability averages its best responses)."""
    return (value(spec, (player, bot))[0] + value(spec, (bot, player))[1]) / 2


def learner_bound(
    spec: TrucoGame, bot: str, matches: int, seeds: int, bot_seeds: int
) -> dict[str, Any]:
    """The best-response learner against ``bot`` on mini-truco (``spec``): trained,
    measured as ``benchmarks/exploitability.py`` measures it, and its exact value."""
    params = {"deck": MINI_PARAMS["deck"], "max_hands": 1}
    learner = BestResponse(spec.rules, seed=0, game=params)
    start = time.process_time()
    train(learner, bot, matches, seed=0)
    cpu_train = time.process_time() - start
    hands = paired_hands(learner, bot, range(10_000, 10_000 + seeds))
    trained = per_hand(hands, lambda h: h.trained)
    gain = per_hand(hands, lambda h: h.gain)
    rival = bot_as_player(bot, bot_seeds)
    exact_learner = versus(spec, learner_player(learner), rival)
    exact_base = versus(spec, bot_player(learner.base_spec), rival)
    return {
        "training_hands": matches,
        "decisions_tried": learner.evaluated,
        "cpu_s_training": round(cpu_train, 1),
        "cpu_s": round(time.process_time() - start, 1),
        "measured": {"hands": len(hands), "points_per_hand": trained, "gain": gain},
        "exact_value": exact_learner,
        "exact_value_of_base": exact_base,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--nash-conv", type=float, default=0.01)
    parser.add_argument("--max-iterations", type=int, default=5000)
    parser.add_argument("--check-every", type=int, default=25)
    parser.add_argument(
        "--bots", nargs="*", default=["random", "simple", "search:easy", "search:expert"]
    )
    parser.add_argument(
        "--bot-seeds", type=int, default=1, help="fresh bots asked per information set"
    )
    parser.add_argument("--learner-matches", type=int, default=300, help="training hands")
    parser.add_argument("--learner-seeds", type=int, default=300, help="measured hand pairs")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {"params": dict(MINI_PARAMS), "bot_seeds": args.bot_seeds}
    spec = TrucoGame(MINI_PARAMS)
    start = time.process_time()
    tree = to_efg(spec, "mini-truco")
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
    out["learner"] = {}
    sets = information_sets(game) if args.bots else {}
    for bot in args.bots:
        start = time.process_time()
        player = bot_as_player(bot, args.bot_seeds)
        exploitability = exact_exploitability(spec, tree, game, sets, player)
        out["exploitability"][bot] = exploitability
        print(
            f"exploitability of {bot}: {exploitability:.4f} points per hand "
            f"({time.process_time() - start:.1f} cpu s)",
            file=sys.stderr,
            flush=True,
        )
        if args.learner_matches <= 0:
            continue
        found = out["learner"][bot] = learner_bound(
            spec, bot, args.learner_matches, args.learner_seeds, args.bot_seeds
        )
        mean, lo, hi = found["measured"]["points_per_hand"]
        print(
            f"  learner against {bot}: measured {mean:+.3f} ({lo:+.3f}, {hi:+.3f}), "
            f"exact {found['exact_value']:+.4f} (its base: {found['exact_value_of_base']:+.4f}),"
            f" {found['cpu_s']} cpu s",
            file=sys.stderr,
            flush=True,
        )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
