"""Rate limits: a token bucket per WebSocket connection, and per-address HTTP limits.

The WebSocket bucket is a few lines of arithmetic on the table's own loop; the HTTP
limits use the ``limits`` library (moving windows per address), as a plain ASGI
middleware: ``slowapi`` wraps the same library but needs a ``Request`` argument in every
route, and the limits are the same for all of them.

>>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
>>> bucket.allow(0.0), bucket.allow(0.0), bucket.allow(0.0), bucket.allow(1.0)
(True, True, False, True)
"""

from __future__ import annotations

import json

from limits import RateLimitItem
from starlette.types import ASGIApp, Receive, Scope, Send


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


WRITES = frozenset(
    {
        ("POST", "/api/guest"),
        ("POST", "/api/tables"),
        ("POST", "/api/session/renew"),
        ("POST", "/api/accounts"),
    }
)


class Attempts:
    """Failed attempts (of logging in) per key, in moving windows of the ``limits``
    library: once a key has ``rate`` failures, it is refused until the window moves on.

    >>> attempts = Attempts("2/minute")
    >>> attempts.refused("name:ana"), attempts.failed("name:ana", "addr:1.2.3.4")
    (False, None)
    >>> attempts.failed("name:ana"), attempts.refused("addr:9.9.9.9", "name:ana")
    (None, True)
    """

    def __init__(self, rate: str) -> None:
        from limits.storage import MemoryStorage
        from limits.strategies import MovingWindowRateLimiter

        self.rate, self.rate_text = parse_rate(rate), rate
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def refused(self, *keys: str) -> bool:
        """Whether any of ``keys`` has used up its failures."""
        return any(not self.limiter.test(self.rate, key) for key in keys)

    def failed(self, *keys: str) -> None:
        """Count one failure against each of ``keys``."""
        for key in keys:
            self.limiter.hit(self.rate, key)


class HttpLimits:
    """ASGI middleware: per-address request rates (moving windows of the ``limits``
    library, in memory) on the API and the WebSocket handshakes, a tighter rate on the
    calls that create guests and tables, and a cap on request bodies.

    A refused HTTP request gets ``429`` (or ``413``) with a JSON ``detail``; a refused
    WebSocket handshake is closed with code 4429. The address is the peer's: behind a
    proxy, run uvicorn with ``--proxy-headers`` so that it is the client's."""

    def __init__(self, app: ASGIApp, rate: str, write_rate: str, max_body: int = 65536) -> None:
        from limits.storage import MemoryStorage
        from limits.strategies import MovingWindowRateLimiter

        self.app = app
        self.rate, self.write_rate = parse_rate(rate), parse_rate(write_rate)
        self.rate_text, self.write_text = rate, write_rate
        self.max_body = max_body
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind, path = scope["type"], scope.get("path", "")
        if kind not in ("http", "websocket") or not path.startswith(("/api/", "/ws/")):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "unknown"
        refusal = None
        if not self.limiter.hit(self.rate, "any", address):
            refusal = f"too many requests from your address: at most {self.rate_text}"
        elif (scope.get("method"), path) in WRITES and not self.limiter.hit(
            self.write_rate, "write", address
        ):
            refusal = f"too many guests or tables from your address: at most {self.write_text}"
        if refusal is not None:
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 4429, "reason": refusal[:120]})
            else:
                await _json(send, 429, refusal, {"retry-after": "60"})
            return
        if kind == "http":
            size = dict(scope.get("headers", [])).get(b"content-length")
            if size is not None and (not size.isdigit() or int(size) > self.max_body):
                await _json(send, 413, f"the body is too large: at most {self.max_body} bytes")
                return
        await self.app(scope, receive, send)


async def _json(
    send: Send, status: int, detail: str, headers: dict[str, str] | None = None
) -> None:
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
