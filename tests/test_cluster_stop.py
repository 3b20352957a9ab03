"""A node that stops with tables in flight stops at once: its tables stop as the shutdown
begins (committed, their sockets told), nothing waits for a table that will not answer, and
a cancel swallowed by the Redis client does not keep the matchmaker (and so the node) alive.

A one-node cluster holding 1,000 tables did not stop within 60 s of SIGINT: the matchmaker
went on after redis-py swallowed its cancel (about one cancel in ten during a round), and
sockets waiting for their table's first frame held uvicorn's graceful shutdown for 15 s."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from tests.cluster_testing import REDIS_URL, nodes, redis_prefix, redis_unreachable
from tests.databases import postgres_schema, postgres_unreachable, service_missing
from tests.server_testing import TableClient, create_table, guest_token
from websockets.exceptions import ConnectionClosed

from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.lobby.tables import Lobby
from truco.server.people.players import Player
from truco.server.storage.store import Store
from truco.server.table import Client, Join, Table
from truco.server.table.durability import TableStopped
from truco.server.web.queue_api import Matchmaker

RULES = {"players": 2, "target": 15}


class SwallowingBackend:
    """A queue backend whose round swallows a cancel, as redis-py's client does at times."""

    def __init__(self) -> None:
        self.rounds = 0
        self.in_round = asyncio.Event()

    async def match(self, now: float) -> list[Any]:
        self.rounds += 1
        self.in_round.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            return []
        return []

    async def close(self) -> None:
        pass


def test_the_matchmaker_stops_even_when_its_round_swallows_the_cancel() -> None:
    async def scenario() -> int:
        backend = SwallowingBackend()
        matchmaker = Matchmaker(Any, backend, interval=0)  # type: ignore[arg-type]
        await matchmaker.start()
        await backend.in_round.wait()
        # (the bound only turns a hang into a failure)
        await asyncio.wait_for(matchmaker.stop(), 30)
        return backend.rounds

    assert asyncio.run(scenario()) == 1  # no round after the stop


def _config(url: str) -> ServerConfig:
    return ServerConfig(db_url=url, bot_delay=0, turn_seconds=0, disconnect_grace=3600)


def test_a_table_stopped_before_it_is_durable_tells_its_creator_at_once(tmp_path: Any) -> None:
    """``until_durable`` of a table whose actor stops first raises :class:`TableStopped`
    (the HTTP request that made it answers 503) instead of waiting 30 s."""

    async def scenario() -> str:
        url = f"sqlite:///{tmp_path / 'stop.sqlite3'}"
        store = Store(url)
        await store.start()
        table = Table("t1", "t", Rules.from_dict(RULES), _config(url), store)
        waiting = asyncio.create_task(table.until_durable())
        await asyncio.sleep(0)
        await table.stop()  # (never started: a cluster node stopping before its lease)
        try:
            await asyncio.wait_for(waiting, 30)
        except TableStopped:
            return "stopped"
        finally:
            await store.close()
        return "durable"

    assert asyncio.run(scenario()) == "stopped"


def test_a_join_behind_the_stop_is_closed_not_left_waiting(tmp_path: Any) -> None:
    async def scenario() -> tuple[bool, str]:
        url = f"sqlite:///{tmp_path / 'join.sqlite3'}"
        store = Store(url)
        await store.start()
        table = Table("t2", "t", Rules.from_dict(RULES), _config(url), store)
        table.start()
        await table.until_durable()
        stopping = asyncio.create_task(table.stop())
        await asyncio.sleep(0)  # the Stop is in the inbox
        late = Client(Player("p2", "Beto"))
        table.inbox.put_nowait(Join(late, None))
        await stopping
        await store.close()
        return late.closed, late.close_reason

    assert asyncio.run(scenario()) == (True, "the server is stopping")


def test_shutting_down_stops_the_tables_and_tells_their_clients_at_once(tmp_path: Any) -> None:
    async def scenario() -> list[str]:
        url = f"sqlite:///{tmp_path / 'lobby.sqlite3'}"
        lobby = Lobby(_config(url), Store(url))
        await lobby.start()
        clients = []
        for i in range(20):
            table = lobby.create(Player(f"p{i}", f"P{i}"), Rules.from_dict(RULES), f"t{i}")
            client = Client(Player(f"p{i}", f"P{i}"))
            table.inbox.put_nowait(Join(client, None))
            clients.append(client)
        lobby.shut_down()  # what the server calls as its shutdown begins
        assert lobby._stopping_tables is not None
        await lobby._stopping_tables
        reasons = [c.close_reason for c in clients]
        await lobby.stop()
        return reasons

    assert asyncio.run(scenario()) == ["the server is stopping"] * 20


@pytest.fixture
def site() -> Iterator[tuple[str, str]]:
    reason = postgres_unreachable() or redis_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema("truco_cluster_stop") as db_url, redis_prefix() as prefix:
        yield db_url, prefix


def test_a_node_with_tables_in_flight_stops_and_tells_its_players(
    site: tuple[str, str],
) -> None:
    """SIGINT: every socket still connected is closed as the shutdown begins (uvicorn's
    1012, or the table's 1001 "the server is stopping"), the node exits cleanly without
    cancelling anything at the end of uvicorn's graceful wait, and its tables are
    committed and handed back (no lease of the site left)."""
    db_url, prefix = site
    with nodes(db_url, prefix, 1) as (node,):
        clients = []
        for i in range(6):
            token = guest_token(node.url, f"p{i}")
            table = create_table(node.url, token, rules=RULES, seat=0)
            client = TableClient(node.ws_url, table["id"], token)
            client.wait_state()
            clients.append(client)
        node.process.send_signal(signal.SIGINT)
        codes = []
        for client in clients:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    client.recv(timeout=60)
            codes.append((closed.value.rcvd.code, closed.value.rcvd.reason))
        assert node.process.wait(60) == 0
    assert {code for code, _ in codes} <= {1001, 1012}
    assert not [line for line in node.output if "timeout graceful shutdown" in line]
    import redis

    assert not list(redis.Redis.from_url(REDIS_URL).scan_iter(f"{prefix}lease:*"))
