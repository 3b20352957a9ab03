"""The knobs of a server, with the defaults of ``truco serve``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """``turn_seconds`` 0 turns the clock off; ``disconnect_grace`` is how long a
    seat waits for its player to reconnect before a bot covers it; ``bot_delay``
    paces bots so that people can follow them (0 in tests and benchmarks);
    ``abandon_after`` is how long a table waiting for players stays open with
    nobody connected to it."""

    db_url: str = "sqlite:///truco.sqlite3"
    turn_seconds: float = 30.0
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
