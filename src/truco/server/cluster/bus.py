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

Sending is redis-py's pipeline (several ``PUBLISH`` in one round trip) on a client of its own
whose every call has :data:`PUBLISH_SECONDS` to be answered: a Redis that stops answering
costs the turn's batch, never the node's loop. Meanwhile what the node sends waits in a
buffer of at most :data:`MAX_QUEUED` messages; past that, new ones are dropped (counted in
:attr:`Bus.dropped`), as a lost ``PUBLISH`` would be.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson
from redis.asyncio import Redis

from ..tasks import spawn

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

log = logging.getLogger("truco.server.cluster")

Message = dict[str, Any]

#: how long a ``PUBLISH`` batch may wait for Redis's answer (and a connection for its own)
PUBLISH_SECONDS = 2.0
#: messages waiting to be published, at most: past it new ones are dropped
MAX_QUEUED = 100_000


class Bus:
    """One node's end of the bus: buffered sends in order, one handler for what arrives."""

    def __init__(self, redis: Redis, prefix: str, node: str, url: str) -> None:
        self.redis = redis
        # what is sent goes on a client of its own, whose calls are answered in time or fail
        self.publisher: Redis = Redis.from_url(
            url,
            socket_timeout=PUBLISH_SECONDS,
            socket_connect_timeout=PUBLISH_SECONDS,
            health_check_interval=30,
        )
        self.prefix = prefix
        self.node = node
        self.on_unreachable: Callable[[str, list[Message]], None] | None = None
        self._out: dict[str, list[Message]] = {}
        self._wake = asyncio.Event()
        self._pubsub: PubSub | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._queued = 0  # messages in ``_out``
        #: messages published and received (the benchmark reports them); dropped: not sent
        #: because the buffer was full (Redis not answering)
        self.sent = 0
        self.received = 0
        self.dropped = 0

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
        """Send what is buffered (unless Redis does not answer), then stop listening."""
        try:
            await self.flush()
        except Exception as exc:
            log.warning("cluster bus: stopping, %d messages not sent: %s", self._queued, exc)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pubsub is not None:
            await self._pubsub.aclose()
        await self.publisher.aclose()

    def send(self, node: str, message: Message) -> None:
        """Queue ``message`` for ``node``; it leaves with the others of this loop turn
        (dropped if :data:`MAX_QUEUED` messages wait already)."""
        if self._queued >= MAX_QUEUED:
            if not self.dropped:
                log.warning("cluster bus: %d messages wait for Redis: dropping", self._queued)
            self.dropped += 1
            return
        self._out.setdefault(node, []).append(message)
        self._queued += 1
        self._wake.set()

    async def flush(self) -> None:
        """Publish everything queued, one message per destination node."""
        while self._out:
            batches, self._out, self._queued = self._out, {}, 0
            async with self.publisher.pipeline(transaction=False) as pipe:
                for node, messages in batches.items():
                    pipe.publish(self.channel(node), orjson.dumps(merge_frames(messages)))
                heard = await pipe.execute()
            self.sent += sum(len(m) for m in batches.values())
            for (node, messages), listeners in zip(batches.items(), heard, strict=True):
                if not listeners and self.on_unreachable is not None:
                    self.on_unreachable(node, messages)

    async def _publish_loop(self) -> None:
        failing = False
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # Redis away for a moment: what was in flight is lost, not the bus
                if not failing:  # said once, not every tenth of a second while it lasts
                    log.exception("cluster bus: cannot publish (what was in flight is lost)")
                failing = True
                await asyncio.sleep(0.1)
                if self._out:  # what waits goes as soon as Redis answers again
                    self._wake.set()
            else:
                if failing:
                    log.warning(
                        "cluster bus: publishing again (%d dropped meanwhile)", self.dropped
                    )
                failing = False

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
        if "c" not in message:  # a word to the node itself (``expel``), for no connection
            merged.append(dict(message))
            continue
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
