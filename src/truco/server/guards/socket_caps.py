"""Caps on the WebSockets open at once, per address and per player (a guest or an account).

A socket is counted from the moment it is accepted until it ends; one over a cap is
accepted and closed at once with :data:`TOO_MANY_SOCKETS` and a reason naming the cap
(a refused handshake would tell the client nothing). The counts live in this process
(:class:`LocalCounts`), or, on a cluster, in Redis (:class:`~.shared_limits.RedisCounts`)
so that every node counts the same sockets.

>>> import asyncio
>>> caps = SocketCaps(per_address=2, per_player=1)
>>> async def demo():
...     first = await caps.admit("address", "1.2.3.4")
...     second = await caps.admit("address", "1.2.3.4")
...     third = await caps.admit("address", "1.2.3.4")
...     await caps.release("address", "1.2.3.4")
...     return first, second, third is not None, await caps.admit("address", "1.2.3.4")
>>> asyncio.run(demo())
(None, None, True, None)
"""

from __future__ import annotations

from typing import Literal, Protocol

#: the close code of a socket over a cap (try again once another socket is closed)
TOO_MANY_SOCKETS = 4430

Kind = Literal["address", "player"]


class OpenCounts(Protocol):
    """How many sockets each key holds open."""

    async def enter(self, key: str, cap: int) -> bool:
        """Count one more socket of ``key`` if it has fewer than ``cap``; whether it had."""

    async def leave(self, key: str) -> None:
        """One socket of ``key`` has ended."""


class LocalCounts:
    """The counts of this process."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}

    async def enter(self, key: str, cap: int) -> bool:
        held = self.open.get(key, 0)
        if held >= cap:
            return False
        self.open[key] = held + 1
        return True

    async def leave(self, key: str) -> None:
        held = self.open.get(key, 0) - 1
        if held > 0:
            self.open[key] = held
        else:
            self.open.pop(key, None)


class SocketCaps:
    """At most ``per_address`` sockets open from one address and ``per_player`` for one
    player; a cap of 0 means none."""

    def __init__(self, per_address: int, per_player: int, counts: OpenCounts | None = None) -> None:
        self.caps: dict[Kind, int] = {"address": per_address, "player": per_player}
        self.counts = counts or LocalCounts()

    async def admit(self, kind: Kind, key: str) -> str | None:
        """Count a new socket of ``key``; why it is refused (nothing counted), or ``None``
        (then :meth:`release` it when it ends)."""
        cap = self.caps[kind]
        if cap <= 0 or await self.counts.enter(f"{kind}:{key}", cap):
            return None
        whose = "your address" if kind == "address" else "your session"
        return f"too many open sockets for {whose}: at most {cap}; close one first"

    async def release(self, kind: Kind, key: str) -> None:
        if self.caps[kind] > 0:
            await self.counts.leave(f"{kind}:{key}")
