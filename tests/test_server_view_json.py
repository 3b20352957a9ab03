"""The view as the server sends it: the hand's settlements so far (who won each baza,
the envido winner and its points at the showdown) travel with the view, so a client
can explain the points before they reach the score."""

from __future__ import annotations

import asyncio
import json
import tempfile

import websockets
from websockets.exceptions import ConnectionClosed

from server_testing import LiveServer
from truco.server import ServerConfig
from truco.view import seat_view
from util import new_game, play


def test_the_envido_result_travels_with_the_view_at_the_showdown() -> None:
    game = new_game("7o 6o 4c", "1e 2e 12b")
    play(game, "0 envido; 1 quiero")
    data = json.loads(json.dumps(seat_view(game, 1).to_json()))
    assert data["score"] == [0, 0]
    assert data["showdowns"] == [[{"seat": 0, "tanto": 33}, {"seat": 1, "tanto": None}]]
    assert data["notes"] == [[2, "envido", [0, 2]]]
    assert data["scored"] == [[0, "envido", 2]]


def test_a_closed_hand_keeps_its_notes() -> None:
    game = new_game("7o 6o 4c", "1e 2e 12b")
    play(game, "0 envido; 1 quiero; 0 play 4c; 1 play 1e; 1 play 2e; 0 mazo")
    view = seat_view(game, None)
    assert view.last_hand is not None
    data = view.last_hand.to_json()
    assert data["notes"] == [
        [2, "envido", [0, 2]],
        [4, "baza", [0, 1, 1]],
        [6, "round", [1, 1]],
    ]
    assert data["why"] == [[0, "envido", 2], [1, "truco", 1]]
    fresh = view.to_json()
    assert fresh["notes"] == [] and fresh["scored"] == []


def test_an_unknown_or_very_long_table_code_gets_a_final_close() -> None:
    """An unknown code closes with 4404 and an overlong one with 4400, each with a reason
    that fits a WebSocket control frame: else the page sees a broken connection and
    retries forever."""

    async def close_code(url: str) -> int | None:
        try:
            async with websockets.connect(url) as ws:
                while True:  # (an error frame naming the refusal comes before the close)
                    await ws.recv()
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None
        return None

    with (
        tempfile.TemporaryDirectory() as tmp,
        LiveServer(ServerConfig(db_url=f"sqlite:///{tmp}/t.sqlite3")) as server,
    ):
        try:
            assert asyncio.run(close_code(f"{server.ws_url}/ws/zzzzzz")) == 4404
            assert asyncio.run(close_code(f"{server.ws_url}/ws/{'x' * 500}")) == 4400
        finally:
            server.stop()
