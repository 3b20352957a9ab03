"""The head of a connection's first HTTP request (its request line and headers), bounded
in size and time, on asyncio's public protocol interface.

An HTTP server that takes a head of any size, or waits for it for ever, lets one client
hold memory or a connection for nothing (100 MiB of one header; slowloris: a connection
that sends nothing, or half a head). :class:`HeadGuard` stands in front of uvicorn's HTTP
protocol as the protocol the event loop calls (uvicorn's ``http`` option takes a protocol
class): it hands every byte on unchanged, answers ``431`` and closes the connection once
the first head passes :data:`MAX_HEAD_BYTES` without ending (a blank line), and closes a
connection whose first head has not ended :data:`HEAD_SECONDS` after it opened (``408``).
The heads of later requests on a kept-alive connection are bounded in size by h11
(``h11_max_incomplete_event_size``, :func:`truco.server.web.serving.uvicorn_options`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, cast

#: the longest head a request may send (request line and headers)
MAX_HEAD_BYTES = 65536
#: how long a connection's first head may take to arrive
HEAD_SECONDS = 10.0
#: what ends a head
_END = b"\r\n\r\n"


def _answer(status: str, detail: str, code: str, params: dict[str, Any]) -> bytes:
    body = json.dumps({"detail": detail, "code": code, "params": params}).encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


def too_large() -> bytes:
    return _answer(
        "431 Request Header Fields Too Large",
        f"the request's head is too large: at most {MAX_HEAD_BYTES} bytes",
        "head_too_large",
        {"max_bytes": MAX_HEAD_BYTES},
    )


def too_slow() -> bytes:
    return _answer(
        "408 Request Timeout",
        f"the request's head took too long: at most {HEAD_SECONDS:g} seconds",
        "head_too_slow",
        {"seconds": HEAD_SECONDS},
    )


class HeadGuard(asyncio.Protocol):
    """The protocol of one connection: ``inner``'s (uvicorn's HTTP protocol), behind the
    guard of its first head (see the module)."""

    def __init__(self, inner: asyncio.Protocol) -> None:
        self.inner = inner
        self._transport: asyncio.Transport | None = None
        self._head: int | None = 0  # bytes of the first head so far; None: it has ended
        self._tail = b""  # the last bytes read of it (an end split between two reads)
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio's classes: what is used here they have)
        self._transport = cast(asyncio.Transport, transport)
        self._timer = asyncio.get_running_loop().call_later(HEAD_SECONDS, self._too_slow)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._head is not None:
            seen = self._tail + data
            if _END in seen:
                self._ended()
            else:
                self._head += len(data)
                if self._head > MAX_HEAD_BYTES:
                    self._refuse(too_large())
                    return
                self._tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def _ended(self) -> None:
        self._head = None
        self._tail = b""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        self._refuse(too_slow())

    def _refuse(self, answer: bytes) -> None:
        self._ended()
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.write(answer)
            transport.close()


def guarded(protocol: Callable[..., asyncio.Protocol]) -> type[asyncio.Protocol]:
    """A protocol class for uvicorn's ``http`` option: ``protocol`` (made with the
    arguments uvicorn gives, whatever they are) behind a :class:`HeadGuard`."""

    class Guarded(HeadGuard):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(protocol(*args, **kwargs))

    return Guarded
