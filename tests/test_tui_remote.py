"""The terminal game on a live Truco Argento server (loopback, bots without delay)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from test_tui import english, headless, person_key
from truco.actions import parse_action
from truco.cards import parse_card
from truco.cli import main as truco_main
from truco.locale import set_language
from truco.rules import Rules
from truco.tui.app import TrucoApp
from truco.tui.remote import RemoteError, RemoteSession, split_url

__all__ = ["english"]  # the screen is read in English here (an autouse fixture)

server_testing = pytest.importorskip("server_testing")
ServerConfig = pytest.importorskip("truco.server.config").ServerConfig


async def frames(
    pilot, app: TrucoApp, session: RemoteSession, after: int, limit: int = 2000
) -> None:
    """Wait (polling, at most ``limit`` rounds) for a state newer than version ``after``
    in which the person may act or the match is over."""
    for _ in range(limit):
        await pilot.pause()
        view = app.view
        if session.version > after and (view.winner is not None or app.view.legal):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the server sent nothing new")


def test_addresses_people_paste() -> None:
    assert split_url("localhost:8000") == ("http://localhost:8000", None)
    assert split_url("https://truco.example/t/ab12cd") == ("https://truco.example", "ab12cd")
    assert split_url("ws://127.0.0.1:9/ws/xyz") == ("http://127.0.0.1:9", "xyz")
    with pytest.raises(RemoteError):
        split_url("ftp://nowhere")


def test_an_unreachable_server_is_one_line(capsys) -> None:
    port = server_testing.free_port()
    assert truco_main(["play", "--connect", f"http://127.0.0.1:{port}", "--lang", "en"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("truco play: cannot reach the server")
    assert truco_main(["play", "--connect", f"http://127.0.0.1:{port}", "--lang", "es"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("truco play: no se llega al servidor")
    set_language("en")


@headless
async def test_a_match_on_a_server_with_the_same_screen(tmp_path: Path) -> None:
    config = ServerConfig(db_url="sqlite://", bot_delay=0, turn_seconds=0)
    with server_testing.LiveServer(config) as server:
        session = RemoteSession.connect(
            server.url, name="ana", rules=Rules(target=15), bots=["random"], seat=0
        )
        app = TrucoApp(session, delay=0, save_dir=tmp_path)
        async with app.run_test(size=(140, 42)) as pilot:
            await frames(pilot, app, session, 0)
            assert (
                "online" in app.screen_text() and f"table {session.table_id}" in app.screen_text()
            )
            before = app.view
            await pilot.press("l")  # no flor at this table: the server says why, nothing changes
            for _ in range(500):
                await pilot.pause()
                if app.message:
                    break
                await asyncio.sleep(0.01)
            assert app.message.startswith("Server:") and app.view == before
            for _ in range(400):
                if app.view.winner is not None:
                    break
                before = session.version
                await pilot.press(person_key(app))
                await frames(pilot, app, session, before)
            assert app.view.winner is not None
            assert "The match is over" in app.screen_text()
            await pilot.press("w")
            assert app.saved_path is not None, app.message
    record = json.loads(app.saved_path.read_text())
    assert record["format"] == "truco-record/1"


@headless
async def test_joining_a_table_by_its_link_takes_the_free_seat() -> None:
    config = ServerConfig(db_url="sqlite://", bot_delay=0, turn_seconds=0)
    with server_testing.LiveServer(config) as server:
        host = server_testing.guest_token(server.url, "host")
        table = server_testing.create_table(
            server.url, host, rules={"players": 2}, bots={"1": "random"}
        )
        session = RemoteSession.connect(f"{server.url}/t/{table['id']}", name="ana")
        app = TrucoApp(session, delay=0)
        async with app.run_test(size=(140, 42)) as pilot:
            await frames(pilot, app, session, 0)
            assert session.seat == 0 and app.view.seat == 0
            assert len(app.view.hand) == 3
            assert "You" in app.screen_text()


@headless
async def test_a_full_table_makes_a_spectator_whose_keys_say_so() -> None:
    config = ServerConfig(db_url="sqlite://", bot_delay=0, turn_seconds=0)
    with server_testing.LiveServer(config) as server:
        host = server_testing.guest_token(server.url, "host")
        table = server_testing.create_table(
            server.url, host, rules={"players": 2}, bots={"1": "random"}
        )
        bea = server_testing.TableClient(server.ws_url, table["id"], host)
        bea.recv()
        bea.send({"type": "sit", "seat": 0})  # the last free seat goes to someone else
        bea.wait_state(lambda state: (state.get("you") or {}).get("seat") == 0)
        session = RemoteSession.connect(f"{server.url}/t/{table['id']}", name="ana")
        app = TrucoApp(session, delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(500):
                await pilot.pause()
                if session.version:
                    break
                await asyncio.sleep(0.01)
            assert session.seat is None
            text = app.screen_text()
            assert "You are watching" in text and "online, watching" in text
            keys = app.query_one("#keys").render().plain
            assert keys.strip() == "h: help   Ctrl+Q: quit"  # no keys that advertise playing
            await pilot.press("1")
            assert "You are watching this table" in app.message
        bea.close()


def test_a_key_pressed_twice_sends_one_action_per_state() -> None:
    """A second M before the server's answer went out too: after the hand closed it sent
    the person to the mazo of the next hand as well."""
    sent: list[dict[str, object]] = []

    class Socket:
        async def send(self, frame: str) -> None:
            sent.append(json.loads(frame))

    async def scenario() -> None:
        session = RemoteSession("http://x", "ab12cd", "token", {"rules": Rules().to_dict()}, 0)
        session._socket = Socket()
        session._receive({"type": "state", "v": 7, "you": {"seat": 0}, "table": {}})
        mazo = parse_action("mazo")
        assert session.act(mazo) is None and session.act(mazo) is None
        await asyncio.sleep(0)
        assert sent == [{"type": "act", "action": "mazo"}]
        session._receive(
            {
                "type": "error",
                "code": "not_your_turn",
                "params": {"player": 1},
                "reason": "it is not your turn: seat 1 plays",
            }
        )
        # worded from the code, with the player's name (not "seat 1")
        assert session.pop_notice() == f"Server: it is not your turn: {session.names[1]} plays"
        session.act(mazo)  # refused: the person may try again on the same state
        session._receive({"type": "state", "v": 8, "you": {"seat": 0}, "table": {}})
        session.act(mazo)
        await asyncio.sleep(0)
        assert len(sent) == 3

    asyncio.run(scenario())


def test_patches_change_the_state_and_a_gap_asks_for_the_whole() -> None:
    """A ``patch`` is applied to the state the terminal holds; one that does not follow it
    (a frame missed) changes nothing and asks for the whole state with ``sync``."""
    sent: list[dict[str, object]] = []

    class Socket:
        async def send(self, frame: str) -> None:
            sent.append(json.loads(frame))

    async def scenario() -> None:
        session = RemoteSession("http://x", "ab12cd", "token", {"rules": Rules().to_dict()}, 0)
        session._socket = Socket()
        table = {"status": "playing", "seats": [], "version": 7}
        you = {"seat": 0, "player": {"id": "a", "name": "Ana"}, "committed": None}
        session._receive({"type": "state", "v": 7, "you": you, "table": table, "view": None})
        patch = {"type": "patch", "protocol": 2, "v": 9, "base": 7, "events": []}
        session._receive({**patch, "set": {"table.version": 9, "you.committed": "1e"}})
        assert session.version == 9 and session.table["version"] == 9
        assert session.committed == parse_card("1e") and session.seat == 0
        session._receive({**patch, "v": 12, "base": 11, "set": {"table.version": 12}})
        await asyncio.sleep(0)
        assert session.version == 9 and session.table["version"] == 9
        assert sent == [{"type": "sync", "since": 9}]

    asyncio.run(scenario())
