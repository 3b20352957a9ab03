"""Sessions the server keeps: logging out ends a session for every copy of its token (the
HTTP API and an open socket alike), "log out everywhere" ends all of an account's, a
password change all the others; the owner lists their sessions and ends one. A session
ended on one server of a cluster (one database) is ended on the others within the recheck
time."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from databases import db_url
from server_testing import OPEN_PLAY, LiveServer, TableClient, create_table
from truco.server import ServerConfig
from truco.server.people.sessions import COOKIE

__all__ = ["db_url"]


def config(db: str, **more: Any) -> ServerConfig:
    return ServerConfig(
        **OPEN_PLAY,
        db_url=db,
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        login_rate="1000/minute",
        max_tables_per_guest=100,
        **more,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(config(f"sqlite:///{tmp_path_factory.mktemp('db') / 't.sqlite3'}")) as live:
        yield live


_names = iter(range(10**6))


def account(live: LiveServer, password: str = "mate-cocido-7") -> tuple[str, httpx.Client]:
    name = f"Sesión{next(_names)}"
    http = httpx.Client(base_url=live.url, timeout=30)
    assert http.post("/api/accounts", json={"name": name, "password": password}).status_code == 201
    return name, http


def log_in(live: LiveServer, name: str, password: str = "mate-cocido-7") -> httpx.Client:
    http = httpx.Client(base_url=live.url, timeout=30)
    assert http.post("/api/login", json={"name": name, "password": password}).status_code == 200
    return http


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def replay(live: LiveServer, token: str) -> tuple[int, int]:
    """What a copy of ``token`` gets from /api/me and /api/session/renew."""
    me = httpx.get(f"{live.url}/api/me", headers=bearer(token), timeout=10)
    renew = httpx.post(f"{live.url}/api/session/renew", headers=bearer(token), timeout=10)
    return me.status_code, renew.status_code


def closed(client: TableClient, timeout: float = 10) -> tuple[int, str]:
    """Wait for the server to close ``client``'s socket; its close code and reason."""
    deadline = time.monotonic() + timeout
    with pytest.raises(ConnectionClosed) as ended:
        while time.monotonic() < deadline:
            client.ws.recv(timeout=deadline - time.monotonic())
    assert ended.value.rcvd is not None
    return ended.value.rcvd.code, ended.value.rcvd.reason


# ------------------------------------------------------------------ logging out
@pytest.mark.parametrize("how", ["logout", "delete"])
def test_logging_out_ends_the_session_for_every_copy_of_the_token(
    server: LiveServer, how: str
) -> None:
    _name, http = account(server)
    token = http.cookies[COOKIE]
    assert replay(server, token) == (200, 200)
    if how == "logout":
        assert http.post("/api/logout").status_code == 204
    else:
        assert http.delete("/api/session").status_code == 204
    assert replay(server, token) == (401, 401)
    assert httpx.get(f"{server.url}/api/me", headers=bearer(token)).json()["code"] == "no_session"


def test_a_guest_who_logs_out_is_ended_too(server: LiveServer) -> None:
    guest = httpx.post(f"{server.url}/api/guest", json={"name": "Pasajera"}).json()
    assert replay(server, guest["token"]) == (200, 200)
    assert (
        httpx.delete(f"{server.url}/api/session", headers=bearer(guest["token"])).status_code == 204
    )
    assert replay(server, guest["token"]) == (401, 401)


