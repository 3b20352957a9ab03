"""The replay viewer's post-game analysis in headless Chromium: ask for it, wait for the
background worker, see the evaluation graph and the graded decisions, click to jump."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from browser_kit import ARGS, ARTIFACTS, CHROMIUM, sync_api

from server_testing import LiveServer, TableClient, create_table, guest_token, play_out
from truco.server import ServerConfig


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("e2e-analysis") / "truco.sqlite3"
    config = ServerConfig(
        db_url=f"sqlite:///{db}",
        bot_delay=0,
        turn_seconds=120,
        rate_per_second=1000,  # the script plays as fast as it can
        rate_burst=1000,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
    )
    with LiveServer(config) as live:
        yield live


def test_the_replay_shows_the_analysis_and_jumps_to_a_mistake(server: LiveServer) -> None:
    token = guest_token(server.url, "Script")
    table = create_table(
        server.url, token, rules={"players": 2, "target": 15}, seat=0, bots={"1": "simple"}
    )
    client = TableClient(server.ws_url, table["id"], token)
    rng = random.Random(5)
    play_out([client], lambda c, view: rng.choice(view["legal"]))  # a random player: mistakes
    client.close()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.set_default_timeout(15000)
        page.goto(f"{server.url}/replay/{table['id']}")
        page.wait_for_selector("#analyze")
        page.click("#analyze")
        page.wait_for_selector(".analysis .eval-graph", timeout=300_000)
        assert page.locator(".eval-graph path.eval-line").count() == 1
        assert page.locator(".eval-players tr").count() == 3  # a header and two players
        jumps = page.locator(".eval-jump")
        assert jumps.count() >= 1
        assert page.locator(".eval-graph circle.eval-mark").count() == jumps.count()
        target = int(jumps.first.get_attribute("data-step") or "0")
        jumps.first.click()
        assert page.text_content(".replay .step").startswith(f"{target + 1}/")  # type: ignore[union-attr]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "analysis.png"), full_page=True)
        browser.close()
