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
from truco.server.people.players import TokenSigner
from truco.server.people.sessions import COOKIE


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
class Clock:
    """The sessions' wall clock, moved by hand."""

    now = time.time()

    @classmethod
    def time(cls) -> float:
        return cls.now


def test_sessions_expire_and_renewing_keeps_the_session_up_to_its_maximum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("truco.server.people.session_store.time", Clock)
    config = ServerConfig(
        db_url="sqlite://", session_seconds=100, session_max_seconds=200, session_recheck_seconds=0
    )
    with LiveServer(config) as live:
        http = httpx.Client(base_url=live.url, timeout=10)
        first = http.post("/api/guest", json={"name": "Eva"}).json()
        bearer = {"Authorization": f"Bearer {first['token']}"}
        Clock.now += 60
        renewed = httpx.post(f"{live.url}/api/session/renew", headers=bearer, timeout=10)
        assert renewed.status_code == 200
        again = renewed.json()
        # the same session, the same token, a new expiry
        assert again["id"] == first["id"] and again["token"] == first["token"]
        assert again["expires"] == pytest.approx(first["expires"] + 60, abs=0.01)
        assert renewed.headers["set-cookie"].startswith(f"{COOKIE}={again['token']}")
        Clock.now += 60  # past the first expiry: renewed, still live
        assert (
            httpx.get(f"{live.url}/api/me", headers=bearer, timeout=10).json()["id"] == first["id"]
        )
        # renewing again cannot go past 200 s after the session opened
        late = httpx.post(f"{live.url}/api/session/renew", headers=bearer, timeout=10).json()
        assert late["expires"] == pytest.approx(first["expires"] + 100, abs=0.01)
        table = create_table(live.url, again["token"], rules={"players": 2}, seat=0)
        Clock.now += 81  # 201 s: over for good, renewing or not
        assert httpx.get(f"{live.url}/api/me", headers=bearer, timeout=10).status_code == 401
        gone = httpx.post(f"{live.url}/api/session/renew", headers=bearer, timeout=10)
        assert gone.status_code == 401 and gone.json()["code"] == "no_session"
        code, reason = closed_with(
            f"{live.ws_url}/ws/{table['id']}",
            json.dumps({"type": "hello", "token": again["token"]}),
        )
        assert code == 4401 and "expired" in reason


def test_a_forged_or_altered_token_is_refused_without_a_lookup() -> None:
    signer = TokenSigner(b"k" * 32)
    token = signer.issue("s3ss10n")
    body, _, signature = token.partition(".")
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    for bad in (f"other.{signature}", f"{body}.{flipped}", TokenSigner(b"x" * 32).issue(body),
                token + "x", "x" * 600, ""):  # fmt: skip
        assert signer.verify(bad) is None
    assert signer.verify(token) == "s3ss10n"


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
