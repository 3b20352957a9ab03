"""A WebSocket over plain ASGI: what the table's socket needs of a connection, no more.

The table socket is the server's busiest path (every action is a frame in and a frame out
per seat), so it skips Starlette's ``WebSocket`` object and FastAPI's middleware and
routing (see :class:`truco.server.app.Site`). When the connection is served by uvicorn's
sans-I/O WebSocket protocol (uvicorn's default when ``websockets`` is installed), frames
are written to it at once, from the caller's own step (:class:`UvicornWriter`): no task
wakes up and no ASGI ``send`` coroutine runs per frame. Any other server (Starlette's
test client, another ASGI server) gets the same frames through ``send``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from starlette.datastructures import Headers, QueryParams
from starlette.requests import cookie_parser
from starlette.types import Receive, Scope, Send
from websockets.exceptions import InvalidState
from websockets.protocol import OPEN

try:  # the C unmasking of websockets, else its Python one
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    _SANSIO: type | None = WebSocketsSansIOProtocol
except ImportError:  # an uvicorn without it: frames go through ``send``
    _SANSIO = None


class DirectWriter(Protocol):
    """Writes a connection's text frames now, without awaiting anything."""

    def write(self, text: str) -> bool:
        """Write one text frame; ``False`` if the connection is closing (nothing written)."""

    def write_bytes(self, data: bytes) -> bool:
        """:meth:`write` of a text frame's UTF-8 bytes (valid UTF-8: the caller's word)."""

    def buffered(self) -> int:
        """Bytes written that the network has not taken yet (a client not reading)."""


