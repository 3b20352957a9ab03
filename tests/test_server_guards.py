"""The server's guards, over a live server: a request another site makes with the page's
cookie changes nothing, and a flooding WebSocket client gets its state before the rate
limit closes it."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_testing import LiveServer, create_table, guest_token
from truco.server import ServerConfig
from truco.server.people.sessions import COOKIE

EVIL = "https://evil.example"


@pytest.fixture(scope="module")
def server() -> Any:
    """The default WebSocket limits (10 a second, bursts of 30, closed after 50 strikes)."""
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
    )
    with LiveServer(config) as live:
        yield live


def page(server: LiveServer, name: str) -> httpx.Client:
    """A browser-like client of the page: it holds the session cookie."""
    http = httpx.Client(base_url=server.url, timeout=10)
    assert http.post("/api/guest", json={"name": name}).status_code == 200
    assert http.cookies.get(COOKIE)
    return http


def table_ids(http: httpx.Client) -> list[str]:
    return [t["id"] for t in http.get("/api/tables").json()]


# ------------------------------------------------------------------ Origin and the cookie
def test_a_cross_origin_write_with_the_cookie_is_refused_and_changes_nothing(
    server: LiveServer,
) -> None:
    http = page(server, "Pía")
    before = http.cookies[COOKIE]
    tables = table_ids(http)
    for method, path, body in [
        ("POST", "/api/tables", {"rules": {"players": 2}, "seat": 0}),
        ("POST", "/api/session/renew", None),
        ("POST", "/api/guest", {"name": "Hacked"}),
        ("POST", "/api/logout", None),  # another site cannot log you out either
        ("DELETE", "/api/session", None),
    ]:
        response = http.request(method, path, json=body, headers={"Origin": EVIL})
        assert response.status_code == 403, (path, response.text)
        detail = response.json()["detail"]
        assert "cross-origin" in detail and EVIL in detail and "\n" not in detail
        assert "set-cookie" not in response.headers
    assert table_ids(http) == tables
    assert http.cookies[COOKIE] == before
    assert http.get("/api/me").json()["name"] == "Pía"


def test_same_origin_pages_bearer_clients_and_reads_are_not_asked(server: LiveServer) -> None:
    http = page(server, "Rulo")
    same = {"Origin": server.url}
    assert http.post("/api/tables", json={"rules": {"players": 2}}, headers=same).status_code == 201
    assert http.post("/api/tables", json={"rules": {"players": 2}}).status_code == 201  # no Origin
    assert http.get("/api/me", headers={"Origin": EVIL}).status_code == 200  # a read
    # a Bearer client is not a browser carrying a cookie: its Origin does not matter
    token = guest_token(server.url, "Script")
    table = create_table(server.url, token, rules={"players": 2})
    assert table["id"]
    bearer = httpx.post(
        f"{server.url}/api/tables",
        json={"rules": {"players": 2}},
        headers={"Authorization": f"Bearer {token}", "Origin": EVIL},
        timeout=10,
    )
    assert bearer.status_code == 201
    # without a cookie there is nothing to forge: another site may make a guest
    stranger = httpx.post(
        f"{server.url}/api/guest", json={"name": "Nuevo"}, headers={"Origin": EVIL}, timeout=10
    )
    assert stranger.status_code == 200


def test_a_cookie_with_a_null_origin_is_refused(server: LiveServer) -> None:
    http = page(server, "Sandbox")
    response = http.post("/api/session/renew", headers={"Origin": "null"})
    assert response.status_code == 403


# ------------------------------------------------------------------ flooding
@pytest.mark.slow  # (seconds: out of the quick lane)
def test_a_client_flooding_from_its_first_message_gets_its_state_then_is_closed(
    server: LiveServer,
) -> None:
    token = guest_token(server.url, "Host")
    table = create_table(server.url, token, rules={"players": 2}, bots={"1": "random"})
    frames: list[dict[str, Any]] = []
    with connect(f"{server.ws_url}/ws/{table['id']}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": None}))
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(400):  # all at once, before reading anything
                ws.send('{"type": "ping"}')
            while True:
                frames.append(json.loads(ws.recv(timeout=30)))
        with pytest.raises(ConnectionClosed):
            while True:  # what arrived before the close can still be read
                frames.append(json.loads(ws.recv(timeout=30)))
    kinds = [f["type"] for f in frames]
    assert kinds[0] == "state", kinds[:5]
    assert {f["code"] for f in frames if f["type"] == "error"} == {"rate_limited"}
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert "flooding" in closed.value.rcvd.reason
