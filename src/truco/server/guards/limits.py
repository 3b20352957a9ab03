"""Rate limits: a token bucket per WebSocket connection, and per-address HTTP limits.

The WebSocket bucket is a few lines of arithmetic on the table's own loop; the HTTP
limits are moving windows per address (:class:`MovingWindow`, the rates written in the
``limits`` library's notation), as a plain ASGI middleware (:class:`HttpLimits`, which also
caps request bodies and the sockets open per address). The ``limits`` library's own
in-memory storage is not used: it starts a timer thread every few hits to expire them,
which cost the server's loop more than the counting itself. A cluster counts in Redis
instead, through that library (:mod:`.cluster.shared_limits`).

>>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
>>> bucket.allow(0.0), bucket.allow(0.0), bucket.allow(0.0), bucket.allow(1.0)
(True, True, False, True)
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from limits import RateLimitItem
from starlette.types import ASGIApp, Receive, Scope, Send

from ...refusals import Refusal
from ..metrics import REFUSALS
from ..refusals import send_refusal
from .body_cap import BodyCap
from .socket_caps import TOO_MANY_SOCKETS, SocketCaps


class TokenBucket:
    """``burst`` messages at once, then ``rate`` messages per second."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = now

    def allow(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


# ------------------------------------------------------------------ HTTP, per address
def parse_rate(text: str) -> RateLimitItem:
    """A rate such as ``"300/minute"``; :class:`ValueError` with the notation otherwise."""
    from limits import parse

    try:
        return parse(text)
    except ValueError:
        raise ValueError(f"not a rate: {text!r} (write it as '300/minute' or '5/second')") from None


class MovingWindow:
    """At most ``rate.amount`` hits per key in any span of the rate's period: a hit is
    refused while the key already has that many in the last period, and a refused hit
    does not count. Keys that have no hit in the period are forgotten.

    >>> now = [0.0]
    >>> window = MovingWindow(parse_rate("2/minute"), clock=lambda: now[0])
    >>> window.hit("a"), window.hit("a"), window.hit("a"), window.test("b")
    (True, True, False, True)
    >>> now[0] = 59.0
    >>> window.test("a")
    False
    >>> now[0] = 60.0
    >>> window.test("a"), window.hit("a"), window.hit("a"), window.hit("a")
    (True, True, True, False)
    """

    def __init__(self, rate: RateLimitItem, clock: Callable[[], float] = time.monotonic) -> None:
        self.amount = rate.amount
        self.seconds = float(rate.get_expiry())
        self.clock = clock
        self.hits: dict[str, deque[float]] = {}
        self.swept = clock()

    def _recent(self, key: str, now: float) -> deque[float] | None:
        """The key's hits within the period (older ones dropped)."""
        if now - self.swept > self.seconds:  # forget the keys nobody used for a period
            self.swept = now
            for stale in [k for k, h in self.hits.items() if h[-1] <= now - self.seconds]:
                del self.hits[stale]
        hits = self.hits.get(key)
        if hits is not None:
            while hits and hits[0] <= now - self.seconds:
                hits.popleft()
        return hits

    def test(self, key: str) -> bool:
        """Whether a hit of ``key`` would be allowed now (nothing is counted)."""
        hits = self._recent(key, self.clock())
        return hits is None or len(hits) < self.amount

    def hit(self, key: str) -> bool:
        """Count a hit of ``key`` if it is allowed; whether it was."""
        now = self.clock()
        hits = self._recent(key, now)
        if hits is None:
            hits = self.hits[key] = deque()
        if len(hits) >= self.amount:
            return False
        hits.append(now)
        return True


WRITES = frozenset(
    {
        ("POST", "/api/guest"),
        ("POST", "/api/tables"),
        ("POST", "/api/session/renew"),
        ("POST", "/api/accounts"),
        ("POST", "/api/challenges"),
        ("POST", "/api/tournaments"),
    }
)
#: what the per-address windows count: the API, the sockets, and the pages that look
#: something up in the database (a player's profile, a table or a match)
COUNTED = ("/api/", "/ws/", "/u/", "/t/", "/replay/")


class Windows(Protocol):
    """Moving windows of hits per key (this process's, or a cluster's in Redis)."""

    async def hit(self, key: str) -> bool:
        """Count a hit of ``key`` if it is allowed; whether it was."""


class LocalWindows:
    """:class:`MovingWindow` behind the :class:`Windows` interface."""

    def __init__(self, rate: RateLimitItem) -> None:
        self.window = MovingWindow(rate)

    async def hit(self, key: str) -> bool:
        return self.window.hit(key)


class AddressLimits:
    """The per-address windows: every request, and the calls that create guests and
    tables (:data:`WRITES`), which have a tighter rate of their own. ``windows`` makes
    the windows of a rate (by default this process's)."""

    def __init__(
        self,
        rate: str,
        write_rate: str,
        windows: Callable[[RateLimitItem], Windows] = LocalWindows,
    ) -> None:
        self.rate_text, self.write_text = rate, write_rate
        self.requests = windows(parse_rate(rate))
        self.writes = windows(parse_rate(write_rate))

    async def refusal(self, address: str, method: str | None, path: str) -> Refusal | None:
        """Count one request of ``address``; why it is refused, or ``None``."""
        if not await self.requests.hit(f"requests:{address}"):
            return Refusal.of("too_many_requests", rate=self.rate_text)
        if (method, path) in WRITES and not await self.writes.hit(f"writes:{address}"):
            return Refusal.of("too_many_writes", rate=self.write_text)
        return None


#: the close code of a socket handshake refused by the per-address rate
RATE_LIMITED = 4429


class HttpLimits:
    """ASGI middleware: per-address request rates (moving windows) on the API, the
    sockets' handshakes and the pages that look something up (:data:`COUNTED`), a
    tighter rate on the calls that create guests and tables, request bodies counted as
    they stream (:class:`~.body_cap.BodyCap`), and the sockets open per address
    (:class:`~.socket_caps.SocketCaps`).

    A refused HTTP request gets ``429`` (or ``413``, ``408``) with the refusal's JSON; a
    refused WebSocket handshake is closed with code 4429, a socket over the cap with
    4430. The address is the peer's: behind a proxy, run uvicorn with ``--proxy-headers``
    so that it is the client's."""

    def __init__(
        self,
        app: ASGIApp,
        addresses: AddressLimits,
        sockets: SocketCaps,
        max_body: int = 65536,
        body_seconds: float = 30.0,
    ) -> None:
        self.app = app
        self.addresses = addresses
        self.sockets = sockets
        self.max_body = max_body
        self.body_seconds = body_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        address = client_address(scope)
        path = scope.get("path", "")
        if path.startswith(COUNTED):
            refusal = await self.addresses.refusal(address, scope.get("method"), path)
            if refusal is not None:
                REFUSALS.labels("http" if kind == "http" else "socket_open").inc()
                if kind == "websocket":
                    reason = refusal.reason[:120]
                    await send({"type": "websocket.close", "code": RATE_LIMITED, "reason": reason})
                else:
                    await send_refusal(send, 429, refusal, {"retry-after": "60"})
                return
        if kind == "websocket":
            await self._socket(scope, receive, send, address)
            return
        cap = BodyCap(receive, send, self.max_body, self.body_seconds)
        if cap.declared_too_large(scope.get("headers", [])):
            await cap.too_large()
            return
        await self.app(scope, cap.receive, cap.send)

    async def _socket(self, scope: Scope, receive: Receive, send: Send, address: str) -> None:
        refusal = await self.sockets.admit("address", address)
        if refusal is not None:
            REFUSALS.labels("socket_cap").inc()
            await refuse_socket(receive, send, refusal)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            await self.sockets.release("address", address)


def client_address(scope: Scope) -> str:
    """The peer's address of a connection (``"unknown"`` if the server does not say)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def refuse_socket(receive: Receive, send: Send, reason: str) -> None:
    """Accept a WebSocket and close it at once with :data:`TOO_MANY_SOCKETS` and
    ``reason`` (a refused handshake could not say why)."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": TOO_MANY_SOCKETS, "reason": reason[:120]})
