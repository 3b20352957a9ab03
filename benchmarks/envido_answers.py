"""Bot A's and bot B's envido answers judged with hindsight of the true tantos, 1v1.

    nice -n 19 .venv/bin/python -u benchmarks/envido_answers.py search:expert mirror:loose \
        --target 15 --pairs 40 --seed 1300 [--flor] [--save games.pkl] [--load games.pkl ...]

Plays the same duplicate pairs as ``truco arena A B --seed S`` (see point_flows.py). At every
envido answer that could be *quiero*, both answers are scored on the envido's points alone
(the truco's are left out), as :func:`truco.bots.search.hand_utility` values them from the
score: the true tantos decide who wins an accepted envido. Grouped by who answered, the call
answered (envido, real envido, falta envido; ``p``: called after the answerer played a card
without opening it) and the answerer's tanto, the table gives, for the answers refused, the
sum of (accept − refuse) — above 0, those refusals lost points on the whole — and the same
for the answers accepted (below 0: those acceptances lost). The rival's hidden tanto enters
only as the outcome, so each sum estimates what switching that group's answers would have
been worth against this rival, with the noise of a sample of the rival's calls.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

from answer_check import envido_points, played_or_loaded, replayed
from expert_paired import _before, _value

from truco.actions import ENVIDO, FALTA_ENVIDO, NO_QUIERO, QUIERO, REAL_ENVIDO, is_say
from truco.arena.match import bot_of_team
from truco.bots.search import hand_utility
from truco.cards import tanto
from truco.game import P_ENVIDO, Game
from truco.rules import Rules

CALLS = {ENVIDO: "E", REAL_ENVIDO: "R", FALTA_ENVIDO: "F"}


def envido_after(game: Game, seat: int, answer: int) -> list[int]:
    """The envido's points to each team if ``seat`` gave ``answer`` now."""
    after = game.clone()
    after.push(seat, answer)
    return envido_points(after)


def answers(game: Game, swapped: bool) -> list[dict[str, Any]]:
    """Every envido answer of a finished 1v1 match, replayed from its hands."""
    target = game.rules.target
    rows = []
    for _, _, seat, action, _, replay in replayed(game):
        pending = replay.pending
        if (
            pending
            and pending[-1][0] == P_ENVIDO
            and not is_say(action)
            and QUIERO in replay.legal_actions(seat, False)
        ):
            score = tuple(replay.score)  # the hand's points count only when it closes
            value = {
                answer: hand_utility(envido_after(replay, seat, answer), score, seat & 1, target)
                for answer in (QUIERO, NO_QUIERO)
            }
            calls = replay.envido_calls
            kind = "F" if FALTA_ENVIDO in calls else "R" if REAL_ENVIDO in calls else "E"
            passed = bool(replay.bazas) and any(s == seat for s, _ in replay.bazas[0])
            rows.append(
                {
                    "who": "A" if bot_of_team(seat & 1, swapped) == 0 else "B",
                    "call": kind + ("p" if passed else ""),
                    "tanto": tanto(replay.dealt[seat]),
                    "gain": value[QUIERO] - value[NO_QUIERO],
                    "answer": {QUIERO: "Q", NO_QUIERO: "N"}.get(action, "raise"),
                }
            )
    return rows


def bucket(t: int) -> str:
    for top, name in ((7, "0-7"), (23, "20-23"), (26, "24-26"), (28, "27-28"), (30, "29-30")):
        if t <= top:
            return name
    return "31-33"


def summarise(rows: list[dict[str, Any]]) -> None:
    for who in "AB":
        groups: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(lambda: [0, 0.0])
        )
        for r in rows:
            if r["who"] == who:
                cell = groups[(r["call"], bucket(r["tanto"]))][r["answer"]]
                cell[0] += 1
                cell[1] += r["gain"]
        print(
            f"== bot {who} answering: call tanto | refused: n, sum(accept-refuse) "
            "| accepted: n, sum(accept-refuse) | raised: n"
        )
        for key in sorted(groups):
            g = groups[key]
            print(
                f"  {key[0]:3s} {key[1]:6s} | N {g['N'][0]:4.0f} {g['N'][1]:+8.1f} "
                f"| Q {g['Q'][0]:4.0f} {g['Q'][1]:+8.1f} | raise {g['raise'][0]:3.0f}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bots", nargs="*", help="bot A and bot B (not with --load)")
    parser.add_argument("--target", type=int, default=15)
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1300)
    parser.add_argument("--before", nargs="*", default=["wary=0"], metavar="FIELD=VALUE")
    parser.add_argument("--save", help="pickle the played matches here")
    parser.add_argument("--load", nargs="*", help="only analyse these pickles of --save")
    args = parser.parse_args(argv)
    if not args.load:
        if len(args.bots) != 2:
            parser.error("give bot A and bot B, or --load")
        _before({k: _value(v) for k, v in (item.split("=", 1) for item in args.before)})
    rules = Rules(target=args.target, flor=args.flor)
    specs = (args.bots[0], args.bots[1]) if not args.load else ("", "")
    games = played_or_loaded(args.load, specs, rules, args.seed, args.pairs, args.save)
    summarise([r for swapped, game in games for r in answers(game, swapped)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
