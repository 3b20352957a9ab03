"""The frames a round of the table sends (:class:`truco.server.table.fanout.Round`): what
the server builds once per version and audience (the shared fields, the closed hand and
the rules encoded once) gives each connection exactly its own seat's view, and the
events its seat may see."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from strategies import TABLES, new_match, play_out, seeds, table_id
from truco.actions import action_token, is_say
from truco.game import Game
from truco.rules import Rules
from truco.server.people.players import Player
from truco.server.table.events import EVERYONE, EventLog
from truco.server.table.fanout import Fanout, Round
from truco.view import seat_view


class Seen:
    """A connection of a test: its player; frames are read from ``Round.frame``."""

    def __init__(self, player: Player | None) -> None:
        self.player = player

    def send(self, frame: str) -> None:  # pragma: no cover - the Peer protocol's
        raise AssertionError("not used")

    def close(self, reason: str) -> None:  # pragma: no cover
        raise AssertionError("not used")


@pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
@pytest.mark.parametrize("one_seats", [True, False], ids=["one-seats-events", "public-or-team"])
def test_each_connection_gets_its_own_seats_view_and_events(
    rules: Rules, seed: int, one_seats: bool
) -> None:
    """(Without one seat's events, a play's events are everyone's: one list for all.)"""
    game, policy = new_match(rules, seed)
    log = EventLog(1000)
    peers: list[tuple[Seen, int | None]] = [
        (Seen(Player(f"p{s}", f"p{s}")), s) for s in range(game.players)
    ]
    peers.append((Seen(None), None))
    marks = {"since": 0}

    def before(game: Game, seat: int, action: int) -> None:
        marks["since"] = log.version
        audience: Any = ("team", seat & 1) if is_say(action) else EVERYONE
        log.emit({"kind": "action", "seat": seat, "action": action_token(action)}, audience)
        if one_seats:
            log.emit({"kind": "committed", "seat": seat}, ("seat", seat))  # one seat's only

    def check(game: Game) -> None:
        since = marks["since"]
        round = Round(Fanout(), log, {"id": "t"}, game, {}, lambda: None)
        for peer, seat in peers:
            for full in (True, False):
                text = round.frame(peer, seat, None if full else since, answer=True)
                assert text is not None
                frame = orjson.loads(text)
                assert frame["view"] == seat_view(game, seat).to_json()
                assert frame["you"]["seat"] == seat
                if not full:
                    assert frame["events"] == log.visible(since, seat)

    play_out(game, policy, on_step=check, before=before)
