"""The game's moments in headless Chromium: a hand lands (its deciding card drawn, the
closed hand kept on the table until the player moves on or a pause passes, the recap
naming every baza's cards; a speech bubble clear of the "mano" badge), and a rated
match between two accounts ends like an event (the result, each rating's move, the
links to the replay and its analysis, and a rematch both accept, at a new table with
the same seats). Screenshots go to ``tests/e2e/artifacts/``."""

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

SUITS = {"e": "espadas", "b": "bastos", "o": "oros", "c": "copas"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(config(tmp_path_factory.mktemp("moment") / "t.sqlite3")) as live:
        yield live


#: ``window.press(selectors)``: click the first of ``selectors`` shown and enabled
PRESS = """window.press = (selectors) => {
    for (const selector of selectors) {
        const target = document.querySelector(selector);
        if (target && !target.disabled) { target.click(); return true; }
    }
    return false;
};"""
QUIERO = '#actions button[data-action="quiero"]'
NO_QUIERO = '#actions button[data-action="no-quiero"]'
MAZO = '#actions button[data-action="mazo"]'
CARD = "#my-hand .card-button.playable"


def open_page(browser: Any, url: str, **context: Any) -> Any:
    page = browser.new_context(**{**DESKTOP, "locale": "es-AR", **context}).new_page()
    page.add_init_script(PRESS)
    page.set_default_timeout(30000)
    page.on("pageerror", lambda e: print("PAGEERROR", e))
    page.goto(url)
    return page


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def spanish(card: str) -> str:
    return f"{card[:-1]} de {SUITS[card[-1]]}"


def table_against_a_bot(browser: Any, server: LiveServer, **context: Any) -> Any:
    page = open_page(browser, server.url + "/", **context)
    page.wait_for_selector("#create-form")
    page.fill("#name", "Ana")
    page.dispatch_event("#name", "change")
    page.wait_for_function("localStorage.getItem('truco.name') === 'Ana'")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=bots]", "simple")
    page.click("#create")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("#my-hand")
    return page


#: One step of Ana's: move on from a closed hand that is not the one looked for, answer
#: quiero, play a card; true once a hand decided by its third baza lands.
PLAY_UNTIL_THIRD_BAZA = """() => {
    const landed = window.truco?.landed;
    if (landed && window.truco.state.view.winner === null) {
        const third = landed.bazas[2];
        if (third && third.cards.length === 2 && landed.hand.played.length === 6
            && landed.hand.actions.at(-1)[1].startsWith('play ')) return true;
        document.querySelector('#move-on')?.click();
        return false;
    }
    window.press([QUIERO, CARD]);
    return false;
}""".replace("QUIERO", repr(QUIERO)).replace("CARD", repr(CARD))


