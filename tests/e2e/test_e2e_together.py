"""Playing together in headless Chromium: a challenge sent from a profile is seen
and accepted on the other player's page, and both land at the same table; an open
challenge link taken by someone with no session yet; a tournament's page that updates by
itself as a player joins and as the director pairs the first round."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from browser_kit import ARTIFACTS, DESKTOP, config

from server_testing import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(config(tmp_path_factory.mktemp("e2e-together") / "truco.sqlite3")) as live:
        yield live


def page_of(browser: Any, server: LiveServer, path: str = "/", locale: str = "es-AR") -> Any:
    page = browser.new_context(**{**DESKTOP, "locale": locale}).new_page()
    page.set_default_timeout(20000)
    page.on("pageerror", lambda e: print("PAGEERROR", e))
    page.goto(server.url + path)
    return page


def signed_up(browser: Any, server: LiveServer, prefix: str, locale: str = "es-AR") -> Any:
    """A page of a new account (signed up through the lobby's form), and its name."""
    name = f"{prefix}{uuid.uuid4().hex[:5]}"
    page = page_of(browser, server, locale=locale)
    page.wait_for_selector("#signup-form")
    page.fill("#signup-form input[name=name]", name)
    page.fill("#signup-form input[name=password]", "una clave larga 1")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#logout")
    return page, name


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_a_challenge_sent_and_accepted_brings_both_to_one_table(
    browser: Any, server: LiveServer
) -> None:
    ana, _ = signed_up(browser, server, "Ana")
    beto, beto_name = signed_up(browser, server, "Beto", locale="en-US")
    ana.goto(f"{server.url}/u/{beto_name}")  # from his profile: follow him, challenge him
    ana.wait_for_selector("#profile-together #challenge-form")
    ana.click("#follow")
    ana.wait_for_selector("#follow-said:not(:empty)")
    assert ana.input_value("#challenge-form input[name=target]") == beto_name
    ana.click("#challenge-form button[type=submit]")
    ana.wait_for_selector("#challenge-link")
    assert beto_name in ana.text_content("#challenge-sent")
    note = beto.wait_for_selector(".challenge-note")  # on his lobby, without reloading
    assert "challenges you" in note.text_content()
    shot(beto, "together-challenge-received.png")
    note.query_selector("button").click()
    beto.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    ana.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))  # the challenger's page follows
    assert ana.url.split("/t/")[1] == beto.url.split("/t/")[1]
    for page in (ana, beto):
        page.wait_for_selector("#my-hand")  # each sits at the table, their cards dealt
    # at the table, the rival's name opens his profile beside it (to follow, to challenge);
    # your own name is no link
    rival = ana.locator(f'.seat a.who[href="/u/{beto_name}"]')
    assert rival.count() == 1 and rival.get_attribute("target") == "_blank"
    assert ana.locator(".seat.role-you a.who").count() == 0
    ana.goto(f"{server.url}/amigos")  # Beto is a friend now: seen at the table
    friend = ana.wait_for_selector(f'#following li[data-friend="{beto_name}"]')
    assert friend.get_attribute("data-status") == "playing"
    ana.context.close()
    beto.context.close()


def test_an_open_link_is_taken_by_someone_without_a_session(
    browser: Any, server: LiveServer
) -> None:
    cami, cami_name = signed_up(browser, server, "Cami")
    cami.goto(server.url + "/amigos")
    cami.wait_for_selector("#challenge-form")
    cami.click("#challenge-form button[type=submit]")  # nobody named: an open link
    link = cami.get_attribute("#challenge-link", "href")
    assert link and link.startswith("/desafio/")
    newcomer = page_of(browser, server, link)
    newcomer.wait_for_selector("#accept-challenge")
    assert cami_name in newcomer.text_content("#challenge h1")
    newcomer.click("#accept-challenge")
    newcomer.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    cami.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    assert cami.url.split("/t/")[1] == newcomer.url.split("/t/")[1]
    cami.context.close()
    newcomer.context.close()


