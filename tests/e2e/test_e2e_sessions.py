"""The page's session in headless Chromium: the token lives in an HttpOnly cookie that
scripts cannot read, never in storage or in a socket's URL; a final close code (a bad
table code) stops the page from reconnecting."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_kit import ARTIFACTS

from server_testing import LiveServer
from truco.server import ServerConfig
from truco.server.people.sessions import COOKIE


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


# ------------------------------------------------------------------ sessions the server ends
def account_page(browser: Any, server: LiveServer, name: str) -> tuple[Any, Any]:
    """A Spanish page that signed up as ``name`` from the lobby's account panel."""
    context = browser.new_context(locale="es-AR")
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(server.url + "/")
    page.wait_for_selector("#signup-form")
    page.fill("#signup-form input[name=name]", name)
    page.fill("#signup-form input[name=password]", "mate-amargo-42")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#logout")
    return context, page


def token_of(context: Any) -> str:
    return str(next(c["value"] for c in context.cookies() if c["name"] == COOKIE))


def answers_me(server: LiveServer, token: str) -> int:
    return httpx.get(
        f"{server.url}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=10
    ).status_code


def test_logging_out_on_the_page_ends_the_session_for_a_stolen_copy_too(
    browser: Any, server: LiveServer
) -> None:
    context, page = account_page(browser, server, "Saliente")
    stolen = token_of(context)
    assert answers_me(server, stolen) == 200
    page.click("#logout")
    page.wait_for_selector("#login-form")
    assert answers_me(server, stolen) == 401
    # the refusals are worded in the page's language, from their codes
    page.fill("#login-form input[name=name]", "Saliente")
    page.fill("#login-form input[name=password]", "no-es-esta-9")
    page.click("#login-form button[type=submit]")
    page.wait_for_function(
        "document.querySelector('#login-form .error').innerText.includes('incorrectos')"
    )
    page.fill("#signup-form input[name=name]", "Nueva Cuenta")
    page.fill("#signup-form input[name=password]", "password")
    page.click("#signup-form button[type=submit]")
    page.wait_for_function(
        "document.querySelector('#signup-form .error').innerText.includes('más difícil')"
    )
    context.close()


def test_the_own_profile_lists_the_sessions_and_ends_them(browser: Any, server: LiveServer) -> None:
    context, page = account_page(browser, server, "Viajera")
    other = httpx.post(
        f"{server.url}/api/login",
        json={"name": "Viajera", "password": "mate-amargo-42"},
        headers={"User-Agent": "Terminal/1.0"},
        timeout=10,
    ).json()["token"]
    page.click("#my-profile")
    page.wait_for_selector("#session-list [data-session]")
    rows = page.locator("#session-list [data-session]")
    assert rows.count() == 2
    assert page.locator('#session-list [data-current="true"]').count() == 1
    assert "Terminal/1.0" in page.text_content('#session-list [data-current="false"]')
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "profile-sessions.png"), full_page=True)
    page.click('#session-list [data-current="false"] button')
    page.wait_for_function("document.querySelectorAll('#session-list [data-session]').length === 1")
    assert answers_me(server, other) == 401
    mine = token_of(context)
    assert answers_me(server, mine) == 200
    page.click("#logout-everywhere")
    page.wait_for_selector("#login-form")
    assert answers_me(server, mine) == 401
    # someone else's profile has no sessions panel
    _, stranger = account_page(browser, server, "Curiosa")
    stranger.goto(f"{server.url}/u/Viajera")
    stranger.wait_for_selector("#profile")
    assert stranger.locator("#sessions").count() == 0
    context.close()
