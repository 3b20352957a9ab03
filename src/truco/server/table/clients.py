"""Who a table talks to: anything with a player, ``send(frame)`` and ``close(reason)``.

:class:`Peer` is the seam: the table never touches a socket. :class:`Client` is the
connection of this process: its frames wait in a bounded outbox that its WebSocket's
sender task writes (awaiting the server's flow control: a client that does not read
stops the sender, and its outbox fills); a client connected to another process can be a
proxy with the same three members.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import orjson

from ..people.players import Player


class Peer(Protocol):
    """One connection of a table, wherever it is."""

    @property
    def player(self) -> Player | None:
        """Who it speaks for (None: a spectator without a token)."""

    def send(self, frame: str) -> None:
        """Queue one encoded frame (never blocks; a client that cannot keep up is closed)."""

    def close(self, reason: str) -> None:
        """Ask the connection to close with ``reason``."""


TOO_SLOW = "too slow: too many unread messages"


class Client:
    """One WebSocket connection of this process: who it is, and its outbox of frames (at
    most ``outbox_size``; ``None`` is the close). A client whose outbox is full when a
    frame comes is closed and its unread frames dropped: what the server holds for a slow
    client is bounded, and the client gets the whole state again when it reconnects."""

    def __init__(self, player: Player | None, outbox_size: int = 512) -> None:
        self.player = player
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(outbox_size)
        self.closed = False
        self.close_reason = ""

    def send(self, frame: str | dict[str, Any]) -> None:
        """Queue ``frame`` (a dict is encoded as JSON); close the client if it is too slow."""
        if self.closed:
            return
        text = frame if isinstance(frame, str) else orjson.dumps(frame).decode()
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:  # what it has not read is dropped: it reconnects for the state
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.close(TOO_SLOW)

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
