"""The views a table's frames carry are built straight from the game
(:func:`truco.view.own_json`, :func:`truco.view.game_moment_json`), not through a
:class:`~truco.view.SeatView` per seat: byte for byte what ``SeatView.to_json`` encodes, at
every moment of a match (between hands and at its end too), for every seat and a spectator."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from strategies import TABLES, new_match, play_out, seeds, table_id
from truco.game import Game
from truco.rules import Rules
from truco.server.table.events import EventLog
from truco.server.table.fanout import Round
from truco.view import game_moment_json, moment_json, own_json, seat_view, shared_fields


@pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_frame_views_are_seat_views_byte_for_byte(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    log = EventLog(8)
    seats: list[int | None] = [*range(game.players), None]

    def check(game: Game) -> None:
        assert game_moment_json(game) == moment_json(shared_fields(game))
        round = Round(log, {"id": "t"}, game, {}, lambda: None)
        for seat in seats:
            view = seat_view(game, seat)
            assert own_json(game, seat) == view.own_json()
            assert round._view(seat) == orjson.dumps(view.to_json())

    check(game)
    play_out(game, policy, on_step=check)
