"""Who a table talks to: anything with a player, ``send(frame)`` and ``close(reason)``.

:class:`Peer` is the seam: the table never touches a socket. :class:`Client` is the
connection of this process: its frames are written to the socket at once when the server
allows it (a :class:`Direct` writer), else queued in a bounded outbox its WebSocket sender
drains; a client connected to another process can be a proxy with the same three members.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import orjson

from ..players import Player


class Peer(Protocol):
    """One connection of a table, wherever it is."""

    @property
    def player(self) -> Player | None:
        """Who it speaks for (None: a spectator without a token)."""

    def send(self, frame: str) -> None:
        """Queue one encoded frame (never blocks; a client that cannot keep up is closed)."""

    def close(self, reason: str) -> None:
        """Ask the connection to close with ``reason``."""


class Direct(Protocol):
    """A socket that takes a text frame now (see :mod:`truco.server.rawsocket`)."""

    def write(self, text: str) -> bool:
        """Write one frame; ``False`` if the connection is closing."""

    def write_bytes(self, data: bytes) -> bool:
        """:meth:`write` of a frame's UTF-8 text as it is."""

    def buffered(self) -> int:
        """Bytes written that the client has not taken yet."""


#: bytes a direct client may leave unread, per frame of ``outbox_size`` (a frame is
#: rarely above 4 KiB: the same bound as a full outbox, in bytes)
FRAME_BYTES = 4096
TOO_SLOW = "too slow: too many unread messages"


class Client:
    """One WebSocket connection of this process: who it is, and where its frames go: to
    ``direct`` at once, or else into a bounded outbox its sender drains. Either way a
    client that leaves ``outbox_size`` frames unread is closed."""

    def __init__(
        self, player: Player | None, outbox_size: int = 512, direct: Direct | None = None
    ) -> None:
        self.player = player
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(outbox_size)
        self.direct = direct
        self.max_unread = outbox_size * FRAME_BYTES
        self.closed = False
        self.close_reason = ""

    def send(self, frame: str | dict[str, Any]) -> None:
        """Send ``frame`` (a dict is encoded as JSON); close the client if it is too slow."""
        if self.closed:
            return
        text = frame if isinstance(frame, str) else orjson.dumps(frame).decode()
        direct = self.direct
        if direct is not None:
            if direct.buffered() > self.max_unread:
                self.close(TOO_SLOW)
            else:
                direct.write(text)
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close(TOO_SLOW)

    def send_bytes(self, frame: bytes) -> None:
        """:meth:`send` of a frame already encoded (UTF-8 JSON): a direct socket writes
        it as it is, an outbox takes its text."""
        direct = self.direct
        if direct is None or self.closed:
            self.send(frame.decode())
        elif direct.buffered() > self.max_unread:
            self.close(TOO_SLOW)
        else:
            direct.write_bytes(frame)

    def close(self, reason: str) -> None:
        """Ask the connection's sender to close with ``reason``."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        while True:  # make room for the closing sentinel
            try:
                self.outbox.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.outbox.get_nowait()
