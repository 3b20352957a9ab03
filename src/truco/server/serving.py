"""Starting the server so that what can go wrong says so in one line: the socket is
bound before uvicorn starts (a busy port is an error, not a traceback), and the address
to open is printed only once the server is really serving."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import uvicorn


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
