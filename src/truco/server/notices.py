"""Who wants to hear that something changed: a page's stream (``GET /api/notices``)
subscribes to keys, ``player:ID`` (its challenges) and ``tournament:ID`` (a tournament's
page), and whatever changes one of them publishes the key. The page then asks for what
changed, as it did when it polled; a notice carries no data, so that it never shows anyone
what is not theirs.

In one process; a cluster node passes what it publishes to the other nodes (``relay``,
the cluster's bus) and delivers what they pass to it. A notice may be lost with a node,
as anything on the bus: the pages still look again now and then.

>>> import asyncio
>>> async def demo():
...     notices = Notices()
...     heard = notices.subscribe({"tournament:T1"})
...     notices.publish("tournament:T2", "tournament:T1")
...     return await heard.next(1.0)
>>> asyncio.run(demo())
{'tournament:T1'}
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable


class Subscription:
    """The keys one stream listens to, and those notified since it last looked (each
    key at most once: a burst of changes is one notice)."""

    def __init__(self, keys: frozenset[str]) -> None:
        self.keys = keys
        self._pending: set[str] = set()
        self._ready = asyncio.Event()
        self.closed = False

    def notify(self, key: str) -> None:
        self._pending.add(key)
        self._ready.set()

    def close(self, reason: str = "") -> None:
        """End the stream (the server stops, or its session ended: ``reason``)."""
        self.closed = True
        self._ready.set()

    async def next(self, seconds: float) -> set[str] | None:
        """The keys notified since the last call, waiting up to ``seconds`` for one
        (``None``: none came, or the subscription closed)."""
        if not self._pending and not self.closed:
            try:
                await asyncio.wait_for(self._ready.wait(), seconds)
            except TimeoutError:
                return None
        self._ready.clear()
        if self.closed:
            return None
        keys, self._pending = self._pending, set()
        return keys


class Notices:
    """The subscriptions of one process, by key."""

    def __init__(self) -> None:
        self._by_key: dict[str, set[Subscription]] = {}
        #: passes a published notice to the other nodes of a cluster (None: alone)
        self.relay: Callable[[list[str]], None] | None = None
        self.closed = False

    def subscribe(self, keys: Iterable[str]) -> Subscription:
        subscription = Subscription(frozenset(keys))
        if self.closed:
            subscription.close()
        for key in subscription.keys:
            self._by_key.setdefault(key, set()).add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        for key in subscription.keys:
            listeners = self._by_key.get(key)
            if listeners is not None:
                listeners.discard(subscription)
                if not listeners:
                    del self._by_key[key]

    def publish(self, *keys: str) -> None:
        """Tell every stream listening to one of ``keys``, here and on the other nodes."""
        self.deliver(keys)
        if self.relay is not None and keys:
            self.relay(list(keys))

    def deliver(self, keys: Iterable[str]) -> None:
        """Tell this process's streams (what another node published comes in here)."""
        for key in keys:
            for subscription in self._by_key.get(key, ()):
                subscription.notify(key)

    def close(self) -> None:
        """The server stops: every stream ends (so that none holds the shutdown)."""
        self.closed = True
        for listeners in self._by_key.values():
            for subscription in listeners:
                subscription.close()

    def listening(self) -> int:
        """How many streams listen (for the metrics and the tests)."""
        return len({s for listeners in self._by_key.values() for s in listeners})
