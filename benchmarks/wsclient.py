"""A lean WebSocket client (RFC 6455) on a plain :class:`asyncio.Protocol`: what a load
generator needs of thousands of sockets at once, and no more.

It speaks the real protocol over TCP: the opening handshake (``Sec-WebSocket-Key`` and the
server's ``Sec-WebSocket-Accept`` checked), every frame it sends masked with a fresh random
key, the server's frames unmasked, fragmented messages joined, pings answered, the closing
handshake. What it leaves out is what a load generator does not use: extensions
(compression), subprotocols, TLS, proxies.

It costs little per message because nothing waits: each message the server sends is handed
to ``on_message`` from ``data_received`` itself (no task, no future, no queue), and a send is
one ``transport.write``. Under uvloop (``uvloop.run``) the sockets are read by libuv.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


class HandshakeError(OSError):
    """The server did not upgrade the connection (or answered with a wrong accept key)."""


_entropy = b""  # random bytes from the OS, drawn 4 at a time (one getrandom per 1024 frames)
_used = 0


def mask_key() -> bytes:
    """A fresh masking key: 4 bytes from the operating system's random source."""
    global _entropy, _used
    if _used >= len(_entropy):
        _entropy, _used = os.urandom(4096), 0
    _used += 4
    return _entropy[_used - 4 : _used]


def frame(opcode: int, payload: bytes) -> bytes:
    """One final client frame: masked with a random key, as RFC 6455 (5.3) asks."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    key = mask_key()
    if not n:
        return head + key
    # XOR with the key repeated over the payload, as one big integer (C speed, no loop)
    keys = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "little") ^ int.from_bytes(keys, "little")).to_bytes(
        n, "little"
    )
    return head + key + masked


def accept_key(key: bytes) -> bytes:
    return base64.b64encode(hashlib.sha1(key + GUID).digest())


class WebSocketClient(asyncio.Protocol):
    """One client connection. ``on_message(payload)`` gets each whole text or binary message
    (bytes); ``on_close()`` is called once, when an
    opened connection is gone (whoever closed it); a failed handshake raises in ``connect``."""

    def __init__(
        self,
        host: str,
        path: str,
        on_message: Callable[[bytes], None],
        on_close: Callable[[], None],
    ) -> None:
        self.host = host
        self.path = path
        self.on_message = on_message
        self.on_close = on_close
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.open = False
        self.closing = False
        self._key = base64.b64encode(os.urandom(16))
        self._rest = b""  # bytes received that do not make a whole frame yet
        self._parts: list[bytes] = []  # a fragmented message so far
        self._opcode = 0
        self._handshaken = False
        self.close_code: int | None = None  # the server's closing frame's (None: none came)
        self.close_reason = ""

    # ------------------------------------------------------------ asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not subclasses of asyncio.Transport, but are ones)
        self.transport = transport = cast(asyncio.Transport, transport)
        transport.write(
            b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
            % (self.path.encode(), self.host.encode(), self._key)
        )

    def data_received(self, data: bytes) -> None:
        if self._rest:
            data = self._rest + data
            self._rest = b""
        if not self.open:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                self._rest = data
                return
            self._upgraded(data[:end])
            if not self.open:
                return
            data = data[end + 4 :]
        self._frames(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        self.closing = True
        if not self.opened.done():  # (``connect`` raises it: no ``on_close``)
            self.opened.set_exception(exc or ConnectionResetError("closed during the handshake"))
        if self._handshaken:
            self.on_close()

    # ------------------------------------------------------------ sending
    def send(self, payload: bytes) -> bool:
        """Send one text message (UTF-8 bytes); False if the connection is closing."""
        if not self.open or self.closing or self.transport is None:
            return False
        self.transport.write(frame(TEXT, payload))
        return True

    def close(self, code: int = 1000) -> None:
        """Start the closing handshake (the server answers it and closes the TCP connection);
        ``abort`` after a while if it does not."""
        if self.transport is None or self.transport.is_closing():
            return
        if self.open and not self.closing:
            self.closing = True
            self.transport.write(frame(CLOSE, code.to_bytes(2, "big")))
            asyncio.get_running_loop().call_later(5, self.abort)
        else:
            self.abort()

    def abort(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.abort()

    # ------------------------------------------------------------ reading
    def _upgraded(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        status = lines[0].split(b" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if len(status) < 2 or status[1] != b"101":
            self._fail(HandshakeError(f"no upgrade: {lines[0].decode(errors='replace')}"))
        elif headers.get(b"sec-websocket-accept") != accept_key(self._key):
            self._fail(HandshakeError("wrong Sec-WebSocket-Accept"))
        else:
            self.open = self._handshaken = True
            if not self.opened.done():
                self.opened.set_result(None)

    def _fail(self, error: Exception) -> None:
        if not self.opened.done():
            self.opened.set_exception(error)
        self.abort()

    def _frames(self, data: bytes) -> None:
        at, size = 0, len(data)
        while size - at >= 2:
            b0, b1 = data[at], data[at + 1]
            n = b1 & 0x7F
            start = at + 2
            if n == 126:
                if size - at < 4:
                    break
                n = int.from_bytes(data[at + 2 : at + 4], "big")
                start = at + 4
            elif n == 127:
                if size - at < 10:
                    break
                n = int.from_bytes(data[at + 2 : at + 10], "big")
                start = at + 10
            if b1 & 0x80:  # a server must not mask (RFC 6455 5.1)
                self._fail(HandshakeError("masked frame from the server"))
                return
            end = start + n
            if end > size:
                break
            self._frame(b0, data[start:end])
            at = end
            if self.transport is None or self.transport.is_closing():
                return
        if at < size:
            self._rest = data[at:]

    def _frame(self, b0: int, payload: bytes) -> None:
        opcode = b0 & 0x0F
        if opcode in (TEXT, BINARY):
            if b0 & 0x80:
                if not self.closing:
                    self.on_message(payload)
            else:
                self._opcode, self._parts = opcode, [bytes(payload)]
        elif opcode == CONTINUATION:
            self._parts.append(bytes(payload))
            if b0 & 0x80:
                whole, self._parts = b"".join(self._parts), []
                if not self.closing:
                    self.on_message(whole)
        elif opcode == PING:
            if self.transport is not None and not self.closing:
                self.transport.write(frame(PONG, bytes(payload)))
        elif opcode == CLOSE:
            if len(payload) >= 2:
                self.close_code = int.from_bytes(payload[:2], "big")
                self.close_reason = payload[2:].decode(errors="replace")
            if not self.closing and self.transport is not None:  # the server's: answer it
                self.closing = True
                self.transport.write(frame(CLOSE, bytes(payload[:2])))
            # the server closes the TCP connection after the handshake; do not wait for it
            if self.transport is not None:
                asyncio.get_running_loop().call_later(1, self.abort)


async def connect(
    url: str,
    on_message: Callable[[bytes], None],
    on_close: Callable[[], None],
    open_timeout: float = 20,
) -> WebSocketClient:
    """Open a WebSocket to ``ws://host:port/path`` (handshake done) or raise OSError
    (refused, reset, no upgrade) or TimeoutError."""
    parts = urlsplit(url)
    if parts.scheme != "ws" or parts.hostname is None:
        raise ValueError(f"only ws:// URLs: {url}")
    port = parts.port or 80
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    loop = asyncio.get_running_loop()
    host = parts.netloc
    async with asyncio.timeout(open_timeout):
        _, client = await loop.create_connection(
            lambda: WebSocketClient(host, path or "/", on_message, on_close),
            parts.hostname,
            port,
        )
        try:
            await client.opened
        except BaseException:
            client.abort()
            raise
    return client
