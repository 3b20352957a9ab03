"""A finished table and its closed connections are freed by reference counts alone: the
server freezes what survives (truco.server.pauses), and cyclic garbage that was frozen
waits for a thaw, so what only the cycle collector could free would hold its memory for
minutes (every connection, when the table's readers and uvicorn's protocol referred to
each other: megabytes a second under server_load.py's turnover)."""

from __future__ import annotations

import gc
import random
import time
import weakref
from typing import Any

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
            gc.collect()  # (a table in a cycle would now be in gc.garbage, its weakref cleared)
            assert table() is None
            assert not any(isinstance(o, Table) for o in gc.garbage)
            assert all(c() is None for c in connections)
            assert not any(isinstance(o, Client) for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