def test_a_tournament_page_updates_live(browser: Any, server: LiveServer) -> None:
    dani, dani_name = signed_up(browser, server, "Dani")
    eli, eli_name = signed_up(browser, server, "Eli")
    streams: list[int] = []  # the page's notice streams (/api/notices), by their status
    dani.on("response", lambda r: "/api/notices?tournament=" in r.url and streams.append(r.status))
    dani.click("#nav-tournaments")
    dani.wait_for_selector("#tournament-form")
    dani.fill("#tournament-form input[name=name]", "Copa del barrio")
    dani.fill("#tournament-form input[name=starts_in]", "60")
    dani.fill("#tournament-form input[name=rounds]", "2")
    dani.click("#tournament-form button[type=submit]")
    dani.wait_for_selector("#tournament[data-status=open]")
    dani.click("#join")
    dani.wait_for_selector(f'#standings tr[data-player="{dani_name}"]')
    dani.wait_for_timeout(2500)  # past the page's first look: the next is 30 s away
    eli.goto(dani.url)
    eli.wait_for_selector("#join").click()
    # Dani's page shows Eli without being reloaded, at once: its stream told it
    dani.wait_for_selector(f'#standings tr[data-player="{eli_name}"]', timeout=10_000)
    assert streams and streams[0] == 200
    dani.click("#start")
    for page in (dani, eli):  # the director pairs the first round: each page shows it
        page.wait_for_selector("#tournament[data-status=running]")
        page.wait_for_selector("#my-game a")
        page.wait_for_selector("#games li[data-status=playing]")
    shot(eli, "together-tournament-live.png")
    table = dani.get_attribute("#my-game a", "href")
    assert table == eli.get_attribute("#my-game a", "href")
    dani.click("#my-game a")
    dani.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    dani.wait_for_selector("#my-hand")
    dani.context.close()
    eli.context.close()


def test_a_team_challenge_brings_four_to_one_table(browser: Any, server: LiveServer) -> None:
    ana, _ = signed_up(browser, server, "Ana")
    (beto, beto_name), (cami, cami_name), (dani, dani_name) = (
        signed_up(browser, server, prefix) for prefix in ("Beto", "Cami", "Dani")
    )
    ana.goto(server.url + "/amigos")
    ana.wait_for_selector("#challenge-form")
    ana.select_option("#challenge-form select[name=players]", "4")
    ana.fill("#challenge-form input[name=partners]", beto_name)
    ana.fill("#challenge-form input[name=target]", f"{cami_name}, {dani_name}")
    ana.click("#challenge-form button[type=submit]")
    ana.wait_for_selector("#challenge-link")
    for page in (beto, cami):  # a yes that waits for the others: the challenge's page
        page.wait_for_selector(".challenge-note button").click()
        page.wait_for_selector("#challenge-seats")
    assert "esperando" in beto.text_content("#challenge-seats")
    dani.wait_for_selector(".challenge-note button").click()
    for page in (ana, beto, cami, dani):  # the last yes: everyone to the table
        page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    assert len({page.url for page in (ana, beto, cami, dani)}) == 1
    for page in (ana, beto, cami, dani):
        page.context.close()


def test_a_pair_enters_a_2v2_tournament_from_its_page(browser: Any, server: LiveServer) -> None:
    (eva, eva_name), (fede, fede_name) = (signed_up(browser, server, p) for p in ("Eva", "Fede"))
    eva.goto(server.url + "/torneos")
    eva.wait_for_selector("#tournament-form")
    eva.fill("#tournament-form input[name=name]", "Parejas")
    eva.select_option("#tournament-form select[name=players]", "4")
    eva.click("#tournament-form button[type=submit]")
    eva.wait_for_selector("#tournament[data-status=open]")
    eva.fill("#partners", fede_name)
    eva.click("#join")
    row = eva.wait_for_selector(f'#standings tr[data-player="{eva_name} & {fede_name}"]')
    assert row.get_attribute("class") == "me"
    fede.goto(eva.url)  # Fede is in Eva's team: no join button for him, his row marked
    fede.wait_for_selector("#standings tr.me")
    assert fede.query_selector("#join") is None
    eva.context.close()
    fede.context.close()
