"""The knobs of a server, with the defaults of ``truco serve``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """``turn_seconds`` 0 turns the clock off (a table may ask for 0 or from
    ``min_turn_seconds`` to 600); ``disconnect_grace`` is how long a
    seat waits for its player to reconnect before a bot covers it; ``bot_delay``
    paces bots so that people can follow them (0 in tests and benchmarks);
    ``abandon_after`` is how long a table waiting for players stays open with
    nobody connected to it.

    Limits: ``bot_workers`` processes think for search bots, with room for
    ``bot_queue`` more decisions waiting; a decision gets ``bot_seconds`` (then the
    ``cover_bot`` decides). A guest may keep ``max_tables_per_guest`` live tables and
    an address ``max_tables_per_address``. Session tokens last ``session_seconds``
    and can be renewed while valid. Each address may make ``http_rate`` requests
    (``"N/minute"``, the notation of the ``limits`` library) and ``http_write_rate``
    of them may create guests, accounts or tables; a name or an address that failed to
    log in ``login_rate`` times is refused until the window moves on.

    ``redis_url`` makes this server one node of a cluster (with a PostgreSQL ``db_url`` that
    all nodes share); its keys start with ``redis_prefix``, and a node's hold on a table
    lasts ``lease_ms`` unless renewed."""

    db_url: str = "sqlite:///truco.sqlite3"
    turn_seconds: float = 30.0
    min_turn_seconds: float = 5.0
    disconnect_grace: float = 15.0
    bot_delay: float = 0.8
    cover_bot: str = "simple"
    max_message_bytes: int = 4096
    rate_per_second: float = 10.0
    rate_burst: int = 30
    max_flood_strikes: int = 50
    max_tables: int = 2000
    event_buffer: int = 1000
    outbox_size: int = 512
    abandon_after: float = 3600.0
    bot_workers: int = 2
    bot_queue: int = 8
    bot_seconds: float = 3.0
    bot_pool: Literal["process", "thread"] = "process"
    max_tables_per_guest: int = 3
    max_tables_per_address: int = 10
    session_seconds: float = 7 * 24 * 3600.0
    hello_seconds: float = 10.0
    http_rate: str = "300/minute"
    http_write_rate: str = "20/minute"
    secure_cookies: bool = False
    login_rate: str = "10/minute"
    #: cluster mode (docs/cluster.md): the Redis the nodes share, and their keys' prefix
    redis_url: str | None = None
    redis_prefix: str = "truco:"
    lease_ms: int = 3000
    #: ``GET /metrics`` answers only with ``Authorization: Bearer <metrics_token>``
    #: (None: the route answers 404; docs/operations.md)
    metrics_token: str | None = None
