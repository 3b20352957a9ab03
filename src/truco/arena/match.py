"""One arena match: bots in their seats, every decision timed, the game kept.

A bot is asked only when its seat may act, with that seat's view and legal actions;
when several seats may answer a call, the arena picks one of them at random (seeded).
Megaphone words are capped at a few per seat and hand so that talk always ends.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from ..actions import is_say
from ..bots import Bot, make_bot
from ..deal import SeededDealer
from ..game import Game
from ..record import game_to_record
from ..rules import Rules
from ..view import seat_view

#: Megaphone words a seat may say in one hand.
MAX_WORDS = 3


class BotError(RuntimeError):
    """A bot returned an action that is not legal."""


@dataclass
class MatchResult:
    """A finished match from the point of view of the two bots (index 0 and 1)."""

    pair: int
    swapped: bool
    winner_bot: int
    hand_points: tuple[int, int]
    hands: int
    decision_s: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    #: the same decisions in CPU time of the process (unaffected by other busy processes)
    decision_cpu_s: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    record: dict[str, Any] | None = None


def bot_of_team(team: int, swapped: bool) -> int:
    """Which bot (0 or 1) plays for ``team`` in this game of the duplicate pair."""
    return team ^ int(swapped)


def agent_name(agent: str | Bot) -> str:
    """How the report names a bot given by spec (the spec) or as an object (its repr)."""
    return agent if isinstance(agent, str) else repr(agent)


def play_match(
    specs: tuple[str | Bot, str | Bot],
    rules: Rules,
    seed: int,
    pair: int,
    swapped: bool,
    keep_record: bool = False,
) -> MatchResult:
    """Play one match of a duplicate pair: the deals depend only on ``(seed, pair)``;
    ``swapped`` gives bot 0 the seats of team 1. A spec makes a bot per seat (seeded);
    a :class:`~truco.bots.Bot` object (an agent held in memory) plays every seat of its
    team as it is."""
    deal_seed = f"arena:{seed}:{pair}"
    first_mano = random.Random(deal_seed).randrange(rules.players)
    game = Game(rules, first_mano=first_mano, dealer=SeededDealer(deal_seed))
    game.seed = deal_seed
    bots = []
    for s in range(rules.players):
        spec = specs[bot_of_team(s & 1, swapped)]
        if isinstance(spec, Bot):
            bots.append(spec)
        else:
            bots.append(make_bot(spec, seed=hash((seed, pair, swapped, s)) & 0xFFFFFFFF))
    picker = random.Random(f"{deal_seed}:{int(swapped)}")
    times: tuple[list[float], list[float]] = ([], [])
    cpu_times: tuple[list[float], list[float]] = ([], [])
    words = [0] * rules.players
    hand = game.hand_index
    clock, cpu_clock = time.perf_counter, time.process_time
    while not game.is_over:
        if game.hand_index != hand:
            hand, words = game.hand_index, [0] * rules.players
        actors = game.actors()
        seat = actors[0] if len(actors) == 1 else actors[picker.randrange(len(actors))]
        view = seat_view(game, seat)
        legal = list(view.legal)
        if words[seat] >= MAX_WORDS:
            legal = [a for a in legal if not is_say(a)]
        start, cpu_start = clock(), cpu_clock()
        action = bots[seat].choose(view, legal, rules)
        elapsed, cpu_elapsed = clock() - start, cpu_clock() - cpu_start
        if action not in legal:
            name = agent_name(specs[bot_of_team(seat & 1, swapped)])
            raise BotError(f"{name} at seat {seat} chose an illegal action {action}")
        if sum(1 for a in legal if not is_say(a)) > 1:
            times[bot_of_team(seat & 1, swapped)].append(elapsed)
            cpu_times[bot_of_team(seat & 1, swapped)].append(cpu_elapsed)
        if is_say(action):
            words[seat] += 1
        game.apply(seat, action)
    points = [0, 0]
    for result in game.history:
        for team in (0, 1):
            points[bot_of_team(team, swapped)] += result.points[team]
    record = None
    if keep_record:
        names = [agent_name(specs[bot_of_team(s & 1, swapped)]) for s in range(rules.players)]
        record = game_to_record(
            game, {"event": "truco arena", "seats": names, "result": f"team {game.winner}"}
        )
    assert game.winner is not None  # the match was played to its end
    return MatchResult(
        pair=pair,
        swapped=swapped,
        winner_bot=bot_of_team(game.winner, swapped),
        hand_points=(points[0], points[1]),
        hands=len(game.history),
        decision_s=times,
        decision_cpu_s=cpu_times,
        record=record,
    )
