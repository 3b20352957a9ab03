"""Where bot A's points go against bot B: per hand, the envido and truco point flows by
who opened, how far the chain went, the answer, and the score situation.

    nice -n 19 .venv/bin/python -u benchmarks/point_flows.py search:expert mirror:loose \
        --target 15 --pairs 10 --seed 900 [--flor] [--before FIELD=VALUE] [--out rows.jsonl]

Same duplicate pairs as ``truco arena A B --seed S`` (and expert_paired.py). Writes one
JSON row per hand (``--out``) and prints a summary table of net points to bot A.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from typing import Any

from expert_paired import _before, _value

from truco.actions import (
    ENVIDO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    MAZO,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    TRUCO_CALLS,
    is_say,
)
from truco.arena.match import bot_of_team
from truco.bots import make_bot
from truco.bots.judgement import hand_power
from truco.cards import tanto
from truco.deal import SeededDealer
from truco.game import Game
from truco.rules import Rules
from truco.view import seat_view

NAMES = {ENVIDO: "E", REAL_ENVIDO: "R", FALTA_ENVIDO: "F"}


def play(specs: tuple[str, str], rules: Rules, seed: int, pair: int, swapped: bool) -> Game:
    deal_seed = f"arena:{seed}:{pair}"
    first_mano = random.Random(deal_seed).randrange(rules.players)
    game = Game(rules, first_mano=first_mano, dealer=SeededDealer(deal_seed))
    bots = [
        make_bot(
            specs[bot_of_team(s & 1, swapped)], seed=hash((seed, pair, swapped, s)) & 0xFFFFFFFF
        )
        for s in range(rules.players)
    ]
    picker = random.Random(f"{deal_seed}:{int(swapped)}")
    while not game.is_over:
        actors = game.actors()
        seat = actors[0] if len(actors) == 1 else actors[picker.randrange(len(actors))]
        view = seat_view(game, seat)
        legal = [a for a in view.legal if not is_say(a)]
        game.apply(seat, bots[seat].choose(view, legal, rules))
    return game


def situation(mine: int, theirs: int, target: int) -> str:
    near = target - 5
    if mine >= near and theirs >= near:
        return "both-near"
    if mine >= near:
        return "A-near"
    if theirs >= near:
        return "B-near"
    return "ahead" if mine > theirs + 2 else "behind" if theirs > mine + 2 else "even"


def hand_rows(game: Game, swapped: bool, rules: Rules) -> list[dict[str, Any]]:
    rows = []
    before = (0, 0)
    for h in game.history:
        a_team = 0 if not swapped else 1  # team of bot A
        who = {t: "A" if bot_of_team(t, swapped) == 0 else "B" for t in (0, 1)}
        log = [(s, x) for s, x in h.actions if not is_say(x)]
        envido = [(s, x) for s, x in log if x in ENVIDO_CALLS]
        env_points = {0: 0, 1: 0}
        tru_points = {0: 0, 1: 0}
        other = {0: 0, 1: 0}
        for team, why, pts in h.why:
            if why == "envido":
                env_points[team] += pts
            elif why == "truco":
                tru_points[team] += pts
            else:
                other[team] += pts
        row: dict[str, Any] = {
            "score": [before[a_team], before[1 - a_team]],
            "sit": situation(before[a_team], before[1 - a_team], rules.target),
            "env_net": env_points[a_team] - env_points[1 - a_team],
            "tru_net": tru_points[a_team] - tru_points[1 - a_team],
            "other_net": other[a_team] - other[1 - a_team],
            "won_match": None,
        }
        tantos = {
            s & 1: max(tanto(h.deal[t]) for t in range(s & 1, rules.players, 2)) for s in (0, 1)
        }
        row["tanto"] = [tantos[a_team], tantos[1 - a_team]]
        row["power"] = [
            round(max(hand_power(h.deal[s], (), s & 1) for s in range(t, rules.players, 2)), 2)
            for t in (a_team, 1 - a_team)
        ]
        if envido:
            opener = who[envido[0][0] & 1]
            chain = "".join(NAMES[x] for _, x in envido)
            last_i = max(i for i, (_, x) in enumerate(log) if x in ENVIDO_CALLS)
            ans = next((x for _, x in log[last_i + 1 :] if x in (QUIERO, NO_QUIERO, MAZO)), None)
            row["env"] = f"{opener}:{chain}:{'Q' if ans == QUIERO else 'N'}"
            row["env_last"] = who[envido[-1][0] & 1]
        tru = [(s, x) for s, x in log if x in TRUCO_CALLS]
        if tru:
            opener = who[tru[0][0] & 1]
            level = len(tru)
            last_i = max(i for i, (_, x) in enumerate(log) if x in TRUCO_CALLS)
            ans = next(
                (
                    x
                    for _, x in log[last_i + 1 :]
                    if x in (QUIERO, NO_QUIERO, MAZO) or x in ENVIDO_CALLS
                ),
                None,
            )
            answer = "Q" if ans == QUIERO else "N" if ans in (NO_QUIERO, MAZO) else "?"
            row["tru"] = f"{opener}:{level}:{answer}"
            row["tru_last"] = who[tru[-1][0] & 1]
        rows.append(row)
        before = h.score
    if rows:
        rows[-1]["won_match"] = bot_of_team(game.winner, swapped) == 0  # type: ignore[arg-type]
    return rows


def summarise(rows: list[dict[str, Any]]) -> None:
    for key, net in (("env", "env_net"), ("tru", "tru_net")):
        agg: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in rows:
            k = r.get(key)
            if k is None:
                continue
            agg[k][0] += 1
            agg[k][1] += r[net]
        print(f"== {key}: kind  count  net-to-A  per")
        for k, (n, s) in sorted(agg.items(), key=lambda kv: kv[1][1]):
            print(f"  {k:18s} {n:5d} {s:+6d} {s / n:+.2f}")
    agg2: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in rows:
        a = agg2[r["sit"]]
        a[0] += 1
        a[1] += r["env_net"]
        a[2] += r["tru_net"]
        a[3] += r["other_net"]
    print("== by situation: hands env_net tru_net other_net")
    for k, (n, e, t, o) in sorted(agg2.items()):
        print(f"  {k:10s} {n:5d} {e:+6d} {t:+6d} {o:+6d}")
    finals = [r for r in rows if r["won_match"] is not None]
    print("== deciding hands (last of each match): won/total by kind")
    agg3: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in finals:
        k = f"env={r.get('env', '-')} tru={r.get('tru', '-')}"
        agg3[k][0] += r["won_match"]
        agg3[k][1] += 1
    for k, (w, n) in sorted(agg3.items(), key=lambda kv: -kv[1][1]):
        print(f"  {k:40s} {w}/{n}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bots", nargs=2)
    parser.add_argument("--target", type=int, default=15)
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--first-pair", type=int, default=0)
    parser.add_argument("--seed", type=int, default=900)
    parser.add_argument("--before", nargs="*", default=["wary=0"])
    parser.add_argument("--out")
    parser.add_argument("--summary", nargs="*", help="only summarise these jsonl files")
    args = parser.parse_args(argv)
    if args.summary:
        rows = []
        for name in args.summary:
            with open(name) as f:
                rows.extend(json.loads(line) for line in f)
        summarise(rows)
        return 0
    _before({k: _value(v) for k, v in (item.split("=", 1) for item in args.before)})
    rules = Rules(target=args.target, flor=args.flor)
    rows: list[dict[str, Any]] = []
    out = open(args.out, "a") if args.out else None  # noqa: SIM115 (kept open for the run)
    wins = 0
    for pair in range(args.first_pair, args.first_pair + args.pairs):
        for swapped in (False, True):
            game = play((args.bots[0], args.bots[1]), rules, args.seed, pair, swapped)
            new = hand_rows(game, swapped, rules)
            wins += new[-1]["won_match"]
            for r in new:
                r["pair"], r["swapped"] = pair, swapped
                if out:
                    out.write(json.dumps(r) + "\n")
            if out:
                out.flush()
            rows.extend(new)
        print(f"pair {pair}: wins {wins}", flush=True)
    summarise(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
