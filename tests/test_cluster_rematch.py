"""A rematch in cluster mode: the players of a finished table on two nodes both accept,
and the new table (made by the node that runs the old one) is found from either node."""

from __future__ import annotations

import httpx
from tests.cluster_testing import nodes
from tests.server_testing import TableClient, play_out
from tests.test_cluster import chooser, listed_on, seat_two, site

__all__ = ["site"]  # the fixture: a PostgreSQL schema and a Redis prefix of the test's own


def test_players_on_two_nodes_accept_a_rematch_and_meet_at_the_new_table(
    site: tuple[str, str],
) -> None:
    db_url, prefix = site
    with nodes(db_url, prefix, 2) as (a, b):
        on_a, on_b, table_id = seat_two(a, b)
        play_out([on_a, on_b], chooser(2))
        for client in (on_a, on_b):
            client.until(lambda s: s["table"]["status"] == "finished")
        on_b.send({"type": "rematch", "accept": True})  # through node b's proxy
        on_a.send({"type": "rematch", "accept": True})
        made = on_b.wait(
            lambda m: (
                m["type"] == "state"
                and any(e["kind"] == "rematch" and "table" in e for e in m["events"])
            )
        )
        new_id = next(e["table"] for e in made["events"] if e["kind"] == "rematch")
        assert new_id != table_id and listed_on(b, new_id)
        summary = httpx.get(f"{b.url}/api/tables/{new_id}", timeout=10).json()
        assert [s["name"] for s in summary["seats"]] == ["Ana", "Beto"]
        assert summary["status"] == "playing"
        again = TableClient(b.ws_url, new_id, on_b.token)
        assert again.wait_state()["you"]["seat"] == 1
        for client in (on_a, on_b, again):
            client.close()
