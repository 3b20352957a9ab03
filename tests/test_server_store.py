"""Persistence: every match is stored as a record while it is played; a server
restarted on the same database goes on with every unfinished match from the same
state. Run on SQLite, and on PostgreSQL when one answers at 127.0.0.1:5432."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import subprocess
import sys
import time
from typing import Any
from unittest.mock import patch

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from databases import db_url
from server_testing import (
    LiveServer,
    TableClient,
    create_table,
    free_port,
    guest_token,
    play_out,
)
from truco.game import Game
from truco.record import game_to_record, record_from_json, replay
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.lobby.tables import Lobby
from truco.server.people.players import Player
from truco.server.protocol import parse_client_message
from truco.server.storage.journal import RecordPosition, TableWrite, apply_hands, record_delta
from truco.server.storage.rows import MatchRow
from truco.server.storage.store import Store, journal_table
from truco.server.table import Client, Command, Join, Seat, Table

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
        assert record["headers"]["seats"] == ["Ana", "Rosa"]
        assert httpx.get(f"{server.url}/api/tables").json() == []  # finished: not live any more


def serve(db_url: str, port: int) -> subprocess.Popen[bytes]:
    """``truco serve`` as its own process; returns once it answers."""
    process = subprocess.Popen(
        [sys.executable, "-m", "truco.cli", "serve", "--port", str(port), "--db", db_url,
         "--turn-seconds", "0", "--bot-delay", "0", "--max-tables-per-guest", "100"],
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
    """Ctrl+C: a clean shutdown (exit 0; 130, the shell's code for an interrupt, is accepted)."""
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=30)
    assert process.returncode in (0, 130), errors.decode()
    assert b"Traceback" not in errors, errors.decode()


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
        abandon_after=1.0,
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


# ---------------------------------------------------------------------- write-ahead, journal
def bot_table(store: Store | None, players: int = 2, **config: Any) -> Table:
    """A table of bots (nobody thinks: rounds are driven by the test), started."""
    table = Table(
        id=f"t{random.randrange(1 << 30):x}",
        name="Mesa",
        rules=Rules(players=players, target=15),
        config=ServerConfig(db_url="", bot_delay=0, turn_seconds=0, **config),
        store=store,
        seats=[Seat("bot", None, f"b{i}", "random") for i in range(players)],
    )
    table.start_if_full()
    return table


def act_at_random(table: Table, rng: random.Random) -> None:
    game = table.game
    assert game is not None and not game.is_over
    seat = game.actors()[0]
    table._apply(seat, rng.choice(game.legal_actions(seat)), "bot")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 12), max_size=40))
def test_record_deltas_rebuild_the_record(seed: int, cuts: list[int]) -> None:
    """Appending the deltas taken at arbitrary moments gives the record of the match."""
    rng = random.Random(seed)
    game = Game(Rules(players=rng.choice([2, 4, 6]), flor=rng.random() < 0.5), seed=seed)
    record = game_to_record(game)
    record["hands"] = []
    at = RecordPosition()
    for cut in [0, *cuts]:
        for _ in range(cut):
            if game.is_over:
                break
            seat = game.actors()[0]
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        delta, at = record_delta(game, at)
        apply_hands(record, delta)
        assert record == game_to_record(game)
        assert record_delta(game, at)[0] == []  # nothing new: nothing to write