@pytest.mark.slow
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_deciding_card_is_drawn_and_the_hand_stays_until_one_moves_on(
    browser: Any, server: LiveServer, screen: str
) -> None:
    page = table_against_a_bot(browser, server, **(PHONE if screen == "phone" else {}))
    page.wait_for_function(PLAY_UNTIL_THIRD_BAZA, polling=150, timeout=240_000)
    hand = page.evaluate("window.truco.landed.hand")
    deciding = hand["played"][-1][1]
    # the last card is on the board, in its seat's third slot, with the result of the hand
    page.wait_for_selector("#landed")
    slot = page.locator(f'.board .slot[data-baza="2"] img[data-card="{deciding}"]')
    assert slot.count() == 1 and slot.is_visible()
    assert page.locator(".board .bazas-row img.card").count() == 6
    assert f"Terminó la mano {hand['index'] + 1}" in page.text_content("#landed")
    assert (
        page.locator(".board .slot.won").count() + page.locator(".board .slot.parda").count() >= 2
    )
    # the recap names every card of every baza, and who won each
    recap = page.text_content("#recap-bazas")
    for _seat, card in hand["played"]:
        assert spanish(card) in recap, (card, recap)
    assert page.locator("#recap-bazas li").count() == 3
    # spoken to Ana, not of her: her bazas are "vos", her cards "Vos: ..."
    results = page.evaluate("window.truco.landed.bazas.map((b) => b.result)")
    strip = page.locator(".baza-strip li").all_text_contents()
    for result, said in zip(results, strip, strict=True):
        if result and not result.get("parda"):
            assert said.endswith("vos" if result["seat"] == 0 else "Rosa (principiante)"), strip
    assert "Vos: " in recap and "Ana:" not in recap
    shot(page, f"hand-landed-{screen}.png")
    # Enter moves on (the button has the focus): the next hand's board
    assert page.evaluate("document.activeElement.id") == "move-on"
    page.keyboard.press("Enter")
    page.wait_for_selector("#landed", state="detached")
    # the board holds the new hand's cards only: the bot may be mano and have played already,
    # even the deciding card again (it can be dealt again)
    page.wait_for_function(
        """(closedIndex) => {
            const view = window.truco.state.view;
            const board = [...document.querySelectorAll('.board .bazas-row img.card')]
                .map((img) => img.dataset.card).sort();
            const played = view.played.map(([, card]) => card).sort();
            return view.hand_index === closedIndex + 1
                && JSON.stringify(board) === JSON.stringify(played);
        }""",
        arg=hand["index"],
        timeout=10_000,
    )
    # the next closed hand goes by itself after a pause
    closed = page.evaluate("window.truco.summary.index")
    page.wait_for_function(
        """([closed, choices]) => {
            if (window.truco.summary.index > closed) return true;
            window.press(choices);
            return false;
        }""",
        arg=[closed, [QUIERO, CARD]],
        polling=150,
        timeout=120_000,
    )
    if page.evaluate("window.truco.state.view.winner") is None:
        page.wait_for_selector("#landed")
        started = time.monotonic()
        page.wait_for_selector("#landed", state="detached", timeout=15_000)
        assert 2 <= time.monotonic() - started <= 10
    page.context.close()


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_speech_bubble_leaves_the_mano_badge_in_view(
    browser: Any, server: LiveServer, screen: str
) -> None:
    page = table_against_a_bot(browser, server, **(PHONE if screen == "phone" else {}))
    # Ana sings envido (or anything) in a hand she is mano of: her bubble and her badge
    page.wait_for_function(
        """(choices) => {
            const mine = document.querySelector('.seat.role-you');
            if (mine?.querySelector('.bubble') && mine.querySelector('.badge.mano')) return true;
            document.querySelector('#move-on')?.click();
            const view = window.truco.state.view;
            const call = ['envido', 'flor', 'truco'].find((a) => view.legal.includes(a));
            if (view.mano === view.seat && !view.played.length && call) {
                document.querySelector(`#actions button[data-action="${call}"]`)?.click();
                return false;
            }
            window.press(choices);
            return false;
        }""",
        arg=[QUIERO, MAZO],
        polling=200,
        timeout=120_000,
    )
    # the longest calls take two lines in a narrow seat: the bubble grows away from the name
    boxes = page.evaluate(
        """() => {
            const seat = document.querySelector('.seat.role-you');
            const long = '¡Contraflor al resto! ¡Quiero vale cuatro!';
            seat.querySelector('.bubble').textContent = long;
            return ['.bubble', '.badge.mano', '.seat-name'].map((part) => {
                const b = seat.querySelector(part).getBoundingClientRect();
                return [b.left, b.top, b.right, b.bottom];
            });
        }"""
    )
    bubble, badge, name = boxes
    for other in (badge, name):
        apart = (
            bubble[2] <= other[0]
            or other[2] <= bubble[0]
            or bubble[3] <= other[1]
            or other[3] <= bubble[1]
        )
        assert apart, (bubble, other)
    shot(page, f"bubble-and-mano-{screen}.png")
    page.context.close()


# ------------------------------------------------------------------ the end of a match
def account_page(browser: Any, server: LiveServer, name: str, **context: Any) -> Any:
    """A page signed up (through the lobby's form) as account ``name``."""
    page = open_page(browser, server.url + "/", **context)
    page.fill("#signup-form input[name=name]", name)
    page.fill("#signup-form input[name=password]", "una clave larga")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#logout")
    return page


def play_to_the_end(winner: Any, loser: Any, timeout: float = 300.0) -> None:
    """The loser refuses every call and leaves every hand; the winner plays its cards."""
    deadline = time.monotonic() + timeout
    while not (winner.locator("#match-end").count() and loser.locator("#match-end").count()):
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


