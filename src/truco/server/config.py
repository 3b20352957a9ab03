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
    an address ``max_tables_per_address``. Sessions last ``session_seconds`` and can be
    renewed while live, up to ``session_max_seconds`` after they opened. Each address may
    make ``http_rate`` requests (``"N/minute"``, the notation of the ``limits`` library)
    and ``http_write_rate`` of them may create guests, accounts or tables; an address may
    try to log in ``login_rate`` times, an account be logged in to as often; after
    ``login_free_failures`` failures of a name from one address, each next try of it waits
    longer (1 s, 2 s, 4 s... up to 5 minutes).
    A request body may take ``max_body_bytes`` and ``body_seconds`` to arrive. An address
    may hold ``max_sockets_per_address`` WebSockets open at once and a player (a guest or an
    account) ``max_sockets_per_player`` (0: no cap). A player may ask for ``analysis_rate``
    analyses of matches.

    ``redis_url`` makes this server one node of a cluster (with a PostgreSQL ``db_url`` that
    all nodes share); its keys start with ``redis_prefix``, and a node's hold on a table
    lasts ``lease_ms`` unless renewed."""

    db_url: str = "sqlite:///truco.sqlite3"
    turn_seconds: float = 30.0
    min_turn_seconds: float = 5.0
    disconnect_grace: float = 15.0
    bot_delay: float = 0.8
    cover_bot: str = "simple"
    #: a casual quick-match ticket that says nothing gets bots after this wait (seconds):
    #: a newcomer alone on the site plays instead of waiting forever
    quick_bots_after: float = 20.0
    max_message_bytes: int = 4096
    rate_per_second: float = 10.0
    rate_burst: int = 30
    max_flood_strikes: int = 50
    max_tables: int = 2000
    event_buffer: int = 1000
    outbox_size: int = 512
    abandon_after: float = 3600.0
    bot_workers: int = 2
    bot_queue: int = 64  # the ladder decides in ~1 ms: 8 sent bursts to the fallback
    bot_seconds: float = 3.0
    bot_pool: Literal["process", "thread"] = "process"
    max_tables_per_guest: int = 3
    max_tables_per_address: int = 10
    session_seconds: float = 7 * 24 * 3600.0
    #: a session renewed again and again still ends this long after it was opened
    session_max_seconds: float = 30 * 24 * 3600.0
    #: how long a session lookup is remembered in this process (and how often open
    #: sockets' sessions are checked): a session ended on another node stops within it
    session_recheck_seconds: float = 2.0
    hello_seconds: float = 10.0
    http_rate: str = "300/minute"
    http_write_rate: str = "20/minute"
    secure_cookies: bool = False
    login_rate: str = "10/minute"
    #: failed logins of a name from one address before each next try waits (1 s, 2 s, 4 s...)
    login_free_failures: int = 3
    #: argon2 hashes at once (each one a core for tens of milliseconds)
    password_workers: int = 1
    max_body_bytes: int = 65536
    body_seconds: float = 30.0
    max_sockets_per_address: int = 64
    max_sockets_per_player: int = 16
    analysis_rate: str = "10/hour"
    #: cluster mode (docs/cluster.md): the Redis the nodes share, and their keys' prefix
    redis_url: str | None = None
    redis_prefix: str = "truco:"
    lease_ms: int = 3000
    #: ``GET /metrics`` answers only with ``Authorization: Bearer <metrics_token>``
    #: (None: the route answers 404; docs/operations.md)
    metrics_token: str | None = None
    #: fair play (server/fair_play.py, docs/operations.md): rated tables come from the
    #: rated queues only unless ``rated_tables_open`` (tests); two accounts meet in at most
    #: ``rated_pair_per_day`` rated matches a day (0: no limit); accounts seen at one address
    #: are not rated against each other unless ``rated_same_address``; an address signs up
    #: ``signups_per_address_day`` accounts a day (0: no limit); the leaderboard lists
    #: accounts with ``leaderboard_min_games`` rated games in the mode or more
    rated_tables_open: bool = False
    rated_pair_per_day: int = 3
    rated_same_address: bool = False
    signups_per_address_day: int = 5
    leaderboard_min_games: int = 10