def test_sqlite_runs_in_wal_mode_with_a_synced_log(tmp_path: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 'wal.sqlite3'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    store.engine.dispose()


def test_a_table_rebuilt_from_the_journal_is_the_table_that_was_committed(
    db_url: str,
) -> None:
    """Checkpoint + journal = the live table: record, version, seats, resync events;
    a new checkpoint now and then keeps the journal short; a finished match keeps none."""

    async def scenario() -> None:
        store = Store(db_url)
        await store.start()
        rng = random.Random(3)
        table = bot_table(store, players=4, event_buffer=40)
        await table._publish()
        for step in range(60):
            act_at_random(table, rng)
            if step % 7 == 0:
                table.committed.clear()
            await table._publish()
            if table.game is not None and table.game.is_over:
                break
            stored = Table.restore(store.load(match_id=table.id)[0], table.config, None)
            assert stored.version == table.version
            assert game_to_record(stored.game) == game_to_record(table.game)  # type: ignore[arg-type]
            assert [e.body for e in stored.events] == [e.body for e in table.events][-40:]
        with store.engine.connect() as conn:
            entries = conn.execute(
                select(func.count())
                .select_from(journal_table)
                .where(journal_table.c.match_id == table.id)
            ).scalar()
        assert entries is not None and 0 < entries <= 60
        await store.close()

    with patch("truco.server.storage.journal.CHECKPOINT_EVERY", 16):
        asyncio.run(scenario())


def test_a_finished_match_keeps_its_record_and_no_journal(db_url: str) -> None:
    async def scenario() -> None:
        store = Store(db_url)
        await store.start()
        rng = random.Random(8)
        table = bot_table(store)
        await table._publish()
        while not table.game.is_over:  # type: ignore[union-attr]
            act_at_random(table, rng)
            await table._publish()
        table.status = "finished"  # as the table does after the last action
        await table._publish()
        row = store.load(match_id=table.id)[0]
        assert row.status == "finished" and row.version == table.version
        assert row.record == table.snapshot().record
        with store.engine.connect() as conn:
            assert conn.execute(select(journal_table)).first() is None
        await store.close()

    asyncio.run(scenario())


class GatedStore(Store):
    """A store whose commits wait for the test to open the gate (or fail while ``broken``)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.gate = asyncio.Event()
        self.broken = False
        self.commits: list[int] = []

    async def commit(self, write: TableWrite) -> None:
        await self.gate.wait()
        if self.broken:
            raise OSError("the database went away")
        await super().commit(write)
        self.commits.append(write.version)


def test_nobody_hears_of_an_action_before_it_is_committed(tmp_path: Any) -> None:
    async def scenario() -> None:
        store = GatedStore(f"sqlite:///{tmp_path / 'gate.sqlite3'}")
        store.gate.set()
        people = [Player(f"p{i}", f"P{i}") for i in range(2)]
        table = Table(
            id="gated",
            name="Mesa",
            rules=Rules(players=2),
            config=ServerConfig(db_url="", bot_delay=0, turn_seconds=0),
            store=store,
            seats=[Seat("human", p.id, p.name) for p in people],
        )
        table.start_if_full()
        table.start()
        await table.until_durable()
        clients = [Client(p) for p in people]
        for client in clients:
            await table.inbox.put(Join(client, since=0))
        states = [json.loads(await asyncio.wait_for(c.outbox.get(), 5)) for c in clients]
        assert states[1]["v"] == table.version == store.commits[-1]
        store.gate.clear()  # the next commit hangs
        store.broken = True
        seat = table.game.actors()[0]  # type: ignore[union-attr]
        token = next(a for a in states[seat]["view"]["legal"] if a.startswith("play"))
        act = parse_client_message(json.dumps({"type": "act", "action": token}))
        await table.inbox.put(Command(clients[seat], act))
        await asyncio.sleep(0.1)
        assert table._persisting  # applied, not told:
        assert all(c.outbox.empty() for c in clients)
        assert table.summary()["version"] == states[1]["v"]  # the lobby sees the durable table
        store.gate.set()  # the database answers with errors: still nobody is told
        await asyncio.sleep(0.3)
        assert all(c.outbox.empty() for c in clients)
        store.broken = False  # it comes back: the table's retry commits, then tells
        for client in clients:
            message = json.loads(await asyncio.wait_for(client.outbox.get(), 10))
            assert message["v"] > states[1]["v"] and store.commits[-1] == message["v"]
            assert message["events"][0]["action"] == token
        await table.stop()
        await store.close()

    asyncio.run(scenario())


def test_commits_that_arrive_during_a_commit_go_in_one_transaction(tmp_path: Any) -> None:
    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'group.sqlite3'}")
        await store.start()
        tables = [bot_table(store) for _ in range(12)]
        await asyncio.gather(*(t._publish() for t in tables))
        before = store.transactions
        rng = random.Random(1)
        for t in tables:
            act_at_random(t, rng)
        await asyncio.gather(*(t._publish() for t in tables))
        # the first write goes alone; the others arrive while it is in flight
        assert store.transactions - before <= 3
        assert all(t.journal.version == t.version for t in tables)
        await store.close()

    asyncio.run(scenario())


def test_a_table_whose_journal_is_broken_does_not_keep_the_others_down(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'broken.sqlite3'}"

    async def scenario() -> None:
        store = Store(url)
        await store.start()
        rng = random.Random(2)
        tables = [bot_table(store) for _ in range(2)]
        for table in tables:
            await table._publish()
            act_at_random(table, rng)
            await table._publish()
        await store.close()
        broken = Store(url)
        with broken.engine.begin() as conn:  # actions for a hand that was never dealt
            conn.execute(
                journal_table.insert().values(
                    match_id=tables[0].id,
                    version=tables[0].version + 1,
                    entry=json.dumps({"events": [], "hands": [[7, None, [[0, "mazo"]]]]}),
                )
            )
        lobby = Lobby(config_for(url), broken)
        await lobby.start()
        assert list(lobby.tables) == [tables[1].id]
        await lobby.stop()

    asyncio.run(scenario())


def test_sqlite_syncs_every_commit_unless_the_url_asks_for_normal(tmp_path: Any) -> None:
    """FULL by default (a commit survives a power cut); ``?synchronous=normal`` trades that
    for no disk flush per commit (a commit still survives the process being killed)."""
    levels = {}
    for option, name in (("", "full"), ("?synchronous=normal", "normal")):
        store = Store(f"sqlite:///{tmp_path / name}.sqlite3{option}")
        with store.engine.connect() as conn:
            levels[name] = (
                conn.exec_driver_sql("PRAGMA journal_mode").scalar(),
                conn.exec_driver_sql("PRAGMA synchronous").scalar(),
            )
        store.engine.dispose()
    assert levels == {"full": ("wal", 2), "normal": ("wal", 1)}
    with pytest.raises(ValueError, match="synchronous must be full or normal"):
        Store(f"sqlite:///{tmp_path / 'x.sqlite3'}?synchronous=off")
