"""Quick match in cluster mode, against the real PostgreSQL and Redis: Ana waits on one
node and Beto on another; the queue they share (in the cluster's Redis) pairs them, and
each plays the match to the end through their own node."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from tests.cluster_testing import nodes, redis_prefix, redis_unreachable
from tests.databases import postgres_schema, postgres_unreachable, service_missing
from tests.server_testing import TableClient, guest_token, play_out
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

QUEUE = "1v1-sinflor-15-casual"


@pytest.fixture
def site() -> Iterator[tuple[str, str]]:
    reason = postgres_unreachable() or redis_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema("truco_queue") as db_url, redis_prefix() as prefix:
        yield db_url, prefix


def matched(ws_url: str, token: str) -> Any:
    ws = connect(f"{ws_url}/ws/queue?queue={QUEUE}", open_timeout=10, legacy=True)
    ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


def table_of(ws: Any) -> str:
    try:
        while True:
            frame = json.loads(ws.recv(timeout=30))
            if frame["type"] == "matched":
                return str(frame["table"])
    except ConnectionClosed:
        raise AssertionError("the queue closed without a table") from None


def test_players_waiting_on_two_nodes_are_paired_and_play_to_the_end(
    site: tuple[str, str],
) -> None:
    db_url, prefix = site
    with nodes(db_url, prefix, 2) as (a, b):
        ana, beto = guest_token(a.url, "Ana"), guest_token(b.url, "Beto")
        on_a = matched(a.ws_url, ana)
        assert json.loads(on_a.recv(timeout=10))["type"] == "queued"
        on_b = matched(b.ws_url, beto)
        code = table_of(on_a)
        assert table_of(on_b) == code
        rng = random.Random(3)
        clients = [TableClient(a.ws_url, code, ana), TableClient(b.ws_url, code, beto)]

        def choose(client: TableClient, view: dict[str, Any]) -> str | None:
            legal = [x for x in view["legal"] if not x.startswith("say")]
            return rng.choice(legal) if legal else None

        play_out(clients, choose)
        for client in clients:
            client.until(lambda s: s["table"]["status"] == "finished")
        names = sorted(s["name"] for s in clients[0].state["table"]["seats"])
        assert names == ["Ana", "Beto"]
        assert not clients[0].errors and not clients[1].errors
        for client in clients:
            client.close()
