"""The page's summary of a closed hand is the server's narration (``truco/narrate.py``),
told once per hand in every language and shown in the page's own: a person on an
English page and one on a Spanish page read the same hand in their words, and a page
that comes in after the hand closed reads it too. The narration's wording itself is
tested in tests/test_narrate.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_kit import DESKTOP, config

from server_testing import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(config(tmp_path_factory.mktemp("summary") / "t.sqlite3")) as live:
        yield live


def open_page(browser: Any, url: str, locale: str) -> Any:
    page = browser.new_context(**DESKTOP, locale=locale).new_page()
    page.set_default_timeout(20000)
    page.goto(url)
    return page


def summary_lines(page: Any) -> list[str]:
    page.wait_for_function("() => document.querySelectorAll('#last-hand ul.summary li').length > 0")
    return [li.strip() for li in page.locator("#last-hand ul.summary li").all_text_contents()]


def test_each_page_reads_the_servers_narration_in_its_own_language(
    browser: Any, server: LiveServer
) -> None:
    ana = open_page(browser, server.url + "/", "en-US")
    ana.wait_for_selector("#create-form")
    ana.fill("#name", "Ana")
    ana.dispatch_event("#name", "change")
    ana.wait_for_function("localStorage.getItem('truco.name') === 'Ana'")
    ana.select_option("select[name=players]", "2")
    ana.select_option("select[name=bots]", "simple")  # it does not leave a hand at once
    ana.click("#create")
    ana.wait_for_url("**/t/*")
    vero = open_page(browser, ana.url, "es-AR")  # a Spanish spectator
    vero.wait_for_selector(".seat")

    # Ana leaves the first hand as soon as she may: the bot's team scores it. The look and
    # the click are one step in the page, and she clicks once: the button sends the mazo at
    # once, and a second click that reached the server after hand 1 closed would send her
    # to the mazo in hand 2 as well (the page itself sends one action per state it shows)
    ana.wait_for_function(
        """() => {
            if (window.truco?.summary) return true;
            const mazo = document.querySelector('#actions button[data-action="mazo"]');
            if (mazo && !mazo.disabled && !window.mazoClicked) {
                mazo.click();
                window.mazoClicked = true;
            }
            return false;
        }""",
        polling=200,
    )
    english, spanish = summary_lines(ana), summary_lines(vero)
    assert "How hand 1 was scored" in ana.text_content("#last-hand h2")
    assert "Cómo se anotó la mano 1" in vero.text_content("#last-hand h2")
    assert len(english) == len(spanish) >= 1
    assert any(re.fullmatch(r"Truco: .+ — (Blue|Red) \+\d", line) for line in english), english
    assert any(re.fullmatch(r"Truco: .+ — (Azules|Rojos) \+\d", line) for line in spanish), spanish
    assert all(re.search(r"Rosa|Ana|you ", line) for line in english if "Truco" in line)
    # the story is told to Ana on her page, of her to the spectator
    if any("Ana se fue al mazo" in line for line in spanish):
        assert any("Truco: you went to the mazo" in line for line in english), english
    # the Spanish page's words are all Spanish, the English page's all English
    assert not any(word in " ".join(spanish) for word in (" won ", " went ", "did not", "Blue"))
    assert not any(word in " ".join(english) for word in ("ganó", " se fue", "no quiso", "Azul"))

    # a page that comes in after the hand closed reads the same words (a full state)
    late = open_page(browser, ana.url, "es-AR")
    assert summary_lines(late) == spanish
    for page in (ana, vero, late):
        page.context.close()
