"""The replay viewer and its post-game analysis in headless Chromium: the table drawn
as in play, arrow keys and the move list, a mark that jumps to the move it names with
the better move on the board, words (not engine tokens) in both languages, and no
horizontal overflow on a 360 px phone."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_kit import ARGS, ARTIFACTS, CHROMIUM, sync_api

from server_testing import LiveServer
from truco.arena.match import play_match
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.storage.rows import MatchRow
from truco.server.storage.store import Store

MATCH = "replay1"
TEAMS = "replay6"
#: engine tokens a person must never read
TOKENS = re.compile(
    r"\bplay \d+[ebco]\b|\bno-quiero\b|\bvale-cuatro\b|\breal-envido\b|\bfalta-envido\b"
)


def _record() -> dict[str, Any]:
    """A finished 1v1 match, simple (Ana) against random (Beto): Beto errs."""
    result = play_match(("simple", "random"), Rules(target=15), 3, 0, False, True)
    assert result.record is not None
    record = result.record
    record["headers"] = {**record.get("headers", {}), "seats": ["Ana", "Beto"]}
    return record


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("e2e-analysis") / "truco.sqlite3"
    record = _record()
    now = time.time()
    table = {"rules": record["rules"], "seats": [{"name": "Ana"}, {"name": "Beto"}]}
    teams = play_match(("simple", "random"), Rules(players=6, target=15), 4, 0, False, True).record
    assert teams is not None
    six = {"rules": teams["rules"], "seats": [{"name": f"P{i}"} for i in range(6)]}
    Store(f"sqlite:///{db}").write(
        [
            MatchRow(MATCH, "t", "finished", now, now, 1, 0, table, record),
            MatchRow(TEAMS, "t6", "finished", now, now, 1, 0, six, teams),
        ]
    )
    config = ServerConfig(
        db_url=f"sqlite:///{db}", bot_delay=0,
        http_rate="100000/minute", http_write_rate="100000/minute",
    )  # fmt: skip
    with LiveServer(config) as live:
        yield live


def _page(
    browser: Any, server: LiveServer, lang: str, width: int = 1280, match: str = MATCH
) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 800})
    context.add_init_script(f"localStorage.setItem('truco.lang', '{lang}')")
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{server.url}/replay/{match}")
    page.wait_for_selector(".replay-board")
    return page


def _analysed(page: Any) -> None:
    """The analysis on the page: asked for, unless the page finds it already made (the
    button is replaced as the page learns so: a click may find it gone)."""
    page.wait_for_selector("#analyze, .analysis .eval-graph")
    if page.locator(".eval-graph").count() == 0:
        with contextlib.suppress(sync_api.TimeoutError):
            page.click("#analyze", timeout=5000)
    page.wait_for_selector(".analysis .eval-graph", timeout=300_000)


def _step(page: Any) -> int:
    text = page.text_content(".replay .step") or ""
    return int(text.split("/")[0])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def test_arrow_keys_and_the_move_list_step_through_the_table(
    server: LiveServer, browser: Any
) -> None:
    page = _page(browser, server, "es")
    assert page.locator(".replay-board .seat").count() == 2
    assert page.locator(".replay-board .replay-hand img.card").count() == 6  # both hands, face up
    total = int((page.text_content(".replay .step") or "").split("/")[1].split(" ")[0])
    page.keyboard.press("ArrowRight")
    assert _step(page) == 2
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert _step(page) == 2
    page.keyboard.press("End")
    assert _step(page) == total
    page.keyboard.press("Home")
    assert _step(page) == 1
    page.locator(".move-list button.move").nth(4).click()
    assert _step(page) == 5
    assert page.locator(".move-list button.move.current").get_attribute("data-step") == "4"


def test_the_closing_step_shows_the_card_just_played(server: LiveServer, browser: Any) -> None:
    page = _page(browser, server, "es")
    steps = page.locator(".move-list button.move")
    closing = None
    for k in range(1, steps.count()):
        steps.nth(k).click()
        if page.locator(".replay-board .just-closed").count() and "jugó el" in (
            page.text_content(".replay .step") or ""
        ):
            closing = k
            break
    assert closing is not None, "no hand closed on a card"
    played = page.locator(".replay-board .slot img.just-played")
    assert played.count() == 1
    card_alt = played.get_attribute("alt") or ""
    assert card_alt and card_alt in (page.text_content(".replay .step") or "")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_mark_jumps_to_its_move_in_words(server: LiveServer, browser: Any, lang: str) -> None:
    page = _page(browser, server, lang)
    _analysed(page)
    jumps = page.locator(".eval-jump")
    assert jumps.count() >= 1
    assert page.locator(".eval-graph circle.eval-mark").count() == jumps.count()
    assert page.locator(".eval-graph .eval-tick").count() >= 4  # axes with ticks
    assert page.locator(".eval-legend li").count() == 4
    mark = jumps.first
    target = int(mark.get_attribute("data-step") or "0")
    mark_text = mark.text_content() or ""
    mark.click()
    assert _step(page) == target + 1
    step_text = page.text_content(".replay .step") or ""
    did = step_text.split(" · ", 1)[1]
    assert did in mark_text  # the step is the move the mark names, named as such
    assert page.locator("#replay-note .replay-mark").count() == 1
    better = page.locator(".replay-board [data-better]")
    assert better.count() == 1  # the better move drawn on the board
    body = page.inner_text("body")
    assert not TOKENS.search(body), TOKENS.search(body)
    if lang == "es":
        assert "mejor:" in mark_text and ("jugó el" in body or "cantó" in body)
        assert "Analysis" not in body and "better" not in body
    else:
        assert "better:" in mark_text and "Analysis" in body
        assert "jugó" not in body and "mejor" not in body.lower() and "Análisis" not in body
    page.keyboard.press("ArrowLeft")  # the board before the move
    assert _step(page) == target
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"analysis-{lang}.png"), full_page=True)
    page.context.close()


def test_the_replay_with_analysis_fits_a_360_px_phone(server: LiveServer, browser: Any) -> None:
    page = _page(browser, server, "es", width=360)
    _analysed(page)
    page.locator(".eval-jump").first.click()
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "analysis-360.png"), full_page=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "analysis-360-board.png"))
    page.context.close()


def test_a_3v3_replay_fits_a_360_px_phone(server: LiveServer, browser: Any) -> None:
    page = _page(browser, server, "en", width=360, match=TEAMS)
    assert page.locator(".replay-board .seat").count() == 6
    ARTIFACTS.mkdir(exist_ok=True)
    for _ in range(8):  # through the first moves, cards on the table
        page.keyboard.press("ArrowRight")
        width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        page.screenshot(path=str(ARTIFACTS / "replay-3v3-360.png"))
        assert width[0] <= width[1], width
    page.context.close()
