"""Starting the server so that what can go wrong says so in one line: the socket is
bound before uvicorn starts (a busy port is an error, not a traceback), and the address
to open is printed only once the server is really serving. How uvicorn serves (its
protocols and limits) is :func:`uvicorn_options`, on its public options only."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..guards.http_head import MAX_HEAD_BYTES, guarded

#: the longest message a client may send on a socket (a frame the table takes is 4 KiB at
#: most: ``ServerConfig.max_message_bytes``; longer ones are answered, up to this, closed past it)
WS_MAX_SIZE = 1 << 16
#: a socket is pinged this often, and closed if the pong takes longer than the timeout
WS_PING_SECONDS = 20.0
WS_PING_TIMEOUT = 20.0


class ClientMistakes(logging.Filter):
    """Uvicorn logs text that is not UTF-8 on a socket as an error with a traceback; it is
    a client's mistake (the socket is closed with 1007): one info line, no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], UnicodeDecodeError):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = "a socket's text was not UTF-8: closed (1007)", None
            record.exc_info = record.exc_text = None
        return True


def _quiet_client_mistakes() -> None:
    log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, ClientMistakes) for f in log.filters):
        log.addFilter(ClientMistakes())


def uvicorn_options(app: Any, **overrides: Any) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.Config`` that serve ``app`` as ``truco serve``
    does (``overrides`` replace or add some: host, port, log level...):

    - sockets on websockets' sans-I/O protocol (``ws="websockets-sansio"``), whose sends
      wait while the client does not read (the flow control :class:`~.table.Client`'s
      bounded outbox relies on), with uvicorn's pings and a 64 KiB message cap;
    - HTTP on h11, whose heads are bounded in size (``h11_max_incomplete_event_size``),
      behind :class:`~.http_head.HeadGuard` (every head of a connection bounded in time).

    Uvicorn's log of a client's malformed text is made one info line (:class:`ClientMistakes`).
    """
    _quiet_client_mistakes()
    options: dict[str, Any] = {
        "app": app,
        "http": guarded(H11Protocol),
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "ws": "websockets-sansio",
        "ws_max_size": WS_MAX_SIZE,
        "ws_ping_interval": WS_PING_SECONDS,
        "ws_ping_timeout": WS_PING_TIMEOUT,
        "ws_per_message_deflate": False,
    }
    return options | overrides


def first_line(exc: BaseException) -> str:
    """An exception's message without the library's background notes."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening (``OSError`` if it cannot be:
    the port is busy, the address is not this machine's...)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class AnnouncingServer(uvicorn.Server):
    """Uvicorn's server that prints where to open the table once it is really serving."""

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        address: str,
        on_shutdown: Callable[[], None] | None = None,
        on_drain: Callable[[], None] | None = None,
        drain_seconds: float = 0.0,
    ) -> None:
        super().__init__(config)
        self.address = address
        #: called as the shutdown begins, before the connections are closed
        self.on_shutdown = on_shutdown
        #: called first when told to stop; ``drain_seconds`` later the shutdown begins
        #: (meanwhile the node goes on serving, unready: a load balancer sends nobody new)
        self.on_drain = on_drain
        self.drain_seconds = drain_seconds

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            print(f"Truco Argento: open {self.address} in a browser (Ctrl+C stops)", flush=True)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.on_drain is not None:
            self.on_drain()
            await asyncio.sleep(self.drain_seconds)
        if self.on_shutdown is not None:
            self.on_shutdown()
        await super().shutdown(sockets=sockets)
