"""The head of an HTTP request (its request line and headers), bounded in size and time.

Uvicorn's httptools protocol takes a head of any size (100 MiB of one header held 100 MiB
of the server's memory) and waits for it for ever (a connection that sends nothing, or
half a head, stays open: slowloris). :class:`HeadGuard` answers ``431`` and closes the
connection once a head passes :data:`MAX_HEAD_BYTES` without ending, and closes one whose
head has not ended :data:`HEAD_SECONDS` after the connection opened or the request began
(``408``). It hooks only the parser's callbacks (``on_message_begin``,
``on_headers_complete``, httptools' protocol interface) and asyncio's protocol methods;
between requests, uvicorn's own keep-alive timeout closes an idle connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

#: the longest head a request may send (request line and headers)
MAX_HEAD_BYTES = 65536
#: how long a head may take to arrive
HEAD_SECONDS = 10.0


def _answer(status: str, detail: str, code: str, params: dict[str, Any]) -> bytes:
    body = json.dumps({"detail": detail, "code": code, "params": params}).encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


TOO_LARGE = _answer(
    "431 Request Header Fields Too Large",
    f"the request's head is too large: at most {MAX_HEAD_BYTES} bytes",
    "head_too_large",
    {"max_bytes": MAX_HEAD_BYTES},
)
TOO_SLOW = _answer(
    "408 Request Timeout",
    f"the request's head took too long: at most {HEAD_SECONDS:g} seconds",
    "head_too_slow",
    {"seconds": HEAD_SECONDS},
)


class HeadGuard(asyncio.Protocol):
    """A mixin for an HTTP protocol whose parser calls ``on_message_begin`` and
    ``on_headers_complete`` (see the module)."""

    _head: int | None = None  # bytes of the head being read; None: not reading one
    _head_timer: asyncio.TimerHandle | None = None
    _guarded: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # (uvloop's transports are not asyncio's classes: what is used here they have)
        self._guarded = cast(asyncio.Transport, transport)
        self._begin_head()

    def data_received(self, data: bytes) -> None:
        if self._head is not None:
            self._head += len(data)
        super().data_received(data)
        if self._head is not None and self._head > MAX_HEAD_BYTES:
            self._refuse(TOO_LARGE)

    def on_message_begin(self) -> None:
        super().on_message_begin()  # type: ignore[misc]
        if self._head is None:
            self._begin_head()

    def on_headers_complete(self) -> None:
        self._end_head()
        super().on_headers_complete()  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        self._end_head()
        super().connection_lost(exc)

    def _begin_head(self) -> None:
        self._head = 0
        if self._head_timer is not None:
            self._head_timer.cancel()
        loop = asyncio.get_running_loop()
        self._head_timer = loop.call_later(HEAD_SECONDS, self._refuse, TOO_SLOW)

    def _end_head(self) -> None:
        self._head = None
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _refuse(self, answer: bytes) -> None:
        self._end_head()
        transport = self._guarded
        if transport is not None and not transport.is_closing():
            transport.write(answer)
            transport.close()
