"""The notice stream (``GET /api/notices``): a page hears that its challenges or a
tournament changed instead of asking every few seconds. What an event says (only which key
changed), who may listen to what, the caps on open streams, and the stream's end with its
session; on a cluster, a notice published on one node reaches a stream on another."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server_testing import OPEN_PLAY, LiveServer
from truco.server import ServerConfig
from truco.server.notices import Notices

_names = iter(range(10**6))
PASSWORD = "mate-cocido-7"


# ------------------------------------------------------------------ the hub
def test_a_burst_of_changes_is_one_notice_and_only_to_its_listeners() -> None:
    async def scenario() -> None:
        notices = Notices()
        mine = notices.subscribe({"player:A"})
        other = notices.subscribe({"tournament:T"})
        for _ in range(100):
            notices.publish("player:A")
        assert await mine.next(1.0) == {"player:A"}
        assert await mine.next(0.05) is None  # the burst was one notice
        assert await other.next(0.05) is None
        relayed: list[list[str]] = []
        notices.relay = relayed.append
        notices.publish("tournament:T")
        assert await other.next(1.0) == {"tournament:T"} and relayed == [["tournament:T"]]
        notices.deliver(["player:A"])  # from another node: delivered, not relayed again
        assert await mine.next(1.0) == {"player:A"} and relayed == [["tournament:T"]]
        notices.unsubscribe(mine)
        assert notices.listening() == 1
        notices.close()
        assert other.closed and await other.next(1.0) is None
        assert notices.subscribe({"player:B"}).closed  # a server stopping takes no more

    asyncio.run(scenario())


# ------------------------------------------------------------------ on a server
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    config = ServerConfig(
        **OPEN_PLAY,
        db_url=f"sqlite:///{tmp_path_factory.mktemp('db') / 'truco.sqlite3'}",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        login_rate="1000/minute",
        max_sockets_per_address=6,
        max_sockets_per_player=3,
    )
    with LiveServer(config) as live:
        yield live


def account(server: LiveServer) -> tuple[httpx.Client, str, str]:
    name = f"Aviso{next(_names)}"
    http = httpx.Client(base_url=server.url, timeout=30)
    answer = http.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return http, name, answer.json()["token"]


class Stream:
    """An open ``/api/notices`` stream on a plain socket, read in a thread: its events in
    a queue (a socket, so that :meth:`close` hangs up at once, as a closed tab does)."""

    def __init__(self, url: str, token: str | None = None, query: str = "") -> None:
        host, port = url.removeprefix("http://").split(":")
        self.events: queue.Queue[tuple[str, str]] = queue.Queue()
        self.ended = threading.Event()
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self.sock.sendall(
            f"GET /api/notices{query} HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n".encode()
        )
        self.reader = self.sock.makefile("rb")
        self.code = int(self.reader.readline().split()[1])
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        event = ""
        try:
            for raw in self.reader:  # (chunk sizes between the lines are skipped)
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    self.events.put((event, line[6:]))
                elif line.startswith(": hello"):
                    self.events.put(("hello", ""))
                elif line == "0":  # the last chunk: the server ended the stream
                    break
        except OSError:
            pass
        finally:
            self.ended.set()

    def next(self, seconds: float = 5.0) -> tuple[str, str]:
        return self.events.get(timeout=seconds)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def test_a_challenge_sent_reaches_the_targets_stream(server: LiveServer) -> None:
    ana, _, _ = account(server)
    _, beto_name, beto_token = account(server)
    me = httpx.get(f"{server.url}/api/me", headers={"Authorization": f"Bearer {beto_token}"}).json()
    stream = Stream(server.url, beto_token)
    try:
        assert stream.code == 200 and stream.next() == ("hello", "")
        started = time.monotonic()
        sent = ana.post("/api/challenges", json={"target": beto_name}).json()
        assert stream.next() == ("changed", f'["player:{me["id"]}"]')
        assert time.monotonic() - started < 2
        ana.delete(f"/api/challenges/{sent['id']}")  # cancelled: told too
        assert stream.next() == ("changed", f'["player:{me["id"]}"]')
    finally:
        stream.close()


def test_a_tournament_page_hears_its_tournament_without_a_session(server: LiveServer) -> None:
    organiser, _, _ = account(server)
    made = organiser.post(
        "/api/tournaments",
        json={"name": "Aviso", "format": "swiss", "rounds": 1, "starts_in": 3600},
    )
    assert made.status_code == 200, made.text
    tournament = made.json()["id"]
    watcher = Stream(server.url, query=f"?tournament={tournament}")
    elsewhere = Stream(server.url, query="?tournament=otro")
    try:
        assert watcher.next() == ("hello", "") and elsewhere.next() == ("hello", "")
        entrant, _, _ = account(server)
        assert entrant.post(f"/api/tournaments/{tournament}/join").status_code == 200
        assert watcher.next() == ("changed", f'["tournament:{tournament}"]')
        with pytest.raises(queue.Empty):
            elsewhere.next(0.5)  # another tournament's page hears nothing
    finally:
        watcher.close()
        elsewhere.close()


def test_what_a_stream_may_not_do(server: LiveServer) -> None:
    # nothing to hear, a bad tournament code: one refusal each, nothing opened
    assert httpx.get(f"{server.url}/api/notices").status_code == 400
    for bad in ("../x", "x" * 40, "a b"):
        answer = httpx.get(f"{server.url}/api/notices", params={"tournament": bad})
        assert answer.status_code == 422, bad
    # a player's streams are capped (3 here): the fourth is refused, and a closed one
    # gives its place back
    _, _, token = account(server)
    streams = [Stream(server.url, token) for _ in range(3)]
    try:
        assert [s.code for s in streams] == [200, 200, 200]
        fourth = Stream(server.url, token)
        assert fourth.code == 429
        streams[0].close()
        assert streams[0].ended.wait(5)

        def admitted() -> bool:
            again = Stream(server.url, token)
            again.close()
            return again.code == 200

        deadline = time.monotonic() + 5
        while not admitted():
            assert time.monotonic() < deadline, "the closed stream's place was not given back"
            time.sleep(0.1)
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_ends_with_its_session(server: LiveServer) -> None:
    http, _, token = account(server)
    stream = Stream(server.url, token)
    try:
        assert stream.next() == ("hello", "")
        assert http.post(
            "/api/logout", headers={"Authorization": f"Bearer {token}"}
        ).status_code in (200, 204)
        assert stream.ended.wait(10), "the stream outlived its session"
    finally:
        stream.close()


def test_an_open_stream_does_not_hold_the_servers_stop(tmp_path: Any) -> None:
    config = ServerConfig(db_url=f"sqlite:///{tmp_path / 'truco.sqlite3'}")
    with LiveServer(config) as live:
        watcher = Stream(live.url, query="?tournament=abierto")
        assert watcher.next() == ("hello", "")
        started = time.monotonic()
        live.stop()
        assert watcher.ended.wait(5) and time.monotonic() - started < 10
        watcher.close()
