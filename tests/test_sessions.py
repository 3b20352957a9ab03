"""Sessions: the token never in a URL (a cookie for the page, a hello message for other
clients), tokens that expire and are renewed, and per-address HTTP rate limits."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from server_testing import LiveServer, TableClient, create_table, guest_token
from truco.server import ServerConfig
from truco.server.players import TokenSigner
from truco.server.sessions import COOKIE


@pytest.fixture(scope="module")
def server() -> Any:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        hello_seconds=0.5,
    )
    with LiveServer(config) as live:
        yield live


def closed_with(url: str, first: str | None = None, **options: Any) -> tuple[int, str]:
    """Open a raw socket (send ``first`` if given) and return its close code and reason."""
    with connect(url, open_timeout=10, **options) as ws:
        if first is not None:
            ws.send(first)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


# ------------------------------------------------------------------ the page's cookie
def test_the_page_gets_an_http_only_strict_cookie_that_speaks_for_it(server: LiveServer) -> None:
    http = httpx.Client(base_url=server.url, timeout=10)
    response = http.post("/api/guest", json={"name": "Pía"})
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=strict" in cookie and "Path=/" in cookie
    me = http.get("/api/me").json()  # the cookie alone
    assert me["name"] == "Pía" and me["id"] == response.json()["id"]
    table = http.post("/api/tables", json={"rules": {"players": 2}, "seat": 0})
    assert table.status_code == 201
    # the socket of a page on this server knows the player by the cookie: no hello needed
    token = http.cookies[COOKIE]
    url = f"{server.ws_url}/ws/{table.json()['id']}"
    headers = {"Cookie": f"{COOKIE}={token}", "Origin": server.url}
    with connect(url, additional_headers=headers, open_timeout=10) as ws:
        state = json.loads(ws.recv(timeout=10))
        assert state["type"] == "state" and state["you"]["seat"] == 0
    # a page of another site opening the socket gets no help from the cookie
    foreign = {"Cookie": f"{COOKIE}={token}", "Origin": "http://evil.example"}
    code, reason = closed_with(url, additional_headers=foreign)
    assert code == 4408 and "hello" in reason
    assert http.delete("/api/session").status_code == 204
    assert COOKIE not in http.cookies and http.get("/api/me").status_code == 401


# ------------------------------------------------------------------ the hello message
def test_other_clients_say_hello_first_and_never_put_the_token_in_the_url(
    server: LiveServer,
) -> None:
    token = guest_token(server.url, "Tano")
    table = create_table(server.url, token, rules={"players": 2}, seat=0)
    url = f"{server.ws_url}/ws/{table['id']}"
    code, reason = closed_with(f"{url}?token={token}")
    assert code == 4400 and "never travel in the URL" in reason
    code, reason = closed_with(f"{url}?token=x.%C3%A9")  # non-ASCII: refused the same way
    assert code == 4400
    code, reason = closed_with(url, '{"type": "ping"}')
    assert code == 4400 and "hello" in reason
    code, reason = closed_with(url, '{"type": "hello", "token": 7}')
    assert code == 4400 and "token" in reason
    code, _ = closed_with(url)  # says nothing
    assert code == 4408
    for forged in (token + "x", "abc.\xe9", "x" * 600):
        code, _ = closed_with(url, json.dumps({"type": "hello", "token": forged}))
        assert code in (4400, 4401), forged
    client = TableClient(server.ws_url, table["id"], token)
    assert client.wait_state()["you"]["seat"] == 0
    client.send({"type": "hello", "token": token})
    assert client.wait(lambda m: m["type"] == "error")["code"] == "hello_once"
    client.close()


# ------------------------------------------------------------------ expiry, renewal
def test_tokens_expire_and_are_renewed_while_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    signer = TokenSigner(b"k" * 32, lifetime=100)
    token = signer.issue("Ana", now=1000)
    player = signer.verify(token, now=1050)
    assert player is not None and player.expires == 1100
    assert signer.verify(token, now=1100) is None

    class Clock:  # the server's clock for tokens, moved by hand
        now = time.time()

        @classmethod
        def time(cls) -> float:
            return cls.now

    monkeypatch.setattr("truco.server.players.time", Clock)
    config = ServerConfig(db_url="sqlite://", session_seconds=100)
    with LiveServer(config) as live:
        http = httpx.Client(base_url=live.url, timeout=10)
        first = http.post("/api/guest", json={"name": "Eva"}).json()
        bearer = {"Authorization": f"Bearer {first['token']}"}
        Clock.now += 60
        renewed = httpx.post(f"{live.url}/api/session/renew", headers=bearer, timeout=10)
        assert renewed.status_code == 200
        again = renewed.json()
        assert again["id"] == first["id"] and again["expires"] == first["expires"] + 60
        assert renewed.headers["set-cookie"].startswith(f"{COOKIE}={again['token']}")
        Clock.now += 60  # the first token has expired; the renewed one has not
        assert httpx.get(f"{live.url}/api/me", headers=bearer, timeout=10).status_code == 401
        fresh = {"Authorization": f"Bearer {again['token']}"}
        assert (
            httpx.get(f"{live.url}/api/me", headers=fresh, timeout=10).json()["id"] == first["id"]
        )
        late = httpx.post(f"{live.url}/api/session/renew", headers=bearer, timeout=10)
        assert late.status_code == 401 and "POST /api/guest" in late.json()["detail"]
        table = create_table(live.url, again["token"], rules={"players": 2}, seat=0)
        Clock.now += 60  # expired now too: the socket refuses it with a reason
        code, reason = closed_with(
            f"{live.ws_url}/ws/{table['id']}",
            json.dumps({"type": "hello", "token": again["token"]}),
        )
        assert code == 4401 and "expired" in reason


def test_a_verified_token_is_remembered_but_expiry_and_forgery_still_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    signer = TokenSigner(b"k" * 32, lifetime=100)
    token = signer.issue("Ana", now=1000)
    first = signer.verify(token, now=1010)
    assert first is not None and first.name == "Ana"
    full_checks: list[str] = []
    check = signer._check

    def counted(text: str) -> Any:
        full_checks.append(text)
        return check(text)

    monkeypatch.setattr(signer, "_check", counted)
    # the same session again: looked up, not checked again
    assert signer.verify(token, now=1020) == first
    assert full_checks == []
    # anything else is checked in full, every time, and refused
    body, _, signature = token.partition(".")
    forged_body = TokenSigner(b"k" * 32).issue("Eva", first.id, now=5000).split(".")[0]
    other_key = TokenSigner(b"x" * 32, lifetime=100).issue("Ana", first.id, now=1000)
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    for bad in (f"{forged_body}.{signature}", f"{body}.{flipped}", other_key, token + "x"):
        for _ in range(2):
            assert signer.verify(bad, now=1020) is None
    assert len(full_checks) == 8
    assert signer.verify(token, now=1020) == first and len(full_checks) == 8
    # a remembered token that expires is refused, forgotten, then refused by the full check
    assert signer.verify(token, now=1100) is None
    assert signer.verify(token, now=1100) is None and full_checks[-1] == token
    assert signer.verify(token, now=1099) == first  # (the clock of a test going back)


def test_the_memory_of_verified_tokens_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("truco.server.players.VERIFIED_CACHE", 5)
    signer = TokenSigner(b"k" * 32, lifetime=100)
    tokens = [signer.issue(f"P{i}", now=1000) for i in range(12)]
    for token in tokens:
        assert signer.verify(token, now=1001) is not None
        assert len(signer._verified) <= 5
    assert all(signer.verify(token, now=1001) is not None for token in tokens)


def test_non_ascii_and_overlong_tokens_get_a_clean_401(server: LiveServer) -> None:
    for value in (b"Bearer abc.\xe9", b"Bearer " + b"a" * 900, b"Bearer", b"Basic abc"):
        response = httpx.get(f"{server.url}/api/me", headers={"Authorization": value}, timeout=10)
        assert response.status_code in (401, 422), value
        assert response.json()["detail"]


# ------------------------------------------------------------------ rate limits
def test_http_requests_are_rate_limited_per_address() -> None:
    config = ServerConfig(db_url="sqlite://", http_rate="8/minute", http_write_rate="3/minute")
    with LiveServer(config) as live:
        http = httpx.Client(base_url=live.url, timeout=10)
        guests = [http.post("/api/guest", json={"name": f"G{i}"}).status_code for i in range(4)]
        assert guests == [200, 200, 200, 429]
        answers = [http.get("/api/options").status_code for _ in range(5)]
        assert answers[:4] == [200] * 4 and answers[4] == 429
        limited = http.get("/api/tables")
        assert limited.status_code == 429 and "at most 8/minute" in limited.json()["detail"]
        assert limited.headers["retry-after"]
        assert http.get("/").status_code == 200  # the page itself is not limited
        with pytest.raises(InvalidStatus):  # nor may the address open sockets
            connect(f"{live.ws_url}/ws/abcdef", open_timeout=10)
