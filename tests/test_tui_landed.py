"""The terminal game: a closed hand stays on the table panel, its deciding card drawn,
until the person moves on (Enter, or acting), or online until a short pause passes."""

from __future__ import annotations

import asyncio

import pytest

import truco.tui.app as tui_app
from test_tui import english, headless, one_on_one, settle
from truco.rules import Rules
from truco.tui.app import TrucoApp

__all__ = ["english"]  # the screen is read in English here (an autouse fixture)

server_testing = pytest.importorskip("server_testing")
ServerConfig = pytest.importorskip("truco.server.config").ServerConfig


def table_text(app: TrucoApp) -> str:
    return app.query_one("#table").render().plain


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@headless
async def test_the_third_baza_lands_and_stays_until_enter(size: tuple[int, int]) -> None:
    # 1e beats 2o (ours), 5c beats 4c (theirs), 6b beats 4e: the bot's last card decides
    app, session = one_on_one(("1e 4c 6b", "2o 5c 4e"))
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        for key in ("1", "1", "1"):
            await pilot.press(key)
            await settle(pilot, app)
        assert session.game.hand_index == 1 and app.hand_over()
        table = table_text(app)
        assert "Hand 1 is over" in table
        rows = [line.split() for line in table.splitlines()]
        deciding = next(row for row in rows if row and row[0] == "◆")
        # (the screen is in English: so are the cards)
        assert deciding[-2:] == ["4", "swo"] or deciding[-2:] == ["4", "swords"], table
        short = table.replace("swords", "swo").replace("clubs", "clu").replace("cups", "cup")
        assert all(card in short for card in ("1 swo", "6 clu", "5 cup")), table
        await pilot.press("enter")
        await settle(pilot, app)
        assert "Hand 1 is over" not in table_text(app)
        assert "Hand 1" in app.query_one("#last").render().plain or size == (80, 24)


@headless
async def test_online_the_closed_hand_goes_after_a_pause_or_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tui_app, "LANDED_SECONDS", 0.6)
    from truco.tui.remote import RemoteSession

    config = ServerConfig(db_url="sqlite://", bot_delay=0, turn_seconds=0)
    with server_testing.LiveServer(config) as server:
        session = RemoteSession.connect(
            server.url, name="ana", rules=Rules(target=30), bots=["random"], seat=0
        )
        app = TrucoApp(session, delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(3000):  # leave hands until one closes
                await pilot.pause()
                if "is over" in table_text(app):
                    break
                if app.view.legal:  # the person's turn: to the mazo
                    await pilot.press("m")
                await asyncio.sleep(0.01)
            assert "is over" in table_text(app), table_text(app)
            assert "Hand over" in app.screen_text()
            for _ in range(300):  # the pause passes: the next hand's table
                await pilot.pause()
                if "is over" not in table_text(app):
                    break
                await asyncio.sleep(0.01)
            assert "is over" not in table_text(app)
