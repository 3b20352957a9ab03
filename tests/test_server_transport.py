"""How frames reach a table's socket: Starlette's WebSocket on uvicorn's sans-I/O protocol,
a bounded outbox per client drained by a sender task that waits on the server's flow
control, so that a client that does not read is closed instead of growing the server's
memory; malformed text closes its socket quietly; the per-address windows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_testing import LiveServer, create_table, guest_token
from truco.server import ServerConfig
from truco.server.guards.limits import MovingWindow, parse_rate
from truco.server.table.clients import TOO_SLOW, Client
from truco.server.web.serving import WS_MAX_SIZE, uvicorn_options


def test_a_client_whose_outbox_is_full_is_closed_and_holds_no_more() -> None:
    async def main() -> None:
        client = Client(None, outbox_size=4)
        for i in range(10):
            client.send(f"frame {i}")
        # four frames wait; the fifth finds the outbox full: the client is closed, what
        # it did not read is dropped, and its outbox holds only the close its sender writes
        assert client.closed and client.close_reason == TOO_SLOW
        assert client.outbox.qsize() == 1 and client.outbox.get_nowait() is None
        client.send({"type": "pong"})
        assert client.outbox.empty()

    asyncio.run(main())


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        rate_per_second=100_000,
        rate_burst=100_000,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        outbox_size=8,
    )
    with LiveServer(config) as live:
        yield live


def _table(server: LiveServer) -> str:
    token = guest_token(server.url, "Lenta")
    table = create_table(server.url, token, rules={"players": 2})
    return str(table["id"])


def test_a_client_that_does_not_read_is_dropped_not_buffered(server: LiveServer) -> None:
    """A spectator asks for the whole state thousands of times and reads nothing. The
    server's writes wait for it (flow control), its outbox of 8 fills and it is closed
    as too slow: it was delivered a small part of what it asked for, so the rest was
    never held by the server (what was written before the close all arrives)."""
    table_id = _table(server)
    raw = socket.create_connection(("127.0.0.1", server.port))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    ws = connect(
        f"{server.ws_url}/ws/{table_id}", sock=raw, open_timeout=10, max_size=None, max_queue=1,
        legacy=True,
    )  # fmt: skip
    ws.send(json.dumps({"type": "hello"}))
    first = json.loads(ws.recv(timeout=10))
    frame_bytes = len(json.dumps(first))
    asked = 6000
    sync = json.dumps({"type": "sync", "since": 0})
    with contextlib.suppress(ConnectionClosed):  # the server may close before all are sent
        for _ in range(asked):
            ws.send(sync)
    got, size = 0, 0
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            text = ws.recv(timeout=20)
            got += 1
            size += len(text)
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, TOO_SLOW)
    assert got < asked / 2 and size < asked * frame_bytes / 2, (got, size)


def test_a_client_that_reads_gets_every_answer(server: LiveServer) -> None:
    """(The other side of the test above: the same requests, read as they come.)"""
    table_id = _table(server)
    with connect(f"{server.ws_url}/ws/{table_id}", open_timeout=10, max_size=None) as ws:
        ws.send(json.dumps({"type": "hello"}))
        ws.recv(timeout=10)
        for _ in range(200):
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"


def test_serving_options_are_uvicorns_public_ones() -> None:
    """``truco serve`` and the tests serve the same way: websockets' sans-I/O protocol with
    uvicorn's pings and a 64 KiB message cap, h11 with a bounded head."""
    options = uvicorn_options(object(), port=1)
    assert options["ws"] == "websockets-sansio" and options["ws_max_size"] == WS_MAX_SIZE
    assert options["ws_ping_interval"] and options["ws_ping_timeout"]
    assert options["h11_max_incomplete_event_size"] == 65536 and options["port"] == 1


def test_a_message_over_the_cap_closes_with_1009(server: LiveServer) -> None:
    table_id = _table(server)
    with connect(f"{server.ws_url}/ws/{table_id}", open_timeout=10, max_size=None) as ws:
        ws.send(json.dumps({"type": "hello"}))
        ws.recv(timeout=10)
        ws.send("x" * (WS_MAX_SIZE + 1))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_moving_windows_forget_idle_keys() -> None:
    now = [0.0]
    window = MovingWindow(parse_rate("3/second"), clock=lambda: now[0])
    for i in range(100):
        assert window.hit(f"10.0.0.{i}")
    assert len(window.hits) == 100
    now[0] = 5.0
    assert window.hit("10.0.0.200")
    assert list(window.hits) == ["10.0.0.200"]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


#: text messages that are not UTF-8, as the client sends them: one short frame, one long
#: frame, and fragments
BAD_TEXT: list[bytes | list[bytes]] = [b"\xff\xfe", b"ok \xc3" + b"x" * 300, [b"fr", b"ag\xe9"]]


@pytest.mark.parametrize("bad", BAD_TEXT, ids=["short", "long", "fragmented"])
def test_text_that_is_not_utf8_closes_with_1007_and_logs_no_error(
    server: LiveServer, bad: bytes | list[bytes]
) -> None:
    """A client's malformed text is the client's mistake: its connection is closed with
    1007 (RFC 6455's invalid data), and the server's log shows no error or traceback."""
    table_id = _table(server)
    records = _Records()
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "truco.server")]
    for log in loggers:
        log.addHandler(records)
    try:
        with connect(f"{server.ws_url}/ws/{table_id}", open_timeout=10, compression=None) as ws:
            ws.send(json.dumps({"type": "hello"}))
            ws.recv(timeout=10)
            ws.send(["ñ".encode()[:1], "ñ".encode()[1:]], text=True)  # split, but whole
            # (the split "ñ" is a message: the table's refusal, not a broken frame)
            assert json.loads(ws.recv(timeout=10))["code"] == "bad_json"
            ws.send(bad, text=True)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
        time.sleep(0.2)
    finally:
        for log in loggers:
            log.removeHandler(records)
    loud = [r for r in records.records if r.levelno >= logging.WARNING or r.exc_info]
    assert loud == []