def test_a_socket_whose_session_logs_out_is_closed_and_cannot_act(server: LiveServer) -> None:
    _, http = account(server)
    token = http.cookies[COOKIE]
    table = create_table(server.url, token, rules={"players": 2}, seat=0, bots={"1": "random"})
    client = TableClient(server.ws_url, table["id"], token)
    state = client.until(lambda s: s["view"] is not None and bool(s["view"]["legal"]))
    assert http.post("/api/logout").status_code == 204
    code, reason = closed(client)
    assert code == 1008 and "session has ended" in reason
    with pytest.raises(ConnectionClosed):  # its action goes nowhere
        client.act(state["view"]["legal"][0])
        client.recv(timeout=5)
    # the same token cannot come back
    with connect(f"{server.ws_url}/ws/{table['id']}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        with pytest.raises(ConnectionClosed) as refused:
            while True:
                ws.recv(timeout=10)
    assert refused.value.rcvd is not None and refused.value.rcvd.code == 4401


# ------------------------------------------------------------------ everywhere, password
def test_log_out_everywhere_ends_every_session_of_the_account(server: LiveServer) -> None:
    name, first = account(server)
    second = log_in(server, name)
    stranger_name, stranger = account(server)
    tokens = [first.cookies[COOKIE], second.cookies[COOKIE]]
    table = create_table(server.url, tokens[0], rules={"players": 2}, seat=0)
    watcher = TableClient(server.ws_url, table["id"], tokens[0])
    watcher.wait_state()
    answer = second.post("/api/sessions/revoke-all")
    assert answer.status_code == 200 and answer.json() == {"sessions_ended": 2}
    assert [replay(server, t) for t in tokens] == [(401, 401), (401, 401)]
    assert closed(watcher)[0] == 1008
    assert stranger.get("/api/me").json()["name"] == stranger_name  # nobody else's
    assert log_in(server, name).get("/api/me").status_code == 200  # and one may log in again


def test_a_password_change_ends_every_other_session(server: LiveServer) -> None:
    name, here = account(server)
    there = log_in(server, name)
    changed = here.post("/api/me/password", json={"old": "mate-cocido-7", "new": "nueva-clave-71"})
    assert changed.status_code == 200 and changed.json()["sessions_ended"] == 1
    assert there.get("/api/me").status_code == 401
    assert here.get("/api/me").json()["name"] == name  # this one goes on


# ------------------------------------------------------------------ the list
def test_the_owner_lists_their_sessions_and_ends_one(server: LiveServer) -> None:
    name, laptop = account(server)
    phone = httpx.Client(base_url=server.url, timeout=30, headers={"User-Agent": "Telefono/1.0"})
    phone.post("/api/login", json={"name": name, "password": "mate-cocido-7"})
    listed = laptop.get("/api/sessions").json()["sessions"]
    assert len(listed) == 2
    mine = next(s for s in listed if s["current"])
    other = next(s for s in listed if not s["current"])
    assert other["agent"] == "Telefono/1.0" and other["address"] == "127.0.0.1"
    assert mine["created_at"] <= mine["last_seen"] < mine["expires_at"]
    assert laptop.delete(f"/api/sessions/{other['id']}").status_code == 204
    assert phone.get("/api/me").status_code == 401
    assert [s["id"] for s in laptop.get("/api/sessions").json()["sessions"]] == [mine["id"]]
    # nobody ends (or learns of) another player's session
    _, stranger = account(server)
    refused = stranger.delete(f"/api/sessions/{mine['id']}")
    assert refused.status_code == 404 and refused.json()["code"] == "no_session_id"
    assert laptop.get("/api/me").status_code == 200
    assert len(stranger.get("/api/sessions").json()["sessions"]) == 1


# ------------------------------------------------------------------ several servers, one database
def test_a_session_ended_on_one_server_ends_on_another_within_the_recheck_time(
    tmp_path: Path,
) -> None:
    """Two servers on one database (as the nodes of a cluster share PostgreSQL): logging
    out on one stops the token on the other, its HTTP and its open socket, within
    ``session_recheck_seconds``."""
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    with (
        LiveServer(config(db, session_recheck_seconds=1)) as one,
        LiveServer(config(db, session_recheck_seconds=1)) as two,
    ):
        _name, http = account(one)
        token = http.cookies[COOKIE]
        assert replay(two, token) == (200, 200)
        table = create_table(two.url, token, rules={"players": 2}, seat=0)
        client = TableClient(two.ws_url, table["id"], token)
        client.wait_state()
        assert http.post("/api/logout").status_code == 204
        started = time.monotonic()
        code, _ = closed(client, timeout=10)
        assert code == 1008 and time.monotonic() - started < 4
        assert replay(two, token) == (401, 401)


def test_sessions_work_and_end_on_sqlite_and_postgresql(db_url: str) -> None:
    with LiveServer(config(db_url)) as live:
        _name, http = account(live)
        token = http.cookies[COOKIE]
    with LiveServer(config(db_url)) as again:  # a restart keeps the session
        assert replay(again, token) == (200, 200)
        assert httpx.post(f"{again.url}/api/logout", headers=bearer(token)).status_code == 204
        assert replay(again, token) == (401, 401)
