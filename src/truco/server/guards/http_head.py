"""The heads of a connection's HTTP requests (request line and headers), bounded in size
and time, on asyncio's public protocol interface.

An HTTP server that takes a head of any size, or waits for it for ever, lets one client
hold memory or a connection for nothing (100 MiB of one header; slowloris: a connection
that sends nothing, half a head, or, once its first request is answered, the next head a
byte at a time). :class:`HeadGuard` stands in front of uvicorn's HTTP protocol as the
protocol the event loop calls (uvicorn's ``http`` option takes a protocol class): it hands
every byte on unchanged, and follows the requests on h11 (the parser uvicorn's protocol
runs on, read through its public API) to know where each head starts and ends. It answers
``431`` and closes the connection once a head passes :data:`MAX_HEAD_BYTES` without
ending, and ``408`` once a head has not ended :data:`HEAD_SECONDS` after it began: the
first at the connection's opening, each next one at its first byte (an idle kept-alive
connection is uvicorn's to close). A socket's handshake hands the connection to the
WebSocket protocol, and the guard with it sees nothing more.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, cast

import h11

#: the longest head a request may send (request line and headers)
MAX_HEAD_BYTES = 65536
#: how long a head may take to arrive (the first from the connection's opening)
HEAD_SECONDS = 10.0


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
    guard of its heads (see the module)."""

    def __init__(self, inner: asyncio.Protocol) -> None:
        self.inner = inner
        self._transport: asyncio.Transport | None = None
        #: the request being read, as h11 sees it (None: no longer followed)
        self._request: h11.Connection | None = _new_request()
        self._head: int | None = 0  # bytes of the head being read; None: between heads
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio's classes: what is used here they have)
        self._transport = cast(asyncio.Transport, transport)
        self._start_timer()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._request is not None and not self._follow(data):
            return
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        self._request = None
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def _follow(self, data: bytes) -> bool:
        """Read ``data`` into the request being followed; False once it is refused."""
        request = self._request
        assert request is not None
        if self._head is None and request.their_state is h11.IDLE:
            self._head = 0  # the first byte of the next head
            self._start_timer()
        if self._head is not None:
            self._head += len(data)
        request.receive_data(data)
        while True:
            try:
                event = request.next_event()
            except h11.RemoteProtocolError:
                if self._head is not None and self._head > MAX_HEAD_BYTES:
                    break  # refused below
                # uvicorn's own parser answers it (400); nothing more to follow
                self._head, self._request = None, None
                self._stop_timer()
                return True
            if event is h11.NEED_DATA:
                break
            if isinstance(event, h11.Request):
                self._head = None
                self._stop_timer()
            elif isinstance(event, h11.EndOfMessage):
                # the next request starts with what is left of this read
                left = request.trailing_data[0]
                request = self._request = _new_request()
                if left:
                    self._head = len(left)
                    self._start_timer()
                    request.receive_data(left)
            elif event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                self._request = None  # a switch of protocol, or the end: nothing to follow
                break
        if self._head is not None and self._head > MAX_HEAD_BYTES:
            self._refuse(too_large())
            return False
        return True

    def _start_timer(self) -> None:
        self._stop_timer()
        self._timer = asyncio.get_running_loop().call_later(HEAD_SECONDS, self._too_slow)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        self._refuse(too_slow())

    def _refuse(self, answer: bytes) -> None:
        self._stop_timer()
        self._head, self._request = None, None
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.write(answer)
            transport.close()


def _new_request() -> h11.Connection:
    # a head past the cap is refused here before h11's own limit is reached
    return h11.Connection(h11.SERVER, max_incomplete_event_size=2 * MAX_HEAD_BYTES)


def guarded(protocol: Callable[..., asyncio.Protocol]) -> type[asyncio.Protocol]:
    """A protocol class for uvicorn's ``http`` option: ``protocol`` (made with the
    arguments uvicorn gives, whatever they are) behind a :class:`HeadGuard`."""

    class Guarded(HeadGuard):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(protocol(*args, **kwargs))

    return Guarded
