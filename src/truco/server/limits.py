"""Rate limits: a token bucket per WebSocket connection, and per-address HTTP limits.

The WebSocket bucket is a few lines of arithmetic on the table's own loop; the HTTP
limits are moving windows per address (:class:`MovingWindow`, the rates written in the
``limits`` library's notation), as a plain ASGI middleware. The ``limits`` library's own
in-memory storage is not used: it starts a timer thread every few hits to expire them,
which cost the server's loop more than the counting itself.

>>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
>>> bucket.allow(0.0), bucket.allow(0.0), bucket.allow(0.0), bucket.allow(1.0)
(True, True, False, True)
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable

from limits import RateLimitItem
from starlette.types import ASGIApp, Receive, Scope, Send

from .metrics import REFUSALS


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
    }
)


class Attempts:
    """Failed attempts (of logging in) per key, in moving windows: once a key has
    ``rate`` failures, it is refused until the window moves on.

    >>> attempts = Attempts("2/minute")
    >>> attempts.refused("name:ana"), attempts.failed("name:ana", "addr:1.2.3.4")
    (False, None)
    >>> attempts.failed("name:ana"), attempts.refused("addr:9.9.9.9", "name:ana")
    (None, True)
    """

    def __init__(self, rate: str) -> None:
        self.rate, self.rate_text = parse_rate(rate), rate
        self.window = MovingWindow(self.rate)

    def refused(self, *keys: str) -> bool:
        """Whether any of ``keys`` has used up its failures."""
        return any(not self.window.test(key) for key in keys)

    def failed(self, *keys: str) -> None:
        """Count one failure against each of ``keys``."""
        for key in keys:
            self.window.hit(key)


class AddressLimits:
    """The per-address windows: every request, and the calls that create guests and
    tables (:data:`WRITES`), which have a tighter rate of their own."""

    def __init__(self, rate: str, write_rate: str) -> None:
        self.rate_text, self.write_text = rate, write_rate
        self.requests = MovingWindow(parse_rate(rate))
        self.writes = MovingWindow(parse_rate(write_rate))

    def refusal(self, address: str, method: str | None, path: str) -> str | None:
        """Count one request of ``address``; why it is refused, or ``None``."""
        if not self.requests.hit(address):
            return f"too many requests from your address: at most {self.rate_text}"
        if (method, path) in WRITES and not self.writes.hit(address):
            return f"too many guests or tables from your address: at most {self.write_text}"
        return None


class HttpLimits:
    """ASGI middleware: per-address request rates (moving windows, in memory) on the
    API and the WebSocket handshakes, a tighter rate on the calls that create guests
    and tables, and a cap on request bodies.

    A refused HTTP request gets ``429`` (or ``413``) with a JSON ``detail``; a refused
    WebSocket handshake is closed with code 4429. The address is the peer's: behind a
    proxy, run uvicorn with ``--proxy-headers`` so that it is the client's."""

    def __init__(self, app: ASGIApp, addresses: AddressLimits, max_body: int = 65536) -> None:
        self.app = app
        self.addresses = addresses
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind, path = scope["type"], scope.get("path", "")
        if kind not in ("http", "websocket") or not path.startswith(("/api/", "/ws/")):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "unknown"
        refusal = self.addresses.refusal(address, scope.get("method"), path)
        if refusal is not None:
            REFUSALS.labels("http" if kind == "http" else "socket_open").inc()
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 4429, "reason": refusal[:120]})
            else:
                await send_refusal(send, 429, refusal, {"retry-after": "60"})
            return
        if kind == "http":
            size = dict(scope.get("headers", [])).get(b"content-length")
            if size is not None and (not size.isdigit() or int(size) > self.max_body):
                await send_refusal(
                    send, 413, f"the body is too large: at most {self.max_body} bytes"
                )
                return
        await self.app(scope, receive, send)


async def send_refusal(
    send: Send, status: int, detail: str, headers: dict[str, str] | None = None
) -> None:
    """Answer a plain ASGI request with ``status`` and ``{"detail": detail}`` (a refusal
    made before any route runs)."""
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