class RawSocket:
    """One WebSocket connection of an ASGI server, for a handler that accepts it,
    reads ASGI messages, writes text frames and closes it with a code."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.scope = scope
        self._receive = receive
        self._send = send
        self.headers = Headers(scope=scope)
        self.query_params = QueryParams(scope.get("query_string", b""))
        #: the client has gone (its disconnect was read), or our close was sent
        self.gone = False
        self.closed = False
        self.direct: DirectWriter | None = None

    @property
    def cookies(self) -> Mapping[str, str]:
        return cookie_parser(self.headers.get("cookie", ""))

    async def accept(self) -> None:
        """Complete the handshake (reading the server's ``websocket.connect`` first)."""
        message = await self._receive()
        if message["type"] != "websocket.connect":
            self.gone = True
            return
        await self._send({"type": "websocket.accept"})
        self.direct = UvicornWriter.of(self._send)

    async def receive(self) -> Mapping[str, Any]:
        """The next ASGI message: ``websocket.receive`` (``text`` or ``bytes``) or
        ``websocket.disconnect`` (after which nothing more comes)."""
        if self.gone:
            return {"type": "websocket.disconnect", "code": 1006}
        message = await self._receive()
        if message["type"] == "websocket.disconnect":
            self.gone = True
            if isinstance(self.direct, UvicornWriter):
                self.direct.release()
        return message

    def read_directly(self, on_receive: Callable[[Mapping[str, Any]], None]) -> bool:
        """From now on, hand each ``websocket.receive`` message to ``on_receive`` as the
        server parses it (in its ``data_received``: no task wakes up, reading is never
        paused and resumed per message); :meth:`receive` then only returns the
        disconnect. Only under uvicorn's sans-I/O protocol, and only once every message
        read so far was received (so none is taken out of turn); False otherwise."""
        direct = self.direct
        if not isinstance(direct, UvicornWriter) or self.gone:
            return False
        return direct.tap(on_receive)

    async def send_text(self, text: str) -> None:
        """Write one text frame (an ``OSError`` if the client has gone)."""
        if self.closed:
            return
        await self._send({"type": "websocket.send", "text": text})

    async def close(self, code: int, reason: str) -> None:
        """Send the close frame, unless the client has gone or it was sent already."""
        if self.gone or self.closed:
            return
        self.closed = True
        await self._send({"type": "websocket.close", "code": code, "reason": reason})


def text_frame_header(length: int) -> bytes:
    """The header of an unmasked, final text frame of ``length`` bytes (RFC 6455, 5.2): a
    server's frames are never masked."""
    if length < 126:
        return bytes((0x81, length))
    if length < 65536:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")


class UvicornWriter:
    """Direct writes to a connection of uvicorn's sans-I/O WebSocket protocol: the
    protocol's own ``websockets`` connection frames the text (compressed if the client
    asked for it), and its transport takes the bytes, as the protocol's ``send`` does."""

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.conn = protocol.conn
        self.transport = protocol.transport
        if callable(getattr(protocol, "handle_parser_exception", None)):
            protocol.send_receive_event_to_app = _Utf8Check(protocol)

    @classmethod
    def of(cls, send: Send) -> UvicornWriter | None:
        """The writer of the connection whose ASGI ``send`` is ``send``, if uvicorn's
        sans-I/O protocol serves it (its ``send`` is then the protocol's bound method)."""
        protocol = getattr(send, "__self__", None)
        if (
            _SANSIO is None
            or not isinstance(protocol, _SANSIO)
            or not all(
                hasattr(protocol, name)
                for name in ("conn", "transport", "close_sent", "disconnected", "read_paused")
            )
            or not all(
                hasattr(protocol, name)
                for name in ("frames", "curr_msg_data_type", "send_receive_event_to_app")
            )
            or not all(
                hasattr(getattr(protocol, "conn", None), name)
                for name in ("state", "extensions", "writes", "expect_continuation_frame")
            )
        ):
            return None
        return cls(protocol)

    def write(self, text: str) -> bool:
        return self.write_bytes(text.encode())

    def write_bytes(self, data: bytes) -> bool:
        protocol = self.protocol
        transport = self.transport
        if protocol.close_sent or protocol.disconnected or transport.is_closing():
            return False
        conn = self.conn
        if conn.state is OPEN and not (conn.extensions or conn.writes):
            # no extension (no permessage-deflate), nothing of the protocol's own waiting:
            # the frame is a header and the text, written at once (what ``send_text``
            # then ``data_to_send`` would write, without building a Frame per message)
            transport.write(text_frame_header(len(data)) + data)
            return True
        if conn.expect_continuation_frame:
            return False  # never, since nothing here sends fragments
        try:
            conn.send_text(data)
        except InvalidState:
            return False
        transport.write(b"".join(conn.data_to_send()))
        return True

    def buffered(self) -> int:
        size: int = self.transport.get_write_buffer_size()
        return size

    def release(self) -> None:
        """The connection is over: what :meth:`tap` and ``__init__`` set on the protocol is
        taken off it, so that the protocol, and the table's client its readers call, are
        freed by reference counts and not left as cyclic garbage (which a server that
        freezes its survivors keeps until a thaw: truco.server.pauses)."""
        attributes = vars(self.protocol)
        for name in ("data_received", "send_receive_event_to_app"):
            attributes.pop(name, None)
        queue = attributes.get("queue")
        if isinstance(queue, _Tap):
            queue.on_receive, queue.protocol = _ignore, None

    def tap(self, on_receive: Callable[[Mapping[str, Any]], None]) -> bool:
        """See :meth:`RawSocket.read_directly`."""
        protocol = self.protocol
        queue = getattr(protocol, "queue", None)
        if type(queue) is not asyncio.Queue or not queue.empty() or protocol.read_paused:
            return False
        protocol.queue = _Tap(protocol, on_receive)
        reader = getattr(protocol.conn, "reader", None)
        if isinstance(getattr(reader, "buffer", None), bytearray):
            fast = _FastFrames(protocol, reader, on_receive)
            protocol.data_received = fast.data_received
            self.transport.set_protocol(protocol)  # the event loop reads the method again
        return True


def _ignore(message: Mapping[str, Any]) -> None:
    """(What a released connection's reader does with a message: nothing.)"""


class _FastFrames:
    """Reads the frames a player sends (short, unfragmented, masked text frames) without
    the ``websockets`` parser; whatever else comes (a control frame, a long or fragmented
    message, a partial frame, a compressed one) goes to uvicorn's own ``data_received``
    from there on, and so does everything while that parser is inside a frame."""

    def __init__(
        self, protocol: Any, reader: Any, on_receive: Callable[[Mapping[str, Any]], None]
    ) -> None:
        self.protocol = protocol
        self.conn = protocol.conn
        self.reader = reader
        self.on_receive = on_receive
        self.slow = type(protocol).data_received.__get__(protocol)

    def data_received(self, data: bytes) -> None:
        protocol, conn = self.protocol, self.conn
        if (
            self.reader.buffer
            or protocol.close_sent
            or conn.state is not OPEN
            or conn.extensions
            or conn.expect_continuation_frame
        ):
            self.slow(data)
            return
        at, size = 0, len(data)
        while at + 6 <= size and not protocol.close_sent:
            length = data[at + 1] ^ 0x80  # masked, as a client's frames must be
            if data[at] != 0x81 or length > 125:  # not final text; long or unmasked
                break
            end = at + 6 + length
            if end > size:
                break
            try:
                text = apply_mask(data[at + 6 : end], data[at + 2 : at + 6]).decode()
            except UnicodeDecodeError:
                _refuse_bad_text(protocol)
                return
            at = end
            self.on_receive({"type": "websocket.receive", "text": text})
        if at < size:
            self.slow(data[at:] if at else data)


#: the close a text message that is not UTF-8 gets (RFC 6455, 7.4.1: 1007, invalid data)
BAD_TEXT = 1007


def _refuse_bad_text(protocol: Any) -> None:
    """Close the connection with 1007: a client sent text that is not UTF-8. A client's
    mistake, not the server's: said in the close, not logged as an error (uvicorn's
    protocol logs it with a traceback)."""
    protocol.frames = []
    if protocol.close_sent or protocol.conn.state is not OPEN:
        return
    protocol.conn.send_close(BAD_TEXT, "text frames must be UTF-8")
    protocol.handle_parser_exception()  # the app hears the disconnect; the close is written


class _Utf8Check:
    """Uvicorn's ``send_receive_event_to_app`` (called once a message is whole, by its
    own parser) but for a text message that is not UTF-8, which closes the connection
    with 1007 without logging a traceback."""

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.original = type(protocol).send_receive_event_to_app.__get__(protocol)

    def __call__(self) -> None:
        protocol = self.protocol
        if protocol.curr_msg_data_type == "text" and not protocol.close_sent:
            frames = protocol.frames
            try:
                (frames[0] if len(frames) == 1 else b"".join(frames)).decode()
            except UnicodeDecodeError:
                _refuse_bad_text(protocol)
                return
        self.original()


class _Tap(asyncio.Queue[Any]):
    """An uvicorn connection's queue of ASGI messages whose ``websocket.receive``
    messages go to ``on_receive`` at once; the others (the disconnect) are queued."""

    def __init__(self, protocol: Any, on_receive: Callable[[Mapping[str, Any]], None]) -> None:
        super().__init__()
        self.protocol = protocol
        self.on_receive = on_receive
        # uvicorn pauses reading after queueing a message unless it is paused already,
        # and resumes once its queue is read: nothing waits in this queue, so it is
        # marked paused for good (and reading never stops)
        protocol.read_paused = True

    def put_nowait(self, item: Any) -> None:
        if item["type"] == "websocket.receive":
            self.on_receive(item)
        else:
            super().put_nowait(item)
