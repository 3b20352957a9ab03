"""A cluster's per-address limits and socket caps count across its nodes (in its Redis):
an address that spreads its requests or its sockets over two nodes meets the same limits
as on one."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import httpx
import pytest
from tests.cluster_testing import nodes, redis_prefix, redis_unreachable
from tests.databases import postgres_schema, postgres_unreachable, service_missing
from tests.server_testing import create_table, guest_token
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from truco.server.guards.socket_caps import TOO_MANY_SOCKETS


@pytest.fixture
def site() -> Iterator[tuple[str, str]]:
    reason = postgres_unreachable() or redis_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema("truco_limits") as db_url, redis_prefix() as prefix:
        yield db_url, prefix


def closed_with(ws: ClientConnection) -> int:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


def test_requests_and_sockets_are_counted_across_the_nodes(site: tuple[str, str]) -> None:
    db_url, prefix = site
    caps = ["--http-rate", "12/minute", "--max-sockets-per-address", "3"]
    with nodes(db_url, prefix, 2, *caps) as (one, two), contextlib.ExitStack() as stack:
        token = guest_token(one.url, "Repartido")  # request 1 (on one)
        table = create_table(two.url, token, rules={"players": 2})["id"]  # 2 (on two)
        sockets = []
        for node in (one, two, one):  # 3, 4, 5: a socket's handshake is a request too
            ws = stack.enter_context(connect(f"{node.ws_url}/ws/{table}"))
            ws.send(json.dumps({"type": "hello"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            sockets.append(ws)
        fourth = stack.enter_context(connect(f"{two.ws_url}/ws/{table}"))  # 6
        assert closed_with(fourth) == TOO_MANY_SOCKETS  # two holds one: the site holds three
        sockets.pop().close()
        answers = [httpx.get(f"{node.url}/api/tables", timeout=10) for node in (one, two) * 4]
        statuses = [a.status_code for a in answers]  # 7 to 14: 12 a minute in all
        assert statuses == [200] * 6 + [429] * 2, statuses
        assert answers[-1].json()["code"] == "too_many_requests"
