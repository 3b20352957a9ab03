"""Refusals on the page, in headless Chromium: a key pressed for an action that is not
legal now says why, in the page's language, worded from the refusal's code (the page
asks the server with a ``why`` message: nothing is played); in 2v2 the player who is
not the pie sees the Envido button disabled and the reason beside it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_kit import DESKTOP, config

from server_testing import LiveServer

WORDS = {
    "es": {
        "sin_flor": "En esta mesa se juega sin flor.",
        "pie": "En equipos solo el pie (el último de cada equipo) canta el envido.",
    },
    "en": {
        "sin_flor": "This table is played sin flor.",
        "pie": "In teams only the pie (the last player of each team) opens the envido.",
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(config(tmp_path_factory.mktemp("e2e") / "truco.sqlite3")) as live:
        yield live


def table_page(browser: Any, server: LiveServer, lang: str, players: int) -> Any:
    locale = "es-AR" if lang == "es" else "en-US"
    page = browser.new_context(**DESKTOP, locale=locale).new_page()
    page.set_default_timeout(30000)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda data: sent.append(str(data))))
    page.goto(server.url + "/")
    page.wait_for_selector("#create-form")
    page.select_option("select[name=players]", str(players))
    page.select_option("select[name=flor]", "false")
    page.select_option("select[name=bots]", "random")
    page.click("#create")
    page.wait_for_url("**/t/*")
    page.sent = sent  # the frames the page sent
    return page


@pytest.mark.parametrize("lang", ["es", "en"])
def test_an_illegal_key_says_why_in_the_pages_language(
    browser: Any, server: LiveServer, lang: str
) -> None:
    page = table_page(browser, server, lang, players=2)
    page.wait_for_selector('#actions button[data-action="mazo"]')  # my turn, or my answer
    acts = sum('"act"' in frame for frame in page.sent)
    page.keyboard.press("l")  # flor, on a table sin flor
    page.wait_for_function(
        "text => document.querySelector('#banner')?.textContent === text",
        arg=WORDS[lang]["sin_flor"],
    )
    assert "error" in (page.get_attribute("#banner", "class") or "")
    assert any('"why"' in frame and '"flor"' in frame for frame in page.sent)
    assert sum('"act"' in frame for frame in page.sent) == acts  # nothing was played
    page.context.close()


@pytest.mark.parametrize("lang", ["es", "en"])
def test_in_2v2_the_player_who_is_not_the_pie_sees_why_there_is_no_envido(
    browser: Any, server: LiveServer, lang: str
) -> None:
    page = table_page(browser, server, lang, players=4)
    deadline = time.monotonic() + 120
    while True:  # play cards until my turn comes while only my partner may open the envido
        assert time.monotonic() < deadline, "never my turn before my partner's in a first baza"
        page.wait_for_selector('#actions button[data-action="mazo"]')
        hint = page.locator("#envido-hint")
        if hint.count():
            break
        button = page.locator("#my-hand button.playable").first
        if page.locator('#actions button[data-action="no-quiero"]').count():
            page.keyboard.press("n")
        elif button.count():
            button.click()
        page.wait_for_timeout(150)
    page.wait_for_function(
        "text => document.querySelector('#envido-hint')?.textContent === text",
        arg=WORDS[lang]["pie"],
    )
    envido = page.locator('#actions button[data-action="envido"]')
    assert envido.get_attribute("aria-disabled") == "true"
    page.keyboard.press("e")  # the key says the same, and plays nothing
    page.wait_for_function(
        "text => document.querySelector('#banner')?.textContent === text",
        arg=WORDS[lang]["pie"],
    )
    assert not any('"act"' in f and '"envido"' in f for f in page.sent)
    page.context.close()
