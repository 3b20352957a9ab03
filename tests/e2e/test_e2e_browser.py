"""The page in headless Chromium (Debian's ``chromium``, driven by Playwright): people
create and join tables, call and answer, play a hand and see the score change.
Screenshots are kept in ``tests/e2e/artifacts/`` (ignored by git)."""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_testing import (
    LiveServer,
    TableClient,
    create_table,
    guest_token,
    play_out,
)
from truco.server import ServerConfig

CHROMIUM = os.environ.get("TRUCO_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("e2e") / "truco.sqlite3"
    config = ServerConfig(
        db_url=f"sqlite:///{db}",
        bot_delay=0.05,
        turn_seconds=120,
        disconnect_grace=3600,
    )
    with LiveServer(config) as live:
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


def new_page(browser: Any, server: LiveServer, name: str, **context: Any) -> Any:
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(15000)
    page.goto(server.url + "/")
    page.fill("#name", name)
    page.press("#name", "Enter")
    page.dispatch_event("#name", "change")
    page.wait_for_function(f"localStorage.getItem('truco.name') === {name!r}")
    return page


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def points(page: Any) -> int:
    return int(
        page.eval_on_selector_all(
            "[data-points]",
            "els => els.reduce((a, e) => a + Number(e.dataset.points), 0)",
        )
    )


def play_until_score_changes(pages: list[Any], timeout: float = 60.0) -> None:
    """Each person plays a card when one is playable, or answers a call, until a
    hand closes and the score changes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(points(p) > 0 for p in pages):
            return
        for page in pages:
            for choice in ('#actions button[data-action="quiero"]', "#my-hand img.playable",
                           '#actions button[data-action="flor"]'):  # fmt: skip
                target = page.locator(choice)
                if target.count():
                    try:  # the page may re-render (a partner answered first): then move on
                        target.first.click(timeout=1000)
                    except sync_api.TimeoutError:
                        pass
                    break
        pages[0].wait_for_timeout(60)
    raise AssertionError("the hand did not close in time")


def test_two_people_create_join_call_envido_and_finish_a_hand(
    browser: Any, server: LiveServer
) -> None:
    ana = new_page(browser, server, "Ana")
    ana.select_option("select[name=players]", "2")
    ana.click("#create")
    ana.wait_for_url("**/t/*")
    code = ana.text_content("#table-code")
    assert code and ana.locator(".seat[data-seat='1'] button.sit").count() == 1

    beto = new_page(browser, server, "Beto")
    beto.fill("#join-form input[name=code]", code)
    beto.click("#join-form button")
    beto.wait_for_url(f"**/t/{code}")
    beto.click(".seat[data-seat='1'] button.sit")
    for page in (ana, beto):
        page.wait_for_selector("#my-hand img.card")
        assert page.locator("#my-hand img.card").count() == 3
        assert page.locator(".seat").count() == 2

    # the mano calls envido; the rival sees the call and answers quiero
    caller, other = (
        (ana, beto) if ana.locator('#actions button[data-action="envido"]').count() else (beto, ana)
    )
    caller.wait_for_selector('#actions button[data-action="envido"]')
    assert caller.locator(".clock").count() == 1  # the turn's countdown
    caller.click('#actions button[data-action="envido"]')
    other.wait_for_selector("#pending")
    assert "Envido" in other.text_content("#pending")
    assert other.locator('#actions button[data-action="no-quiero"]').count() == 1
    assert other.locator('#actions button[data-action="real-envido"]').count() == 1
    other.click('#actions button[data-action="quiero"]')
    caller.wait_for_function("!document.querySelector('#pending')")

    play_until_score_changes([ana, beto])
    for page in (ana, beto):
        page.wait_for_selector("#last-hand .revealed, #last-hand .showdown")
        assert "envido" in page.text_content("#last-hand")
    assert points(ana) == points(beto) >= 3  # envido (2) and the hand (1)
    # at the close the cards of the winning tanto are shown to both (one card for a tanto under 20)
    shown = [
        ana.locator("#last-hand img.card").count(),
        beto.locator("#last-hand img.card").count(),
    ]
    assert shown[0] == shown[1] >= 1
    shot(ana, "table-1v1.png")
    ana.context.close()
    beto.context.close()


def test_a_2v2_table_with_two_people_and_two_bots(browser: Any, server: LiveServer) -> None:
    ana = new_page(browser, server, "Ana")
    ana.select_option("select[name=players]", "4")
    ana.select_option("select[name=target]", "15")
    ana.click("#create")
    ana.wait_for_url("**/t/*")
    for seat in (1, 3):
        ana.click(f".seat[data-seat='{seat}'] button.add-bot")
        ana.wait_for_selector(f".seat[data-seat='{seat}'] button:has-text('Sacar bot')")
    url = ana.url
    # the partner joins from a phone-sized screen by the table's link
    cami = new_page(
        browser,
        server,
        "Cami",
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
    )
    cami.goto(url)
    cami.click(".seat[data-seat='2'] button.sit")
    for page in (ana, cami):
        page.wait_for_selector("#my-hand img.card")
        assert page.locator(".seat").count() == 4
    names = ana.text_content(".board")
    assert "Bot simple" in names and "Cami" in names
    # partners share the megaphone: a word reaches the partner
    if ana.locator('#megaphone button[data-action="say voy"]').count():
        ana.click('#megaphone button[data-action="say voy"]')
        cami.wait_for_selector(".talk")
        assert "Voy" in cami.text_content(".talk")
    play_until_score_changes([ana, cami])
    assert points(ana) == points(cami) > 0
    shot(ana, "table-2v2.png")
    shot(cami, "table-2v2-phone.png")
    ana.context.close()
    cami.context.close()


def test_lobby_lists_tables_and_history_replays(browser: Any, server: LiveServer) -> None:
    # a finished match, played through the protocol by a script against a bot
    token = guest_token(server.url, "Script")
    table = create_table(
        server.url,
        token,
        rules={"players": 2, "target": 15},
        seat=0,
        bots={"1": "random"},
    )
    client = TableClient(server.ws_url, table["id"], token)
    rng = random.Random(3)
    play_out([client], lambda c, view: rng.choice(view["legal"]))
    client.close()

    page = new_page(browser, server, "Dani")
    page.wait_for_selector("#tables")
    assert page.locator("#tables .listing").count() >= 1  # the tables of the other tests
    page.wait_for_selector(f"#history a[href='/replay/{table['id']}']")
    shot(page, "lobby.png")
    page.click(f"#history a[href='/replay/{table['id']}']")
    page.wait_for_selector(".replay .step")
    assert "reparto" in page.text_content(".replay .step")
    assert page.locator(".replay-seat img.card").count() == 6  # every card shown: the match is over
    page.click("#next")
    assert page.text_content(".replay .step").startswith("2/")
    shot(page, "replay.png")
    page.context.close()
