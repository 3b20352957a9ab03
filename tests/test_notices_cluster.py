"""Notices on a cluster: a challenge made through one node reaches the target's notice
stream held by another node (the word goes over the bus), and so does a tournament's."""

from __future__ import annotations

import httpx
from tests.cluster_testing import nodes
from tests.test_cluster import site
from tests.test_notices import PASSWORD, Stream

__all__ = ["site"]  # the fixture: a PostgreSQL schema and a Redis prefix of the test's own


def test_a_notice_published_on_one_node_reaches_a_stream_on_another(
    site: tuple[str, str],
) -> None:
    db_url, prefix = site
    with nodes(db_url, prefix, 2) as (a, b):
        made = [
            httpx.post(
                f"{a.url}/api/accounts", json={"name": name, "password": PASSWORD}, timeout=10
            ).json()
            for name in ("Emisora", "Receptora")
        ]
        stream = Stream(b.url, made[1]["token"])
        try:
            assert stream.code == 200 and stream.next() == ("hello", "")
            sent = httpx.post(
                f"{a.url}/api/challenges",
                json={"target": "Receptora"},
                headers={"Authorization": f"Bearer {made[0]['token']}"},
                timeout=10,
            )
            assert sent.status_code == 200, sent.text
            assert stream.next(10) == ("changed", f'["player:{made[1]["id"]}"]')
        finally:
            stream.close()
