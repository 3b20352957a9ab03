"""A ban in cluster mode: the banned player's socket is on one node, their table runs on
another, and the ban is made by ``truco admin`` on the shared database. The node holding the
socket finds the session gone, sees the ban and tells every node to expel the player: a bot
takes the seat at once, not after the reconnect grace (an hour here)."""

from __future__ import annotations

import httpx
from tests.cluster_testing import nodes
from tests.server_testing import TableClient, create_table
from tests.test_cluster import listed_on, site
from tests.test_moderation import PASSWORD, admin, eventually

__all__ = ["site"]  # the fixture: a PostgreSQL schema and a Redis prefix of the test's own


def test_a_ban_reaches_a_table_run_by_another_node_at_once(site: tuple[str, str]) -> None:
    db_url, prefix = site
    extra = ("--reconnect-seconds", "3600")
    with nodes(db_url, prefix, 2, *extra) as (a, b):
        made = httpx.post(
            f"{a.url}/api/accounts", json={"name": "Tramposa", "password": PASSWORD}, timeout=10
        )
        assert made.status_code in (200, 201), made.text
        token = made.json()["token"]
        table_id = create_table(
            a.url, token, rules={"players": 2}, seat=0, bots={"1": "simple"}, name="ban"
        )["id"]
        assert listed_on(b, table_id)
        on_b = TableClient(b.ws_url, table_id, token)  # her socket: node b; the table: node a
        on_b.wait_state(lambda s: s["view"] is not None)

        def away() -> bool:
            summary = httpx.get(f"{a.url}/api/tables/{table_id}", timeout=10).json()
            return bool(summary["seats"][0]["away"])

        assert not away()
        status, out, _ = admin(db_url, "ban", "Tramposa", "--reason", "cheating")
        assert status == 0 and "banned" in out
        eventually(away, 20)
        on_b.close()
