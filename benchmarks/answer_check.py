"""Which answers of the expert a change of its method would alter, and what each altered
answer was worth with hindsight of the cards, 1v1.

    nice -n 19 .venv/bin/python -u benchmarks/answer_check.py mirror:loose --target 15 \
        --pairs 40 --seed 1300 --variant tb4:truco_bluffs=0.4 --variant off:truco_bluffs=none \
        [--flor] [--continuations 3] [--save games.pkl | --load games.pkl ...]

A match-level screening of one change (``expert_paired.py``) differs in a sixth of its
matches, so a gain of a point a match hides in its noise for hundreds of matches. This
looks at the decisions instead: it plays (or loads) duplicate pairs of ``search:expert``
against OPPONENT (the pairs of ``truco arena search:expert OPPONENT --seed S``), replays
each match with the expert as it is and every variant reading the same seat views (each
its own rival tracker), and at each of the expert's answers to an envido or a truco asks
all of them. Where a variant answers otherwise than the expert as it is, both answers are
valued on the true cards as :func:`truco.bots.search.hand_utility` values the hand from
the score: an envido accepted or refused by its points alone (exact); a refused truco by
the points it gives; anything else by ``--continuations`` plays of the rest of the hand by
the expert as it is and a fresh OPPONENT (so OPPONENT must not learn within a match, as
the mirror bots and the styles do not). Prints, per variant and kind of answer, how many
answers changed and the summed gain with its standard error.

What it leaves out: answers are judged only where the expert as it is took the match, not
on the hands a variant's other answers would have led to, and only answers (a call the
variant would have made is not seen).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import math
import pickle
import random
import sys
from collections.abc import Iterator
from typing import Any

from expert_paired import _value
from point_flows import play

from truco.actions import NO_QUIERO, QUIERO, is_say
from truco.analysis.engine import decision_points
from truco.arena.match import bot_of_team
from truco.bots import SearchBot, make_bot
from truco.bots.search import hand_utility
from truco.game import P_ENVIDO, P_TRUCO, Game
from truco.record import game_to_record, record_from_json
from truco.rules import Rules
from truco.view import SeatView, seat_view


def envido_points(game: Game) -> list[int]:
    points = [0, 0]
    for team, _, p in game.why_envido:
        points[team] += p
    return points


def play_hand_out(game: Game, bots: dict[int, Any]) -> Game:
    """The rest of the current hand played by ``bots`` (seat -> bot), from their views."""
    closed = len(game.history)
    while not game.needs_deal and game.winner is None and len(game.history) == closed:
        seat = game.actors()[0]
        legal = game.legal_actions(seat, False)
        if len(legal) == 1:
            game.push(seat, legal[0])
            continue
        view = seat_view(game, seat)
        game.push(
            seat, bots[seat].choose(view, [a for a in view.legal if not is_say(a)], game.rules)
        )
    return game


def replayed(game: Game) -> Iterator[tuple[int, int, int, int, SeatView, Game]]:
    """The finished ``game`` replayed from its record, action by action, with the actor's
    view before each (:func:`truco.analysis.engine.decision_points`)."""
    return decision_points(record_from_json(game_to_record(game)))


def answer_value(
    game: Game,
    seat: int,
    answer: int,
    expert: SearchBot,
    opponent: str,
    key: str,
    continuations: int,
) -> float:
    """What ``answer`` at ``game`` is worth to ``seat``'s team with hindsight."""
    kind = game.pending[-1][0] if game.pending else None
    closed = len(game.history)
    score, target = tuple(game.score), game.rules.target
    after = game.clone()
    after.push(seat, answer)
    if kind == P_ENVIDO and answer in (QUIERO, NO_QUIERO):
        return hand_utility(envido_points(after), score, seat & 1, target)
    if kind == P_TRUCO and answer == NO_QUIERO:
        return hand_utility(after.history[closed].points, score, seat & 1, target)
    values = []
    for k in range(continuations):
        rest = after.clone()
        mine = copy.deepcopy(expert)
        mine.rng = random.Random(f"{key}:{k}")
        theirs = make_bot(opponent, seed=random.Random(f"{key}:{k}:rival").randrange(1 << 30))
        play_hand_out(rest, {seat: mine, seat ^ 1: theirs})
        points = envido_points(rest) if kind == P_ENVIDO else rest.history[closed].points
        values.append(hand_utility(points, score, seat & 1, target))
    return sum(values) / len(values)


