"""Persistence: every match is stored as a record while it is played; a server
restarted on the same database goes on with every unfinished match from the same
state. Run on SQLite, and on PostgreSQL when one answers at 127.0.0.1:5432."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from typing import Any

import httpx

from databases import db_url
from truco.record import record_from_json, replay
from truco.server import ServerConfig
from truco.server.store import MatchRow, Store
from truco.server.testing import (
    LiveServer,
    TableClient,
    create_table,
    free_port,
    guest_token,
    play_out,
)

__all__ = ["db_url"]  # the fixture, from databases


def config_for(db_url: str) -> ServerConfig:
    return ServerConfig(
        db_url=db_url,
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=3600,
        rate_per_second=1000,
        rate_burst=1000,
    )


def moves(state: dict[str, Any]) -> list[str]:
    """The seat's legal actions, megaphone words aside."""
    view = state["view"]
    return [a for a in view["legal"] if not a.startswith("say ")] if view else []


def waits_for_me(state: dict[str, Any]) -> bool:
    """A stable moment: the server waits for this seat (no bot has anything to do)."""
    return bool(moves(state)) or state["view"]["winner"] is not None


def first_moves(client: TableClient, count: int, rng: random.Random) -> None:
    """Play ``count`` of this seat's actions (the bot answers in between), calmly:
    refusing calls and never raising to a falta, so that the match is still on after."""
    done = 0
    while done < count:
        state = client.until(lambda m: m["view"] is not None and waits_for_me(m))
        if state["view"]["winner"] is not None:
            return
        legal = moves(state)
        calm = [a for a in legal if a == "no-quiero" or a.startswith("play ")]
        client.act_and_wait(rng.choice(calm or legal))
        done += 1


def test_store_round_trip(db_url: str) -> None:
    store = Store(db_url)
    assert store.secret_key() == store.secret_key()
    row = MatchRow(
        "abc123",
        "Mesa",
        "playing",
        1.0,
        2.0,
        7,
        None,
        {"rules": {}, "seats": []},
        {"format": "x"},
    )
    store.write([row])
    row.version = 8
    store.write([row])
    loaded = store.load(match_id="abc123")
    assert len(loaded) == 1 and loaded[0].version == 8 and loaded[0].record == {"format": "x"}
    assert store.load(unfinished=False) == []
    store.engine.dispose()


def test_a_restarted_server_goes_on_with_the_same_match(db_url: str) -> None:
    rng = random.Random(5)
    config = config_for(db_url)
    with LiveServer(config) as server:
        token = guest_token(server.url, "Ana")
        table = create_table(
            server.url,
            token,
            rules={"players": 2, "target": 30},
            seat=0,
            bots={"1": "random"},
        )
        client = TableClient(server.ws_url, table["id"], token)
        first_moves(client, 6, rng)
        before = client.until(waits_for_me)
        client.close()
    assert before["view"]["winner"] is None, "the match ended before the restart"

    with LiveServer(config) as server:  # a new process on the same database
        client = TableClient(server.ws_url, table["id"], token, since=before["v"])
        after = client.wait_state()
        # the restarted server still has the events: it answers with what was missed
        assert after["full"] is False and after["v"] >= before["v"]
        assert all(e["v"] > before["v"] for e in after["events"])
        assert after["you"]["seat"] == 0
        for key in (
            "hand",
            "dealt",
            "played",
            "bazas",
            "score",
            "chicos",
            "hand_index",
            "mano",
            "log",
            "legal",
            "pending",
            "truco_level",
        ):
            assert after["view"][key] == before["view"][key], key
        assert [s["kind"] for s in after["table"]["seats"]] == ["human", "bot"]
        # and it plays on to the end, the next hands dealt by the server's shuffle
        play_out([client], lambda c, view: rng.choice(view["legal"]))
        client.until(lambda m: m["view"]["winner"] is not None)
        client.close()
    with LiveServer(config) as server:
        history = httpx.get(f"{server.url}/api/history").json()
        assert [h["id"] for h in history] == [table["id"]]
        record = httpx.get(f"{server.url}/api/matches/{table['id']}/record").json()
        result = replay(record_from_json(record))
        assert result.error is None and result.winner is not None
        assert record["headers"]["seats"] == ["Ana", "Bot random"]
        assert httpx.get(f"{server.url}/api/tables").json() == []  # finished: not live any more


