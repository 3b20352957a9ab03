"""The server's metrics, in Prometheus' text format (``prometheus-client``).

Counters and histograms are counted where things happen (an action, a commit, a bot's
decision, a refusal); what the server holds now (live tables and seats by mode, sockets,
the quick-match queues) is read from the lobby when Prometheus asks, by :class:`Live`.

``GET /metrics`` answers only with ``Authorization: Bearer <--metrics-token>`` (404 when
the server has no metrics token: the route does not exist for the public);
``--metrics-port`` serves them on a port of their own instead (docs/operations.md).

Every metric lives in :data:`REGISTRY`, one per process (the server is one process; a
cluster has one per node, each scraped on its own).
"""

from __future__ import annotations

import hmac
from collections import Counter as Tally
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: seconds from a message reaching a table to its frames sent (commit included)
_ROUND_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

ACTIONS = Counter(
    "truco_actions", "Actions applied to matches", ["by"], registry=REGISTRY
)  # by: player, bot, clock
ROUND_SECONDS = Histogram(
    "truco_action_broadcast_seconds",
    "From a player's action reaching its table to the frames that tell of it being sent "
    "(the write-ahead commit included)",
    buckets=_ROUND_BUCKETS,
    registry=REGISTRY,
)
COMMIT_SECONDS = Histogram(
    "truco_commit_seconds",
    "Write-ahead group commits: seconds from handing the writes over to committed",
    buckets=_ROUND_BUCKETS,
    registry=REGISTRY,
)
COMMIT_WRITES = Histogram(
    "truco_commit_group_size",
    "Tables' writes per group commit",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
    registry=REGISTRY,
)
BOT_DECISIONS = Counter(
    "truco_bot_decisions",
    "Bot decisions by level and by how they were made (inline, pool, or a fallback: "
    "full, timeout, error)",
    ["level", "how"],
    registry=REGISTRY,
)
BOT_CPU_SECONDS = Counter(
    "truco_bot_cpu_seconds", "CPU time bots spent deciding, by level", ["level"], registry=REGISTRY
)
QUEUE_WAIT_SECONDS = Histogram(
    "truco_queue_wait_seconds",
    "Quick match: seconds from joining a queue to being seated",
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600),
    registry=REGISTRY,
)
LEASE_TAKEOVERS = Counter(
    "truco_lease_takeovers", "Cluster: tables this node took over from another", registry=REGISTRY
)
REFUSALS = Counter(
    "truco_rate_limit_refusals",
    "Requests and sockets refused by a rate limit, by which",
    ["limit"],
    registry=REGISTRY,
)
ERRORS = Counter(
    "truco_errors", "Refusals sent to clients, by their code", ["code"], registry=REGISTRY
)


def mode(players: int) -> str:
    """``2`` -> ``"1v1"``; ``4`` -> ``"2v2"``; ``6`` -> ``"3v3"``."""
    return f"{players // 2}v{players // 2}"


class Live(Collector):
    """What the server holds now, read from its lobby at each scrape (a process runs one
    server; the tests run several, each watched while it serves)."""

    def __init__(self) -> None:
        self.lobbies: list[Any] = []
        #: quick match's tickets waiting per queue, refreshed by the route before a scrape
        self.queued: dict[str, int] = {}

    def collect(self) -> Iterator[Metric]:
        tables: Tally[tuple[str, str]] = Tally()
        seats: Tally[tuple[str, str]] = Tally()
        sockets = 0
        for lobby in list(self.lobbies):
            for table in list(lobby.tables.values()):
                label = mode(table.rules.players)
                tables[label, table.status] += 1
                for seat in table.seats:
                    seats[label, seat.kind] += 1
                sockets += len(table.clients)
        live = GaugeMetricFamily(
            "truco_live_tables",
            "Tables this node runs, by mode and status",
            labels=["mode", "status"],
        )
        for (label, status), count in sorted(tables.items()):
            live.add_metric([label, status], count)
        yield live
        taken = GaugeMetricFamily(
            "truco_live_seats",
            "Seats at this node's tables, by mode and kind",
            labels=["mode", "kind"],
        )
        for (label, kind), count in sorted(seats.items()):
            taken.add_metric([label, kind], count)
        yield taken
        yield GaugeMetricFamily(
            "truco_table_sockets", "Sockets connected to this node's tables", value=sockets
        )
        queued = GaugeMetricFamily(
            "truco_queue_tickets", "Quick match: tickets waiting, by queue", labels=["queue"]
        )
        for queue, count in sorted(self.queued.items()):
            queued.add_metric([queue], count)
        yield queued


LIVE = Live()
REGISTRY.register(LIVE)


def exposition() -> bytes:
    """Every metric of this process, in Prometheus' text format."""
    return generate_latest(REGISTRY)


def token_matches(authorization: str | None, token: str) -> bool:
    """Whether ``authorization`` is ``Bearer <token>`` (compared in constant time)."""
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )
