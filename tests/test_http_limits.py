"""The per-address and per-request limits over a live server, tried as an attacker would:
a chunked body that never ends, a body trickled byte by byte, page lookups in a loop,
and more sockets than one address or one player may hold."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from server_testing import LiveServer, create_table, guest_token
from truco.server import ServerConfig
from truco.server.guards import http_head
from truco.server.guards.socket_caps import TOO_MANY_SOCKETS

CAP = 65536


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        body_seconds=1.5,
        max_sockets_per_address=12,
        max_sockets_per_player=3,
    )
    with LiveServer(config) as live:
        yield live


def raw_request(server: LiveServer, head: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(head.encode())
    return sock


def status_and_body(sock: socket.socket) -> tuple[int, bytes]:
    """The response's status and everything after its head (until the server closes)."""
    data = b""
    sock.settimeout(10)
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    assert data, "no answer before the server closed (or 10 s passed)"
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


CHUNKED_GUEST = (
    "POST /api/guest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    "Transfer-Encoding: chunked\r\n\r\n"
)


# ------------------------------------------------------------------ bodies
def test_a_chunked_body_past_the_cap_gets_413_and_the_server_stops_reading(
    server: LiveServer,
) -> None:
    """200 MiB offered in chunks: the server answers 413 once 64 KiB are past and closes
    the connection; it takes only what the sockets' buffers hold, not the rest."""
    sock = raw_request(server, CHUNKED_GUEST + '6\r\n{"name\r\n')
    chunk = b"%x\r\n%s\r\n" % (65536, b"a" * 65536)
    offered, sent = 200 * 2**20, 0
    sock.settimeout(5)
    try:
        while sent < offered:
            sock.sendall(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass
    status, body = status_and_body(sock)
    sock.close()
    assert status == 413, body
    assert b'"code": "body_too_large"' in body and b'"max_bytes": 65536' in body
    # what the kernel's buffers on both sides took before the close, at most some MiB
    print(f"sent {sent} bytes before the close")
    assert sent < 32 * 2**20, f"the server read {sent} bytes"


def test_a_declared_length_past_the_cap_is_refused_before_its_body(server: LiveServer) -> None:
    sock = raw_request(
        server,
        "POST /api/guest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {200 * 2**20}\r\n\r\n",
    )
    status, body = status_and_body(sock)  # no byte of the body was sent
    sock.close()
    assert status == 413 and b"body_too_large" in body


def test_a_body_trickled_past_its_time_gets_408(server: LiveServer) -> None:
    """Slowloris: a chunked body of one byte every 0.2 s is cut at the body's deadline."""
    sock = raw_request(server, CHUNKED_GUEST)
    started = time.monotonic()
    sock.settimeout(0.2)
    data = b""
    while time.monotonic() - started < 10:
        try:
            sock.sendall(b"1\r\n \r\n")
        except (BrokenPipeError, ConnectionResetError):
            break
        try:
            data += sock.recv(4096)
            if data.endswith(b"}"):
                break
        except TimeoutError:
            continue
    took = time.monotonic() - started
    sock.close()
    assert data.startswith(b"HTTP/1.1 408"), data
    assert b"body_too_slow" in data and b"connection: close" in data.lower()
    assert 1.0 < took < 5


def test_a_body_under_the_cap_in_chunks_is_taken(server: LiveServer) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": '
        yield b'"Chunky"}'

    headers = {"Content-Type": "application/json"}
    response = httpx.post(f"{server.url}/api/guest", content=chunks(), headers=headers, timeout=10)
    assert response.status_code == 200 and response.json()["name"] == "Chunky"


# ------------------------------------------------------------------ heads
def test_a_head_too_large_or_too_slow_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """``truco serve``'s HTTP protocol: a 100 MiB header is refused once 64 KiB are past
    (431, closed), a connection that sends nothing or half a head is closed (408)."""
    monkeypatch.setattr(http_head, "HEAD_SECONDS", 1.0)
    config = ServerConfig(db_url="sqlite://", http_rate="1000/minute")
    with LiveServer(config) as live:
        sock = raw_request(live, "GET /api/options HTTP/1.1\r\nHost: x\r\nX-Junk: ")
        sent = 0
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, TimeoutError):
            while sent < 100 * 2**20:
                sock.sendall(b"a" * 65536)
                sent += 65536
        assert sent < 32 * 2**20, f"the server read {sent} bytes of one header"
        with contextlib.suppress(ConnectionResetError):
            assert sock.recv(100).startswith(b"HTTP/1.1 431")
        sock.close()
        for first in ["", "GET /api/options HTTP/1.1\r\nHost: x\r\n"]:
            started = time.monotonic()
            status, body = status_and_body(raw_request(live, first))
            assert status == 408 and b"head_too_slow" in body
            assert 0.9 < time.monotonic() - started < 5
        # a head that arrives in time, and a socket's handshake, are served
        assert httpx.get(f"{live.url}/api/options", timeout=10).status_code == 200
        with connect(f"{live.ws_url}/ws/nada") as ws:
            assert close_of(ws)[0] == 4404