@pytest.mark.slow
def test_a_rated_match_ends_with_the_ratings_the_links_and_a_rematch_both_accept(
    browser: Any, server: LiveServer
) -> None:
    tag = uuid.uuid4().hex[:4]
    ana = account_page(browser, server, f"Ana{tag}")
    beto = account_page(browser, server, f"Beto{tag}", **PHONE)
    created = ana.context.request.post(
        server.url + "/api/tables",
        data={"rules": {"players": 2, "target": 15}, "seat": 0, "rated": True},
    )
    assert created.status == 201, created.text()
    table_id = created.json()["id"]
    ana.goto(f"{server.url}/t/{table_id}")
    beto.goto(f"{server.url}/t/{table_id}")
    beto.click('.seat[data-seat="1"] button.sit')
    for page in (ana, beto):
        page.wait_for_selector("#my-hand")
    play_to_the_end(ana, beto)

    # the result, then each rating's move, as the server recorded it
    result = httpx.get(f"{server.url}/api/matches/{table_id}/result").json()
    deadline = time.monotonic() + 30
    while "ratings" not in result and time.monotonic() < deadline:
        time.sleep(0.1)
        result = httpx.get(f"{server.url}/api/matches/{table_id}/result").json()
    up, down = sorted(result["ratings"], key=lambda r: r["seat"])
    assert up["before"] == down["before"] == 1500 and up["after"] > 1500 > down["after"]
    for page in (ana, beto):
        page.wait_for_selector("#rating-changes li")
        end = page.text_content("#match-end")
        assert "Resultado: 15 a" in end
        assert f"Ana{tag}: 1500 → {up['after']} (+{up['after'] - 1500})" in end
        assert f"Beto{tag}: 1500 → {down['after']} (−{1500 - down['after']})" in end
        assert page.get_attribute("#replay-link", "href") == f"/replay/{table_id}"
        assert page.get_attribute("#analyze-link", "href") == f"/replay/{table_id}?analyze"
    assert "¡Ganamos!" in ana.text_content("#match-end h2")
    assert "¡Ganaron ellos!" in beto.text_content("#match-end h2")
    # the last hand's story is told to Beto, who left it, and of him to Ana
    assert "te fuiste al mazo" in beto.text_content("#last-hand")
    assert f"Beto{tag} se fue al mazo" in ana.text_content("#last-hand")
    # the last hand stays on the table under the result
    last = ana.evaluate("window.truco.landed.hand")
    assert last["index"] == ana.evaluate("window.truco.state.view.last_hand.index")
    assert ana.locator(".board .bazas-row img.card").count() == len(last["played"])
    shot(ana, "rated-match-end-desktop.png")
    shot(beto, "rated-match-end-phone.png")

    # the rematch: Ana asks, Beto sees it and accepts; both land at a new table, same seats
    ana.click("#rematch-accept")
    ana.wait_for_selector("#rematch-decline")
    beto.wait_for_function(
        "(text) => document.querySelector('#rematch').textContent.includes(text)",
        arg=f"Ana{tag} quiere la revancha",
    )
    beto.click("#rematch-accept")
    for page in (ana, beto):
        page.wait_for_url(lambda url: "/t/" in url and table_id not in url, timeout=30000)
        page.wait_for_selector("#my-hand")
    assert ana.url == beto.url
    new = httpx.get(f"{server.url}/api/tables/{ana.url.rsplit('/', 1)[1]}").json()
    assert [s["name"] for s in new["seats"]] == [f"Ana{tag}", f"Beto{tag}"]
    assert new["rated"] is True and new["rules"]["target"] == 15
    shot(beto, "rematch-phone.png")

    # the links work: the replay, and the analysis started at once
    watcher = open_page(browser, f"{server.url}/t/{table_id}")
    with contextlib.suppress(sync_api.TimeoutError):
        watcher.wait_for_selector("#match-end", timeout=5000)
    watcher.goto(f"{server.url}/replay/{table_id}")  # (the table left memory once empty)
    watcher.wait_for_selector(".replay #next")
    watcher.goto(f"{server.url}/replay/{table_id}?analyze")
    watcher.wait_for_selector(".analysis .step, .analysis .eval-graph")
    for page in (ana, beto, watcher):
        page.context.close()


def test_the_links_of_the_end_open_the_replay_and_its_analysis(
    browser: Any, server: LiveServer
) -> None:
    page = table_against_a_bot(browser, server)
    table_id = page.url.rsplit("/", 1)[1]
    watcher = open_page(browser, page.url)  # a spectator: the end screen without a seat
    watcher.wait_for_selector(".spectating")
    page.wait_for_function(
        """(choices) => {
            if (document.querySelector('#match-end')) return true;
            window.press(choices);
            return false;
        }""",
        arg=[NO_QUIERO, MAZO],
        polling=100,
        timeout=240_000,
    )
    assert page.locator("#rating-changes").count() == 0  # a casual match moves no rating
    assert page.locator("#rematch-accept").count() == 1
    watcher.wait_for_selector("#match-end")
    assert watcher.locator("#rematch-accept").count() == 0  # only the players answer
    page.click("#replay-link")
    page.wait_for_url(f"**/replay/{table_id}")
    page.wait_for_selector(".replay #next")
    watcher.click("#analyze-link")
    watcher.wait_for_url(f"**/replay/{table_id}?analyze")
    watcher.wait_for_selector(".analysis .step, .analysis .eval-graph")
    page.context.close()
    watcher.context.close()