def serve(db_url: str, port: int) -> subprocess.Popen[bytes]:
    """``truco serve`` as its own process; returns once it answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "truco.cli", "serve", "--port", str(port), "--db", db_url,
         "--turn-seconds", "0", "--bot-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/options", timeout=1)
            return process
        except httpx.HTTPError:
            if process.poll() is not None:
                raise AssertionError(
                    process.stderr.read().decode() if process.stderr else "serve died"
                ) from None
            time.sleep(0.05)
    process.kill()
    raise AssertionError("truco serve did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)  # Ctrl+C: a clean shutdown
    assert process.wait(30) == 0


def test_truco_serve_stopped_mid_match_and_started_again(tmp_path: Any) -> None:
    """The real command, stopped with Ctrl+C in the middle of a hand and started again.

    The random bots sometimes end a match within a few moves (an accepted falta envido
    in las malas takes the chico): such a match is not a mid-match stop, so the test
    starts another table until it stops one that is still on."""
    db_url = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    port = free_port()
    base, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    rng = random.Random(11)
    process = serve(db_url, port)
    try:
        token = guest_token(base, "Ana")
        for _ in range(20):
            table = create_table(base, token, rules={"players": 4, "flor": True}, seat=0,
                                 bots={"1": "random", "2": "random", "3": "random"})  # fmt: skip
            client = TableClient(ws, table["id"], token)
            first_moves(client, 4, rng)
            before = client.until(waits_for_me)
            client.close()
            if before["view"]["winner"] is None:
                break
        else:
            raise AssertionError("every match ended within its first moves")
    finally:
        stop(process)
    process = serve(db_url, port)
    try:
        client = TableClient(ws, table["id"], token)
        after = client.wait_state()
        for key in ("hand", "played", "score", "hand_index", "log", "legal", "pending"):
            assert after["view"][key] == before["view"][key], key
        client.close()
    finally:
        stop(process)


def test_a_table_nobody_joins_is_abandoned_and_not_restored(tmp_path: Any) -> None:
    config = ServerConfig(
        db_url=f"sqlite:///{tmp_path / 'idle.sqlite3'}",
        bot_delay=0,
        turn_seconds=0,
        abandon_after=0.2,
    )
    with LiveServer(config) as server:
        token = guest_token(server.url, "Ana")
        table = create_table(server.url, token, rules={"players": 2})
        watcher = TableClient(server.ws_url, table["id"])  # someone watching keeps it open
        watcher.wait_state()
        watcher.close()
        for _ in range(200):
            if httpx.get(f"{server.url}/api/tables/{table['id']}").status_code == 404:
                break
            time.sleep(0.05)
        assert httpx.get(f"{server.url}/api/tables").json() == []
    with LiveServer(config) as server:
        assert httpx.get(f"{server.url}/api/tables").json() == []
        assert httpx.get(f"{server.url}/api/history").json() == []


def test_a_committed_card_survives_a_restart(tmp_path: Any) -> None:
    config = config_for(f"sqlite:///{tmp_path / 'committed.sqlite3'}")
    with LiveServer(config) as server:
        tokens = [guest_token(server.url, name) for name in ("Ana", "Beto")]
        table = create_table(server.url, tokens[0], rules={"players": 2}, seat=0)
        beto = TableClient(server.ws_url, table["id"], tokens[1])
        beto.wait_state()
        beto.send({"type": "sit", "seat": 1})
        state = beto.until(lambda m: m["view"] is not None)
        waiting = 1 if state["view"]["turn"] == 0 else 0
        client = beto
        if waiting == 0:
            client = TableClient(server.ws_url, table["id"], tokens[0])
            state = client.wait_state()
        early = state["view"]["hand"][0]
        client.act_and_wait(f"play {early}")
        assert client.state["you"]["committed"] == early
    with LiveServer(config) as server:
        clients = [TableClient(server.ws_url, table["id"], token) for token in tokens]
        states = [c.wait_state() for c in clients]
        assert states[waiting]["you"]["committed"] == early
        actor = clients[1 - waiting]
        actor.act(f"play {states[1 - waiting]['view']['hand'][0]}")
        done = clients[waiting].wait_state(
            lambda m: any(e.get("action") == f"play {early}" for e in m["events"])
        )
        assert early not in done["view"]["hand"]
