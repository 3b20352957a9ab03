"""Accounts, quick match, the leaderboard and profiles in headless Chromium: two people
sign up (one logs out and in again), press "Jugar ya" for a rated 1v1 to 15 and land
at the same table, play it to the end, see their ratings and the leaderboard change,
and open a profile with its rating chart (screenshots kept in tests/e2e/artifacts/).
Guests quick-match a casual table, and a player who cancels the wait leaves the queue."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_kit import ARTIFACTS, DESKTOP, PHONE, config, sync_api

from server_testing import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(config(tmp_path_factory.mktemp("e2e-accounts") / "truco.sqlite3")) as live:
        yield live


def open_lobby(browser: Any, server: LiveServer, **context: Any) -> Any:
    page = browser.new_context(**{**DESKTOP, "locale": "es-AR", **context}).new_page()
    page.set_default_timeout(15000)
    page.on("pageerror", lambda e: print("PAGEERROR", e))
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-form")
    return page


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def fill_credentials(page: Any, form: str, name: str, password: str) -> None:
    page.fill(f"{form} input[name=name]", name)
    page.fill(f"{form} input[name=password]", password)
    page.click(f"{form} button[type=submit]")


def my_rating(page: Any, mode: str = "1v1") -> str:
    """The rating the lobby's account panel shows (after loading the lobby afresh)."""
    page.goto("/".join(page.url.split("/")[:3]) + "/")
    page.wait_for_selector("#my-ratings")
    return str(page.get_attribute(f'#my-ratings [data-mode="{mode}"] strong', "data-rating"))


def quick_match(page: Any, mode: str, target: str, kind: str, bots: str = "") -> None:
    page.select_option("#quick-form select[name=quick_mode]", mode)
    page.select_option("#quick-form select[name=quick_target]", target)
    page.check(f'#quick-form input[name=kind][value="{kind}"]')
    if kind == "casual":
        page.select_option("#quick-form select[name=bots_after]", bots)
    page.click("#quick-play")


def queued(server: LiveServer) -> dict[str, int]:
    result: dict[str, int] = httpx.get(f"{server.url}/api/queue").json()["queues"]
    return result


