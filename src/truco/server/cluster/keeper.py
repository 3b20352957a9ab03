"""A node's leases renewed from a thread of its own, so that a busy event loop keeps them.

A node's event loop can fall seconds behind: a burst of new tables (each an HTTP request, two
WebSocket handshakes, first frames and commits), a machine whose cores are shared. A renewal
on that loop waits its turn behind all of it, the leases run out (3 s) and the tables move to
another node, or come back to this one with a new token: a pause and errors for players,
exactly when the site is busiest. Here the renewals run in a thread with a Redis connection
of its own, every third of the lease, whatever the loop is doing.

It does not keep the leases of a node that has stopped working: the loop ticks
(:meth:`LeaseKeeper.tick`) and a loop silent for :data:`STALL_SECONDS` gets no renewal, so its
tables move after that plus the lease time. A killed node's thread dies with it: its leases
expire after the lease time, as before. The renewal's outcome (leases lost, leases regained
after they expired unclaimed) goes back to the loop, which applies it in order.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

from .lease import RENEW_SCRIPT, Lease, renew_keys, renew_outcome

log = logging.getLogger("truco.server.cluster")

#: a loop silent this long is taken for hung: its leases are no longer renewed
STALL_SECONDS = 10.0

Outcome = Callable[[list[Lease], list[Lease]], None]


class LeaseKeeper:
    """Renews the leases ``leases()`` returns (read from the thread: a copy of a dict's
    values is one step under the GIL) and says the node is alive, every ``ttl_ms / 3``;
    ``on_outcome(lost, regained)`` runs on ``loop``."""

    def __init__(
        self,
        redis_url: str,
        prefix: str,
        node: str,
        ttl_ms: int,
        leases: Callable[[], list[Lease]],
        on_outcome: Outcome,
        loop: asyncio.AbstractEventLoop,
        stall_seconds: float = STALL_SECONDS,
    ) -> None:
        import redis  # the synchronous client: this thread has no event loop

        self.redis = redis.Redis.from_url(redis_url, socket_timeout=max(1.0, ttl_ms / 1000))
        self._renew = self.redis.register_script(RENEW_SCRIPT)
        self.prefix = prefix
        self.node = node
        self.ttl_ms = ttl_ms
        self._leases = leases
        self._on_outcome = on_outcome
        self._loop = loop
        self.stall_seconds = stall_seconds
        self.seen = time.monotonic()  # the loop's last tick
        self.renewed_at = float("-inf")  # the last renewal that Redis answered
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="truco-leases", daemon=True)
        self._stalled = False

    def start(self) -> None:
        self._thread.start()

    def tick(self) -> None:
        """(On the loop.) The loop is alive."""
        self.seen = time.monotonic()

    def stop(self) -> None:
        """Stop renewing (the node releases or drops its leases itself)."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2 * self.ttl_ms / 1000)
        self.redis.close()

    def renewed_within(self, seconds: float) -> bool:
        """Whether Redis heard this node within ``seconds`` (readiness, ``/readyz``)."""
        return time.monotonic() - self.renewed_at <= seconds

    def renew_once(self) -> None:
        """Say the node is alive for a lease's time, renew its leases, hand the outcome to
        the loop."""
        now_ms = time.time() * 1000
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(f"{self.prefix}nodes", {self.node: now_ms + self.ttl_ms})
        pipe.zremrangebyscore(f"{self.prefix}nodes", 0, now_ms - 60_000)
        pipe.execute()
        self.renewed_at = time.monotonic()
        leases = self._leases()
        if not leases:
            return
        keys, args = renew_keys(self.prefix, self.node, self.ttl_ms, leases)
        lost, regained = renew_outcome(leases, self._renew(keys=keys, args=args))
        if lost or regained:
            self._loop.call_soon_threadsafe(self._on_outcome, lost, regained)

    def _run(self) -> None:
        while not self._stopping.wait(self.ttl_ms / 3000):
            if time.monotonic() - self.seen > self.stall_seconds:
                if not self._stalled:
                    log.error("node %s: its event loop is stalled: leases left to expire",
                              self.node)  # fmt: skip
                self._stalled = True
                continue
            self._stalled = False
            try:
                self.renew_once()
            except Exception:  # Redis away for a moment: the next turn tries again
                if self._loop.is_closed():  # (the node has stopped)
                    return
                log.exception("node %s: cannot renew its leases", self.node)