def read_response(stream: BinaryIO) -> tuple[int, bytes]:
    """One response of a kept-alive connection (it has a content-length), read from the
    socket's buffered stream: two answers that arrive in one read are kept apart."""
    status = stream.readline()
    assert status, "closed before the response's head"
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return int(status.split(b" ", 2)[1]), stream.read(length)


def test_every_head_of_a_kept_alive_connection_is_bounded_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Requests one after another on one connection, with bodies, and two at once, are
    served; once one is answered, the next head sent a byte at a time is cut (408) like
    the first; a socket's handshake and its quiet life past the head's time are left be."""
    monkeypatch.setattr(http_head, "HEAD_SECONDS", 1.0)
    config = ServerConfig(db_url="sqlite://", http_rate="1000/minute")
    with LiveServer(config) as live:
        sock = raw_request(live, "GET /api/options HTTP/1.1\r\nHost: x\r\n\r\n")
        answers = sock.makefile("rb")
        assert read_response(answers)[0] == 200
        body = b'{"name": "Lenta"}'
        guest = (
            b"POST /api/guest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        sock.sendall(guest[:30])
        time.sleep(0.5)  # half a head, then the rest in time
        sock.sendall(guest[30:])
        assert read_response(answers)[0] == 200
        time.sleep(0.5)
        two = b"GET /api/options HTTP/1.1\r\nHost: x\r\n\r\n" * 2  # pipelined
        sock.sendall(two)
        time.sleep(0.3)  # both answers come in before the first is read
        assert read_response(answers)[0] == 200 and read_response(answers)[0] == 200
        # the next head, a byte every 0.3 s: cut about a second after its first byte
        started = time.monotonic()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for byte in b"GET /api/options HTTP/1.1\r\nHost: x\r\n":
                sock.sendall(bytes([byte]))
                time.sleep(0.3)
                if time.monotonic() - started > 5:
                    break
        status, answer = read_response(answers)
        assert status == 408 and b"head_too_slow" in answer
        assert 0.9 < time.monotonic() - started < 5
        # a socket outlives the head's time: the guard let go of it at the handshake
        token = guest_token(live.url, "Paciente")
        table = create_table(live.url, token, rules={"players": 2})["id"]
        with connect(f"{live.ws_url}/ws/{table}") as ws:
            assert hello(ws, token)["type"] == "state"
            time.sleep(2.5)
            ws.send(json.dumps({"type": "ping"}))
            assert ws.recv(timeout=10)


# ------------------------------------------------------------------ pages
def test_page_lookups_are_counted_per_address() -> None:
    """``/u/NAME``, ``/t/ID`` and ``/replay/ID`` each look something up: they share the
    address's window with the API."""
    config = ServerConfig(db_url="sqlite://", http_rate="6/minute", http_write_rate="6/minute")
    with LiveServer(config) as live, httpx.Client(base_url=live.url, timeout=10) as http:
        answers = [http.get(path).status_code for path in ["/u/nadie", "/t/abc", "/replay/abc"]]
        answers += [http.get("/u/otro").status_code for _ in range(4)]
        assert answers[:6] == [404] * 6 and answers[6] == 429
        refusal = http.get("/t/zzz").json()
        assert refusal["code"] == "too_many_requests" and refusal["params"] == {"rate": "6/minute"}
        assert http.get("/").status_code == 200  # the plain page and its files are not counted


# ------------------------------------------------------------------ sockets
def close_of(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def hello(ws: ClientConnection, token: str | None) -> dict[str, Any]:
    ws.send(json.dumps({"type": "hello", "token": token}))
    state: dict[str, Any] = json.loads(ws.recv(timeout=10))
    return state


def test_sockets_are_capped_per_player_and_per_address(server: LiveServer) -> None:
    with contextlib.ExitStack() as stack:
        sockets_capped(server, lambda url: stack.enter_context(connect(url)))


def sockets_capped(server: LiveServer, connect: Callable[[str], ClientConnection]) -> None:
    token = guest_token(server.url, "Muchos")
    table = create_table(server.url, token, rules={"players": 2})["id"]
    url = f"{server.ws_url}/ws/{table}"
    mine = [connect(url) for _ in range(3)]
    for ws in mine:
        assert hello(ws, token)["type"] == "state"
    fourth = connect(url)
    fourth.send(json.dumps({"type": "hello", "token": token}))
    code, reason = close_of(fourth)
    assert code == TOO_MANY_SOCKETS and "your session: at most 3" in reason
    mine.pop().close()  # one closed: room for another
    time.sleep(0.2)
    again = connect(url)
    assert hello(again, token)["type"] == "state"
    mine.append(again)
    # spectators (no session) fill what the address has left: 12 in all
    watchers = [connect(url) for _ in range(9)]
    for ws in watchers:
        assert hello(ws, None)["type"] == "state"
    extra = connect(url)
    code, reason = close_of(extra)
    assert code == TOO_MANY_SOCKETS and "your address: at most 12" in reason
    queue = connect(f"{server.ws_url}/ws/queue?queue=1v1-sinflor-15-casual")  # every socket
    assert close_of(queue)[0] == TOO_MANY_SOCKETS
    for ws in [*mine, *watchers]:
        ws.close()  # (closed again at the end: nothing happens)
    time.sleep(0.3)
    back = connect(url)  # all gone: the address may open sockets again
    assert hello(back, None)["type"] == "state"
