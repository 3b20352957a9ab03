"""Moderation in headless Chromium (issue 31): a player reports another from their profile
with a reason and a comment; a moderator (made with ``truco admin role``) opens
``/moderacion``, finds the report with the match's replay one click away, and closes it with a
reason that lands in the audit log; a player who is not a moderator is told the page is not
theirs. axe-core finds nothing serious or critical on the report form or the page."""

from __future__ import annotations

import contextlib
import io
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_kit import ARTIFACTS, DESKTOP, config

from server_testing import LiveServer, create_table
from truco.cli import main

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
AXE = axe_sync.Axe()
PASSWORD = "mate-cocido-7"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("e2e-moderation") / "truco.sqlite3")


@pytest.fixture(scope="module")
def server(db: str) -> Iterator[LiveServer]:
    from pathlib import Path

    with LiveServer(config(Path(db))) as live:
        yield live


def serious(page: Any) -> list[str]:
    found = AXE.run(page, options={"resultTypes": ["violations"]}).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def signed_up(browser: Any, server: LiveServer, name: str) -> Any:
    """A page whose context holds the session of a new account ``name``."""
    context = browser.new_context(**{**DESKTOP, "locale": "es-AR", "base_url": server.url})
    made = context.request.post("/api/accounts", data={"name": name, "password": PASSWORD})
    assert made.ok, made.text()
    # as after logging in on the page: it knows it has a session (app.js, identity.resume)
    context.add_init_script("localStorage.setItem('truco.session', '1')")
    page = context.new_page()
    page.set_default_timeout(15000)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def test_a_report_from_a_profile_reaches_the_moderators_page(
    browser: Any, server: LiveServer, db: str
) -> None:
    tag = uuid.uuid4().hex[:4]
    rude = httpx.post(
        f"{server.url}/api/accounts", json={"name": f"Grosera{tag}", "password": PASSWORD}
    ).json()
    # a report from a table too (its replay is the one the moderator opens)
    table = create_table(
        server.url, rude["token"], rules={"players": 2}, seat=0, bots={"1": "simple"}
    )

    reporter = signed_up(browser, server, f"Testigo{tag}")
    reporter.goto(f"{server.url}/u/Grosera{tag}")
    reporter.click("#report summary")
    reporter.select_option("#report-reason", "name")
    reporter.fill("#report-comment", "el nombre insulta")
    assert serious(reporter) == []
    reporter.click("#report-send")
    reporter.wait_for_selector("#report-note.ok")
    assert f"Grosera{tag}" in reporter.text_content("#report-note")
    from_table = reporter.request.post(
        "/api/reports",
        data={"context": "table", "match_id": table["id"], "seat": 0, "reason": "abuse"},
    )
    assert from_table.ok

    # not a moderator: the page says so
    reporter.goto(f"{server.url}/moderacion")
    reporter.wait_for_selector("#mod-refused")
    assert "moderadores" in reporter.text_content("#mod-refused")

    mod = signed_up(browser, server, f"Moderadora{tag}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["admin", "role", f"Moderadora{tag}", "moderator", "--reason", "e2e",
                       "--db", f"sqlite:///{db}"])  # fmt: skip
    assert status == 0
    mod.goto(f"{server.url}/moderacion")
    mod.wait_for_selector("#reports tbody tr")
    rows = mod.locator("#reports tbody tr")
    assert rows.count() == 2
    text = mod.text_content("#reports")
    assert "el nombre insulta" in text and "Nombre ofensivo" in text and f"Testigo{tag}" in text
    assert serious(mod) == []
    ARTIFACTS.mkdir(exist_ok=True)
    mod.screenshot(path=str(ARTIFACTS / "moderation.png"), full_page=True)
    # the replay, one click away
    replay = mod.locator(f'a[data-replay="{table["id"]}"]')
    assert replay.get_attribute("href") == f"/replay/{table['id']}"
    # closing the profile's report with a reason: gone from the list, in the audit log
    mod.fill("#mod-reason", "nombre cambiado")
    profile_row = mod.locator("#reports tbody tr", has_text="el nombre insulta")
    profile_row.get_by_role("button", name="Cerrar").click()
    mod.wait_for_selector("#mod-status.ok")
    mod.wait_for_function("document.querySelectorAll('#reports tbody tr').length === 1")
    assert "nombre cambiado" in mod.text_content("#audit")
    replay.click()
    mod.wait_for_url(f"**/replay/{table['id']}")
    assert mod.errors == [] and reporter.errors == []


def test_a_player_at_a_table_reports_another_seat(browser: Any, server: LiveServer) -> None:
    tag = uuid.uuid4().hex[:4]
    rude = httpx.post(
        f"{server.url}/api/accounts", json={"name": f"Tosco{tag}", "password": PASSWORD}
    ).json()
    table = create_table(
        server.url, rude["token"], rules={"players": 4}, seat=0, bots={"1": "simple"}
    )
    witness = signed_up(browser, server, f"Vecino{tag}")
    witness.goto(f"{server.url}/t/{table['id']}")
    witness.wait_for_selector("#report-slot #report")
    witness.click("#report summary")
    witness.wait_for_selector(f'#report-seat option:has-text("Tosco{tag}")', state="attached")
    options = witness.locator("#report-seat option").all_text_contents()
    assert options == [f"Tosco{tag}"]  # people only: not the bot, not the empty seats
    witness.select_option("#report-reason", "abuse")
    assert serious(witness) == []
    witness.click("#report-send")
    witness.wait_for_selector("#report-note.ok")
    listed = httpx.get(f"{server.url}/api/tables/{table['id']}").json()
    assert listed["seats"][0]["name"] == f"Tosco{tag}"
    # leaving the table page takes the panel away
    witness.goto(f"{server.url}/ranking")
    witness.wait_for_selector("#report-slot:empty", state="attached")
    assert witness.errors == []
