"""The page's session in headless Chromium: the token lives in an HttpOnly cookie that
scripts cannot read, never in storage or in a socket's URL; a final close code (a bad
table code) stops the page from reconnecting."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server_testing import LiveServer
from truco.server import ServerConfig
from truco.server.sessions import COOKIE


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    config = ServerConfig(db_url="sqlite://", bot_delay=0.05, turn_seconds=0)
    with LiveServer(config) as live:
        yield live


def test_the_page_session_is_an_http_only_cookie_never_in_a_url(
    browser: Any, server: LiveServer
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15000)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(server.url + "/")
    page.fill("#name", "Coki")
    page.dispatch_event("#name", "change")  # the page asks for a session under that name
    page.wait_for_function("localStorage.getItem('truco.name') === 'Coki'")
    cookie = next(c for c in context.cookies() if c["name"] == COOKIE)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert COOKIE not in page.evaluate("document.cookie")  # scripts cannot read it
    assert page.evaluate("localStorage.getItem('truco.token')") is None
    # a table for this player, then the page opens its socket with the cookie alone
    table = httpx.post(
        f"{server.url}/api/tables",
        json={"rules": {"players": 2}, "seat": 0},
        headers={"Authorization": f"Bearer {cookie['value']}"},
        timeout=10,
    ).json()
    page.goto(f"{server.url}/t/{table['id']}")
    page.wait_for_function("document.body.innerText.includes('Mesa de')")
    assert sockets and all("token" not in url for url in sockets)
    context.close()


def test_a_final_close_code_stops_the_page_from_retrying(browser: Any, server: LiveServer) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15000)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"{server.url}/t/{'a' * 5000}")
    page.wait_for_function("document.body.innerText.includes('table code')")
    time.sleep(3)  # a retrying page would have opened about three more sockets by now
    assert len(sockets) <= 1  # the page knows the code's shape: it may not even try
    # a code of the right shape that no table has: the server's 4404 is final too
    sockets.clear()
    page.goto(f"{server.url}/t/zzzzzz")
    page.wait_for_function("document.body.innerText.includes('no table')")
    time.sleep(3)
    assert len(sockets) == 1
    context.close()
