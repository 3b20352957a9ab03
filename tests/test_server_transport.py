"""How frames reach a table's socket: written at once to uvicorn's WebSocket protocol
(no task per frame), or through ASGI ``send`` elsewhere; a client that does not read is
closed either way; the per-address windows."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from websockets.exceptions import ConnectionClosedError
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from server_testing import free_port
from truco.server.limits import MovingWindow, parse_rate
from truco.server.rawsocket import RawSocket, UvicornWriter, text_frame_header
from truco.server.table.clients import FRAME_BYTES, TOO_SLOW, Client


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """``app`` served by uvicorn in a thread on a free port (yielded) until the block ends."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        thread.join(30)


def test_uvicorn_connections_take_frames_directly() -> None:
    """Under uvicorn (as ``truco serve`` runs), a table socket's frames skip ASGI ``send``:
    if an uvicorn upgrade changes its protocol, this fails instead of the fast path
    silently turning off."""
    seen: list[object] = []

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] != "websocket":
            return
        socket = RawSocket(scope, receive, send)  # type: ignore[arg-type]
        await socket.accept()
        seen.append(socket.direct)
        assert socket.direct is not None
        assert all(socket.direct.write(text) for text in FRAMES)
        assert socket.direct.buffered() >= 0
        await socket.close(1000, "bye")

    with serving(app) as port:
        # without extensions the writer frames the text itself; with permessage-deflate
        # (the default of this client) the protocol compresses it
        for compression in (None, "deflate"):
            url = f"ws://127.0.0.1:{port}/ws/x"
            with connect(url, open_timeout=10, compression=compression, max_size=None) as ws:
                assert [ws.recv(5) for _ in FRAMES] == FRAMES
    assert len(seen) == 2 and all(isinstance(s, UvicornWriter) for s in seen)


#: frames of every length encoding (7 bits, 16 bits, 64 bits) and multi-byte UTF-8
FRAMES = ["uno", "dos", "", "x" * 125, "ñ" * 63, "y" * 126, "z" * 65535, "é" * 40000]


def test_text_frame_headers_are_rfc_6455s() -> None:
    for n in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        data = b"a" * n
        assert text_frame_header(n) + data == Frame(Opcode.TEXT, data).serialize(mask=False)


class Unread:
    """A direct socket whose client reads nothing: every frame stays buffered."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    def write(self, text: str) -> bool:
        self.frames.append(text)
        return True

    def write_bytes(self, data: bytes) -> bool:
        return self.write(data.decode())

    def buffered(self) -> int:
        return sum(len(f) for f in self.frames)


def test_a_direct_client_that_does_not_read_is_closed() -> None:
    async def main() -> None:
        socket = Unread()
        client = Client(None, outbox_size=4, direct=socket)
        frame = "x" * FRAME_BYTES
        for _ in range(10):
            client.send(frame)
        # a frame is written while at most four frames of bytes wait unread; then it is closed
        assert len(socket.frames) == 5 and client.closed and client.close_reason == TOO_SLOW
        assert client.outbox.get_nowait() is None  # its sender closes the socket
        client.send({"type": "pong"})
        assert len(socket.frames) == 5

    asyncio.run(main())


def test_moving_windows_forget_idle_keys() -> None:
    now = [0.0]
    window = MovingWindow(parse_rate("3/second"), clock=lambda: now[0])
    for i in range(100):
        assert window.hit(f"10.0.0.{i}")
    assert len(window.hits) == 100
    now[0] = 5.0
    assert window.hit("10.0.0.200")
    assert list(window.hits) == ["10.0.0.200"]


def test_uvicorn_connections_hand_frames_over_directly() -> None:
    """Frames read while the handler waits on ``receive`` are queued as ASGI messages; once
    it reads directly, each goes to its callback at once, in order, and ``receive``
    returns only the disconnect."""
    got: list[str] = []
    done: list[object] = []

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] != "websocket":
            return
        socket = RawSocket(scope, receive, send)  # type: ignore[arg-type]
        await socket.accept()
        first = await socket.receive()  # read the usual way
        got.append(first["text"])
        assert socket.read_directly(lambda m: got.append(m["text"]))
        assert socket.direct is not None and socket.direct.write("ready")
        done.append(await socket.receive())

    with serving(app) as port:
        with connect(f"ws://127.0.0.1:{port}/ws/x", open_timeout=10, compression=None) as ws:
            ws.send("0")
            assert ws.recv(5) == "ready"
            for i in range(1, 50):
                ws.send(str(i))
            # what the short-frame reader leaves to the protocol's parser, in between
            ws.send("l" * 200)  # a 16-bit length
            ws.ping()
            ws.send(["frag", "ment"])  # a fragmented message
            ws.send("ñandú")
            ws.send("x" * 125)
            ws.send("last")
        deadline = time.monotonic() + 10
        while not done and time.monotonic() < deadline:
            time.sleep(0.01)
    assert got == [str(i) for i in range(50)] + ["l" * 200, "fragment", "ñandú", "x" * 125, "last"]
    assert len(done) == 1 and done[0]["type"] == "websocket.disconnect"  # type: ignore[index]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


#: text messages that are not UTF-8, as the client sends them: one short frame (the
#: short-frame reader's), one long frame, and fragments (uvicorn's parser's)
BAD_TEXT: list[bytes | list[bytes]] = [b"\xff\xfe", b"ok \xc3" + b"x" * 300, [b"fr", b"ag\xe9"]]


@pytest.mark.parametrize("directly", [False, True], ids=["receive", "read_directly"])
@pytest.mark.parametrize("bad", BAD_TEXT, ids=["short", "long", "fragmented"])
def test_text_that_is_not_utf8_closes_with_1007_and_logs_no_error(
    bad: bytes | list[bytes], directly: bool
) -> None:
    """A client's malformed text is the client's mistake: its connection is closed with
    1007 (RFC 6455's invalid data), the handler hears the disconnect, and the server's
    log shows no error or traceback (uvicorn's own protocol logs one)."""
    got: list[str] = []
    ended: list[Any] = []

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        if scope["type"] != "websocket":
            return
        socket = RawSocket(scope, receive, send)  # type: ignore[arg-type]
        await socket.accept()
        if directly:
            assert socket.read_directly(lambda m: got.append(m["text"]))
            assert socket.direct is not None and socket.direct.write("ready")
        ended.append(await socket.receive())  # the bad text is never a message

    records = _Records()
    with serving(app) as port:
        uvicorn_log = logging.getLogger("uvicorn.error")
        uvicorn_log.addHandler(records)
        try:
            with connect(f"ws://127.0.0.1:{port}/ws/x", open_timeout=10, compression=None) as ws:
                if directly:
                    assert ws.recv(5) == "ready"
                    ws.send(["ñ".encode()[:1], "ñ".encode()[1:]], text=True)  # split, whole
                ws.send(bad, text=True)
                with pytest.raises(ConnectionClosedError) as closed:
                    while True:
                        ws.recv(5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
            deadline = time.monotonic() + 10
            while not ended and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            uvicorn_log.removeHandler(records)
    assert got == (["ñ"] if directly else [])
    assert ended and ended[0]["type"] == "websocket.disconnect" and ended[0]["code"] == 1007
    loud = [r for r in records.records if r.levelno >= logging.WARNING or r.exc_info]
    assert loud == []