def test_guests_quick_match_a_casual_table_and_cancel_leaves_the_queue(
    browser: Any, server: LiveServer
) -> None:
    vero = open_lobby(browser, server)
    quick_match(vero, "2v2", "30", "casual")
    vero.wait_for_selector("#quick-waiting")
    assert "Buscando rivales" in vero.text_content("#quick-status")
    assert queued(server) == {"2v2-sinflor-30-casual": 1}
    vero.click("#quick-cancel")
    vero.wait_for_selector("#quick-form:not([hidden])")
    deadline = time.monotonic() + 10
    while queued(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert queued(server) == {}
    # going to another screen while waiting leaves the queue too
    quick_match(vero, "3v3", "15", "casual")
    vero.wait_for_selector("#quick-waiting")
    assert queued(server) == {"3v3-sinflor-15-casual": 1}
    vero.click("#nav-ranking")
    vero.wait_for_selector("#leaderboard")
    deadline = time.monotonic() + 10
    while queued(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert queued(server) == {}
    vero.goto(server.url + "/")
    vero.wait_for_selector("#quick-form")
    # rated play needs an account: the choice is there, but off for a guest
    assert vero.is_disabled('#quick-form input[name=kind][value="rated"]')

    juli = open_lobby(browser, server, **PHONE)
    quick_match(juli, "1v1", "15", "casual")
    quick_match(vero, "1v1", "15", "casual")
    for page in (juli, vero):
        page.wait_for_url("**/t/*")
        page.wait_for_selector("#my-hand")
    assert juli.url == vero.url
    names = juli.eval_on_selector_all(".seat .who", "els => els.map(e => e.textContent)")
    assert len(names) == 2
    shot(juli, "quick-match-phone.png")

    lone = open_lobby(browser, server)
    quick_match(lone, "1v1", "30", "casual", bots="10")
    lone.wait_for_url("**/t/*", timeout=30000)
    table = httpx.get(f"{server.url}/api/tables/{lone.url.rsplit('/', 1)[1]}").json()
    assert [s["kind"] for s in table["seats"]].count("bot") == 1
    for page in (vero, juli, lone):
        page.context.close()


def play_to_the_end(winner: Any, loser: Any, timeout: float = 240.0) -> None:
    """The loser refuses every call and goes to the mazo on their turn; the winner
    plays a card whenever one is playable. Until the match is over on both pages."""
    deadline = time.monotonic() + timeout
    while not (winner.locator("#winner").count() and loser.locator("#winner").count()):
        assert time.monotonic() < deadline, "the match did not end"
        if loser.locator('#actions button[data-action="no-quiero"]').count():
            loser.keyboard.press("n")
        elif loser.locator('#actions button[data-action="mazo"]').count():
            loser.keyboard.press("m")
            loser.keyboard.press("m")
        card = winner.locator("#my-hand .card-button.playable")
        if card.count():
            with contextlib.suppress(sync_api.TimeoutError):
                card.first.click(timeout=1000)
        winner.wait_for_timeout(60)


def test_sign_up_log_in_rated_quick_match_ratings_leaderboard_profile(
    browser: Any, server: LiveServer
) -> None:
    tag = uuid.uuid4().hex[:4]
    ana_name, beto_name = f"Ana{tag}", f"Beto{tag}"
    ana = open_lobby(browser, server)
    fill_credentials(ana, "#signup-form", ana_name, "una clave larga 1")
    ana.wait_for_selector("#logout")
    assert ana_name in ana.text_content("#account h2")

    beto = open_lobby(browser, server, **PHONE)
    fill_credentials(beto, "#signup-form", beto_name, "otra clave larga 2")
    beto.wait_for_selector("#logout")
    beto.click("#logout")
    beto.wait_for_selector("#login-form")
    fill_credentials(beto, "#login-form", beto_name, "mal")
    beto.wait_for_selector("#login-form .error:not(:empty)")
    fill_credentials(beto, "#login-form", beto_name, "otra clave larga 2")
    beto.wait_for_selector("#logout")

    before = {name: my_rating(page) for name, page in ((ana_name, ana), (beto_name, beto))}
    ana.goto(server.url + "/ranking?mode=1v1")
    ana.wait_for_selector("#leaderboard")
    assert ana.locator(f'tr[data-player="{ana_name}"]').count() == 0
    ana.goto(server.url + "/")
    ana.wait_for_selector("#quick-form")

    quick_match(ana, "1v1", "15", "rated")
    ana.wait_for_selector("#quick-waiting")
    quick_match(beto, "1v1", "15", "rated")
    for page in (ana, beto):
        page.wait_for_url("**/t/*")
        page.wait_for_selector("#my-hand")
    assert ana.url == beto.url
    table_id = ana.url.rsplit("/", 1)[1]
    play_to_the_end(ana, beto)
    assert "¡Ganamos!" in ana.text_content("#winner")

    after = {}
    for name, page in ((ana_name, ana), (beto_name, beto)):
        deadline = time.monotonic() + 30  # the result is recorded as the match ends
        after[name] = my_rating(page)
        while after[name] == before[name] and time.monotonic() < deadline:
            page.wait_for_timeout(200)
            after[name] = my_rating(page)
    assert after[ana_name] != before[ana_name] and after[beto_name] != before[beto_name]
    assert float(after[ana_name]) > float(after[beto_name])

    ana.goto(server.url + "/ranking?mode=1v1")
    ana.wait_for_selector(f'tr[data-player="{ana_name}"]')
    order = ana.eval_on_selector_all(
        "#leaderboard tbody tr", "rows => rows.map(r => r.dataset.player)"
    )
    assert order.index(ana_name) < order.index(beto_name)
    games = ana.text_content(f'tr[data-player="{ana_name}"] td:nth-child(4)')
    assert games is not None and games.strip() == "1"
    shot(ana, "leaderboard.png")

    ana.click(f'tr[data-player="{beto_name}"] a')
    ana.wait_for_selector("#rating-chart")
    assert ana.url.endswith(f"/u/{beto_name}")
    line = ana.get_attribute('#rating-chart polyline[data-mode="1v1"]', "points")
    assert line is not None and len(line.split()) == 2  # from the start to after the match
    start, end = (float(point.split(",")[1]) for point in line.split())
    assert end > start  # lower on the chart: Beto's rating went down
    assert ana.locator("#rating-chart circle").count() == 1
    assert after[beto_name] in ana.text_content('#rating-chart circle[data-mode="1v1"] title')
    assert "0 ganadas, 1 perdidas" in ana.text_content('.mode-card[data-mode="1v1"]')
    match = ana.locator(f'#matches [data-match="{table_id}"] a')
    assert match.count() == 1
    shot(ana, "profile-chart.png")
    match.click()
    ana.wait_for_url(f"**/replay/{table_id}")
    ana.wait_for_selector("#next")
    for page in (ana, beto):
        page.context.close()
