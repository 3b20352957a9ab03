"""A finished table and its closed connections are freed by reference counts alone: the
server freezes what survives (truco.server.pauses), and cyclic garbage that was frozen
waits for a thaw, so what only the cycle collector could free would hold its memory for
minutes (every connection, when the table's readers and uvicorn's protocol referred to
each other: megabytes a second under server_load.py's turnover)."""

from __future__ import annotations

import contextlib
import gc
import json
import random
import time
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_testing import LiveServer, TableClient, create_table, guest_token, play_out
from truco.server import ServerConfig
from truco.server.table import Client, Table


def test_a_finished_table_and_its_connections_are_freed_without_the_cycle_collector() -> None:
    config = ServerConfig(db_url="sqlite://", bot_delay=0, turn_seconds=0)
    with LiveServer(config) as live:
        lobby = live.app.state.lobby
        tokens = [guest_token(live.url, name) for name in ("Ana", "Eva")]
        made = create_table(live.url, tokens[0], rules={"players": 2, "target": 15})
        table = weakref.ref(lobby.tables[made["id"]])
        # from now on what the collector finds is kept in gc.garbage, not freed: only
        # reference counts can free the table
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            clients = [TableClient(live.ws_url, made["id"], token) for token in tokens]
            for seat, client in enumerate(clients):
                client.send({"type": "sit", "seat": seat})
            rng = random.Random(7)

            def choose(client: TableClient, view: dict[str, Any]) -> str | None:
                legal = [a for a in view["legal"] if not a.startswith("say ")]
                return rng.choice(legal) if legal else None

            live_table = lobby.tables[made["id"]]
            while len(live_table.clients) < 2:
                time.sleep(0.01)
            connections = [weakref.ref(c) for c in list(live_table.clients)]
            del live_table
            play_out(clients, choose)
            for client in clients:
                client.close()
            deadline = time.monotonic() + 30
            while made["id"] in lobby.tables and time.monotonic() < deadline:
                time.sleep(0.02)
            assert made["id"] not in lobby.tables  # finished, nobody watching: forgotten
            while any(c() is not None for c in connections) and time.monotonic() < deadline:
                time.sleep(0.02)  # (the handlers end after the table hears they left)
            while table() is not None and time.monotonic() < deadline:
                # the table's own task may still hold it while it finishes (a clean-clone CI
                # at load 3 caught it alive here once); reference counts free it after that,
                # and a table in a cycle stays until the collect below, which saves it
                time.sleep(0.02)
            gc.collect()  # (a table in a cycle would now be in gc.garbage, its weakref cleared)
            assert table() is None
            assert not any(isinstance(o, Table) for o in gc.garbage)
            assert all(c() is None for c in connections)
            assert not any(isinstance(o, Client) for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()


def test_a_cluster_node_leaves_no_cyclic_garbage_of_a_table_or_its_sockets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two nodes, a player on each, a match played to the end and the sockets closed: what
    the nodes' collectors find meanwhile (their garbage census, ``TRUCO_GARBAGE=1``) holds
    nothing of the table, the sockets or the HTTP connections they were upgraded from (each
    upgrade left uvicorn's protocol and parser as a cycle, frozen if a freeze came first)."""
    from tests.cluster_testing import nodes, redis_prefix, redis_unreachable
    from tests.databases import postgres_schema, postgres_unreachable, service_missing

    reason = postgres_unreachable() or redis_unreachable()
    if reason:
        service_missing(reason)
    rng = random.Random(11)

    def choose(client: TableClient, view: dict[str, Any]) -> str | None:
        legal = [a for a in view["legal"] if not a.startswith("say")]
        return rng.choice(legal) if legal else None

    with postgres_schema("truco_freed") as db, redis_prefix() as prefix:
        monkeypatch.setenv("TRUCO_GARBAGE", "1")
        probes = []
        with contextlib.ExitStack() as stack:
            for name in ("a", "b"):  # each node its own probe file
                probes.append(tmp_path / f"{name}.jsonl")
                monkeypatch.setenv("TRUCO_STALLS", str(probes[-1]))
                started = stack.enter_context(nodes(db, prefix, 1))
                if name == "a":
                    a = started[0]
                else:
                    b = started[0]
            ana, beto = guest_token(a.url, "Ana"), guest_token(b.url, "Beto")
            table_id = create_table(a.url, ana, rules={"players": 2, "target": 15}, seat=0)["id"]
            deadline = time.monotonic() + 15
            while not any(t["id"] == table_id for t in httpx.get(f"{b.url}/api/tables").json()):
                assert time.monotonic() < deadline, "node b does not list node a's table"
                time.sleep(0.2)  # (b hears of a's table within a heartbeat)
            clients = [TableClient(a.ws_url, table_id, ana), TableClient(b.ws_url, table_id, beto)]
            clients[1].until(lambda s: s["table"]["status"] == "waiting")
            clients[1].send({"type": "sit", "seat": 1})
            play_out(clients, choose)
            for client in clients:
                client.close()
            closed = time.time()
            time.sleep(3)  # the handlers end, the nodes' censuses run (every 0.1 s)
        census = [
            line
            for path in probes
            for line in map(json.loads, path.read_text().splitlines())
            if line["kind"] in ("garbage", "final")
        ]
    assert any(line["kind"] == "garbage" and line["t"] > closed + 1 for line in census)
    ours = ("truco.", "uvicorn.", "websockets.", "httptools.", "starlette.", "fastapi.")
    found = Counter(
        name
        for line in census
        if line["kind"] == "garbage"
        for name, count in line["types"].items()
        for _ in range(count)
        if name.startswith(ours)
    )
    assert not found
