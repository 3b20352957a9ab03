"""Messages between the nodes of a cluster, over Redis pub/sub.

Each node subscribes to one channel, ``{prefix}node:{node}``. What a node sends another in one
turn of its event loop (a table's frames for every seat another node holds, the commands of
its players) goes as one ``PUBLISH`` of a JSON list, in order; a frame several of that node's
connections get (one audience: a seat's, the spectators') goes once, for all of them
(:func:`merge_frames`). Pub/sub delivers at most once:
nothing that matters rests on it alone. A frame lost with a node is sent again when its client
resyncs by version; a command lost with its owner was never acknowledged, and the player is
told to send it again. ``PUBLISH`` answers how many nodes listen: 0 means the node is gone,
and :attr:`Bus.on_unreachable` hears of the messages it did not get.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..tasks import spawn
from .resp import Publisher

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

log = logging.getLogger("truco.server.cluster")

Message = dict[str, Any]


class Bus:
    """One node's end of the bus: buffered sends in order, one handler for what arrives."""

    def __init__(self, redis: Redis, prefix: str, node: str, url: str) -> None:
        self.redis = redis
        self.publisher = Publisher(url)  # (what is sent: a connection of its own)
        self.prefix = prefix
        self.node = node
        self.on_unreachable: Callable[[str, list[Message]], None] | None = None
        self._out: dict[str, list[Message]] = {}
        self._wake = asyncio.Event()
        self._pubsub: PubSub | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: messages published and received (the benchmark reports them)
        self.sent = 0
        self.received = 0

    def channel(self, node: str) -> str:
        return f"{self.prefix}node:{node}"

    async def start(self, handler: Callable[[Message], None]) -> None:
        """Listen to this node's channel; ``handler`` gets every message, in order."""
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel(self.node))
        self._tasks = [
            spawn(self._listen(self._pubsub, handler), name="truco-bus-listen"),
            spawn(self._publish_loop(), name="truco-bus-publish"),
        ]

    async def stop(self) -> None:
        """Send what is buffered, then stop listening."""
        await self.flush()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pubsub is not None:
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        await self.publisher.close()

    def send(self, node: str, message: Message) -> None:
        """Queue ``message`` for ``node``; it leaves with the others of this loop turn."""
        self._out.setdefault(node, []).append(message)
        self._wake.set()

    async def flush(self) -> None:
        """Publish everything queued, one message per destination node."""
        while self._out:
            batches, self._out = self._out, {}
            heard = await self.publisher.publish(
                [
                    (self.channel(node), orjson.dumps(merge_frames(messages)))
                    for node, messages in batches.items()
                ]
            )
            self.sent += sum(len(m) for m in batches.values())
            for (node, messages), listeners in zip(batches.items(), heard, strict=True):
                if not listeners and self.on_unreachable is not None:
                    self.on_unreachable(node, messages)

    async def _publish_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # Redis away for a moment: what was in flight is lost, not the bus
                log.exception("cluster bus: cannot publish")
                await asyncio.sleep(0.1)

    async def _listen(self, pubsub: PubSub, handler: Callable[[Message], None]) -> None:
        while True:
            try:
                async for item in pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    messages = orjson.loads(item["data"])
                    self.received += len(messages)
                    for message in messages:
                        try:
                            handler(message)
                        except Exception:
                            log.exception("cluster bus: cannot handle %r", message)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster bus: the subscription failed; subscribing again")
                await asyncio.sleep(0.2)
                await pubsub.subscribe(self.channel(self.node))


def merge_frames(messages: list[Message]) -> list[Message]:
    """The messages for one node with each frame sent once: an ``out`` whose frame and
    version an earlier one of the batch carries joins it (its ``c`` becomes a list of
    connections), when that keeps every connection's messages in order. The connections
    of one audience (a seat's, or spectators') get the same frame: the front fans it out.
    """
    merged: list[Message] = []
    first: dict[tuple[str, int], int] = {}  # (frame, version) -> its message in merged
    last: dict[str, int] = {}  # connection -> its last message in merged
    for message in messages:
        conn = message["c"]
        if message["k"] == "out":
            key = (message["x"], message["v"])
            at = first.get(key)
            if at is not None and last.get(conn, -1) < at:
                target = merged[at]
                if isinstance(target["c"], str):
                    target["c"] = [target["c"]]
                target["c"].append(conn)
                last[conn] = at
                continue
            first[key] = len(merged)
        last[conn] = len(merged)
        merged.append(dict(message))
    return merged
