"""``GET /metrics``: Prometheus' scrape, behind a token; scraped during a played match,
its counters move by what was played (docs/operations.md)."""

from __future__ import annotations

import random
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from tests.server_testing import (
    OPEN_PLAY,
    LiveServer,
    TableClient,
    create_table,
    guest_token,
    play_out,
)

from truco.server import ServerConfig

TOKEN = "scrape-me-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = httpx.get(f"{base}/metrics", headers=AUTH, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def config(**extra: Any) -> ServerConfig:
    return ServerConfig(
        **OPEN_PLAY,
        db_url="sqlite://", bot_delay=0, turn_seconds=0, bot_pool="thread",
        rate_per_second=1000, rate_burst=1000, **extra,
    )  # fmt: skip


def test_metrics_move_with_a_played_match() -> None:
    rng = random.Random(4)
    with LiveServer(config(metrics_token=TOKEN)) as server:
        before = scrape(server.url)
        token = guest_token(server.url, "Ana")
        table = create_table(
            server.url, token, rules={"players": 2, "target": 15}, seat=0, bots={"1": "random"}
        )
        client = TableClient(server.ws_url, table["id"], token)
        client.wait_state()
        during = scrape(server.url)
        assert value(during, "truco_live_tables", mode="1v1", status="playing") == 1
        assert value(during, "truco_live_seats", mode="1v1", kind="human") == 1
        assert value(during, "truco_live_seats", mode="1v1", kind="bot") == 1
        assert value(during, "truco_table_sockets") == 1

        client.send("{not json")
        client.act("play 99x")
        acts = [0]

        def choose(c: TableClient, view: dict[str, Any]) -> str:
            acts[0] += 1
            return str(rng.choice(view["legal"]))

        play_out([client], choose)
        client.until(lambda m: m["view"] is not None and m["view"]["winner"] is not None)
        client.close()
        after = scrape(server.url)
        record = httpx.get(f"{server.url}/api/matches/{table['id']}/record").json()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    played = [a for hand in record["hands"] for a in hand["actions"]]
    by_bot = [a for a in played if a[0] == 1]
    assert moved("truco_actions_total", by="player") == len(played) - len(by_bot)
    assert moved("truco_actions_total", by="bot") == len(by_bot)
    # a round per action that reached the table (two in one round count once; a refused
    # one, acting on a view a bot's move had just made stale, counts too)
    rounds = moved("truco_action_broadcast_seconds_count")
    assert len(played) - len(by_bot) - 1 <= rounds <= acts[0]
    assert moved("truco_bot_decisions_total", level="random:default", how="inline") >= len(by_bot)
    assert moved("truco_bot_cpu_seconds_total", level="random:default") > 0
    commits = moved("truco_commit_seconds_count")
    assert commits >= 1 and moved("truco_commit_group_size_count") == commits
    assert moved("truco_commit_group_size_sum") >= commits
    assert moved("truco_errors_total", code="bad_json") == 1
    assert moved("truco_errors_total", code="bad_action") == 1


def test_metrics_answer_only_their_token() -> None:
    with LiveServer(config(metrics_token=TOKEN)) as server:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            assert httpx.get(f"{server.url}/metrics", headers=headers).status_code == 404
    with LiveServer(config()) as server:  # no token: no metrics
        assert httpx.get(f"{server.url}/metrics", headers=AUTH).status_code == 404