def changed_answers(
    index: int,
    swapped: bool,
    game: Game,
    variants: dict[str, dict[str, float | None]],
    opponent: str,
    continuations: int,
    every: bool = False,
) -> list[dict[str, Any]]:
    """The expert's answers (``every``: all its decisions) in one finished match that a
    variant would change."""
    seat = next(s for s in range(2) if bot_of_team(s & 1, swapped) == 0)
    bots: dict[str, SearchBot] = {}
    for name, changes in {"as is": {}, **variants}.items():
        bot = make_bot("search:expert", seed=index)
        assert isinstance(bot, SearchBot)
        bot.method = dataclasses.replace(bot.method, **changes)  # type: ignore[arg-type]
        bots[name] = bot
    rows = []
    for hand, _, s, action, view, replay in replayed(game):
        if is_say(action) or s != seat or len(replay.legal_actions(s, False)) == 1:
            continue
        for bot in bots.values():
            bot._track(view)
        if every or (replay.pending and QUIERO in view.legal):
            legal = [a for a in view.legal if not is_say(a)]
            key = f"{index}:{hand}:{len(replay.actions)}"
            choice = {}
            for name, bot in bots.items():
                bot.rng = random.Random(key)  # the same draws for every variant
                choice[name] = bot.decide(view, legal, replay.rules)
            if len(set(choice.values())) > 1:
                value = {
                    a: answer_value(replay, s, a, bots["as is"], opponent, key, continuations)
                    for a in set(choice.values())
                }
                rows.append(
                    {
                        "kind": _kind(replay),
                        "gain": {n: value[choice[n]] - value[choice["as is"]] for n in variants},
                    }
                )
        for bot in bots.values():
            assert bot.tracker is not None
            bot.tracker.own_action(view, action)
    return rows


def summarise(rows: list[dict[str, Any]], matches: int, opponent: str, variants: Any) -> None:
    print(f"{matches} matches of search:expert against {opponent}")
    for name in variants:
        for kind in ("envido", "truco", "other"):
            gains = [r["gain"][name] for r in rows if r["kind"] == kind and r["gain"][name] != 0]
            if not gains:
                print(f"  {name:12s} {kind:6s} no answer changed")
                continue
            mean = sum(gains) / len(gains)
            var = sum((g - mean) ** 2 for g in gains) / max(len(gains) - 1, 1)
            print(
                f"  {name:12s} {kind:6s} {len(gains):4d} answers changed, gain {sum(gains):+7.1f} "
                f"(standard error {math.sqrt(var * len(gains)):.1f}) in hand utility"
            )


def played_or_loaded(
    load: list[str] | None,
    specs: tuple[str, str],
    rules: Rules,
    seed: int,
    pairs: int,
    save: str | None,
) -> list[tuple[bool, Game]]:
    """The pickled matches of ``load``, or ``pairs`` duplicate pairs of ``specs`` played
    (the pairs of ``truco arena A B --seed S``) and pickled to ``save``: (swapped, game)."""
    games: list[tuple[bool, Game]] = []
    if load:
        for name in load:
            with open(name, "rb") as f:
                games.extend(pickle.load(f))
        return games
    for pair in range(pairs):
        for swapped in (False, True):
            games.append((swapped, play(specs, rules, seed, pair, swapped)))
        print(f"pair {pair + 1}/{pairs} played", file=sys.stderr, flush=True)
    if save:
        with open(save, "wb") as f:
            pickle.dump(games, f)
    return games


def _kind(game: Game) -> str:
    if not game.pending:
        return "other"
    return "truco" if game.pending[-1][0] == P_TRUCO else "envido"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("opponent")
    parser.add_argument("--target", type=int, default=15)
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1300)
    parser.add_argument(
        "--variant",
        action="append",
        required=True,
        metavar="NAME:FIELD=VALUE[,FIELD=VALUE]",
        help="a variant of the expert's Method (none: the field switched off)",
    )
    parser.add_argument("--continuations", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="every decision, not only the answers")
    parser.add_argument("--save", help="pickle the played matches here")
    parser.add_argument("--load", nargs="*", help="judge these pickles of --save instead")
    args = parser.parse_args(argv)
    variants = {}
    for text in args.variant:
        name, _, fields = text.partition(":")
        variants[name] = {k: _value(v) for k, v in (f.split("=", 1) for f in fields.split(","))}
    rules = Rules(target=args.target, flor=args.flor)
    specs = ("search:expert", args.opponent)
    games = played_or_loaded(args.load, specs, rules, args.seed, args.pairs, args.save)
    rows = []
    for index, (swapped, game) in enumerate(games):
        rows.extend(
            changed_answers(
                index, swapped, game, variants, args.opponent, args.continuations, args.all
            )
        )
        if (index + 1) % 10 == 0 and index + 1 < len(games):
            summarise(rows, index + 1, args.opponent, variants)
        print(
            f"match {index + 1}/{len(games)}: {len(rows)} answers changed",
            file=sys.stderr,
            flush=True,
        )
    summarise(rows, len(games), args.opponent, variants)
    return 0


if __name__ == "__main__":
    sys.exit(main())
