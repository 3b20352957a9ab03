"""The terminal table as drawn on real terminal sizes (120×40, 80×24, 60×20), read from
the rendered screen, not from the widgets: the whole hand row, the last action of a hand
in the log, the team markers, the quit confirmation (and the record it saves)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content

from truco.actions import MAZO, QUIERO, is_play
from truco.bots import Bot
from truco.locale import DEFAULT_LANGUAGE, set_language
from truco.record import load_record, replay
from truco.rules import Rules
from truco.tui.app import TrucoApp
from truco.tui.cards_text import card_text
from truco.tui.render import action_text
from truco.tui.session import LocalSession
from truco.tui.widgets import QuitScreen
from truco.view import SeatView

SIZES = [(120, 40), (80, 24), (60, 20)]


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    set_language("en")
    yield
    set_language(DEFAULT_LANGUAGE)


def headless(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


class PlainBot(Bot):
    """Accepts every call and plays its first card."""

    name = "plain"

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        if QUIERO in legal:
            return QUIERO
        return next(a for a in legal if is_play(a) or a == MAZO)


async def settle(pilot: Any, app: TrucoApp) -> None:
    for _ in range(3000):
        await pilot.pause()
        if app.is_idle():
            return
    raise AssertionError("the bots never stopped")


def rendered(app: TrucoApp, widget_id: str | None = None) -> list[str]:
    """The lines the terminal shows (of one widget's region, if given)."""
    strips = app.screen._compositor.render_strips()
    if widget_id is None:
        return [strip.text for strip in strips]
    region = app.query_one(widget_id).region
    rows = strips[region.y : region.y + region.height]
    return [strip.crop(region.x, region.x + region.width).text for strip in rows]


def table_for_two_teams(tmp_path: Path) -> tuple[TrucoApp, LocalSession]:
    session = LocalSession(Rules(players=4), human=0, bots=[PlainBot() for _ in range(3)], seed=6)
    return TrucoApp(session, delay=0, save_dir=tmp_path), session


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@headless
async def test_the_table_at_every_size(size: tuple[int, int], tmp_path: Path) -> None:
    app, session = table_for_two_teams(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        screen = rendered(app)
        assert len(screen) == size[1]

        # the whole hand row: every card's full name on one line
        names = [f"{i + 1} {card_text(c)}" for i, c in enumerate(app.view.hand)]
        assert len(names) == 3
        assert any(all(name in line for name in names) for line in screen), (names, screen)

        # the teams, marked and coloured the same for every viewer, partner and rivals named
        seats = "\n".join(rendered(app, "#seats"))
        assert "● You" in seats and "● Tito · partner" in seats
        assert "◆ Rosa · rival" in seats and "◆ Chela · rival" in seats

        # the keys line keeps its way out at every width
        assert "Ctrl+Q: quit" in screen[-1]

        # the hand's closing action reaches the log, and the log shows its end
        await pilot.press("m", "m")  # the person goes to the mazo; the partner plays on
        await settle(pilot, app)
        while not session.game.history:
            await pilot.press(*(["enter"] if app.hand_over() else ["m", "m"]))
            await settle(pilot, app)
        closed = session.game.history[0]
        seat, action = closed.actions[-1]
        last_line = Content.from_markup(action_text(seat, action, session.names)).plain
        log = app.query_one("#log").render().plain
        assert last_line in log.splitlines()  # e.g. "Chela: go to the mazo"
        assert "— Hand 1:" in log
        shown = [line.strip(" │") for line in rendered(app, "#log-box")]
        shown = [line for line in shown if line.strip("╭╮╰╯─ ")]
        assert shown and shown[-1].strip() in log.splitlines()[-1]  # scrolled to the end

        # Ctrl+Q mid-match asks first; Escape goes back to the table
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        assert any("Quit the match?" in line for line in rendered(app))
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen) and app.is_running

        # ...and "w" saves the record so far, then quits
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
    saved = files_in(tmp_path, "truco-*.json")
    assert len(saved) == 1 and app.saved_path == saved[0]
    result = replay(load_record(saved[0].read_bytes()))
    assert result.error is None and result.winner is None  # unfinished, and legal
    assert len(result.hands) >= 1


def files_in(folder: Path, pattern: str) -> list[Path]:
    """The files of ``folder`` matching ``pattern`` (a plain function: the pilot's tests
    are coroutines, and listing a folder blocks)."""
    return sorted(folder.glob(pattern))


@headless
async def test_the_screen_is_spanish_by_default(tmp_path: Path) -> None:
    set_language(DEFAULT_LANGUAGE)
    app, _session = table_for_two_teams(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = "\n".join(rendered(app))
        assert "Tanteador" in screen and "Nosotros" in screen and "compañero" in screen
        assert "Te toca" in screen and "Ctrl+Q: salir" in screen
        assert "Your turn" not in screen and "Score" not in screen


@headless
async def test_quitting_a_finished_match_or_a_record_does_not_ask(tmp_path: Path) -> None:
    session = LocalSession(Rules(players=2), human=None, bots=["random"], seed=1)
    app = TrucoApp(session, delay=0, save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert session.game.is_over
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running and not files_in(tmp_path, "*")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
@headless
async def test_card_buttons_never_cut_a_cards_name(size: tuple[int, int], tmp_path: Path) -> None:
    """Each card button is as wide as its card's name, hand after hand: a button never
    keeps the width of the card it held before ("1 10 de   2 5 de   3 3 de oros")."""
    session = LocalSession(Rules(players=2), human=0, bots=[PlainBot()], seed=3)
    app = TrucoApp(session, delay=0, save_dir=tmp_path)
    checked = 0
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        while not session.game.is_over and checked < 80:
            row = " ".join(rendered(app, "#hand"))
            if not app.hand_over():
                for i, card in enumerate(app.view.hand):
                    assert f"{i + 1} {card_text(card)}" in row, (row, app.view.hand)
                checked += 1
            await pilot.press("enter" if app.hand_over() else "1")
            await settle(pilot, app)
    assert checked >= 20


@headless
async def test_the_mazo_asks_before_leaving_the_hand(tmp_path: Path) -> None:
    """ "m" asks; a second "m" (or "y") goes; any other key says no and does its own job."""
    session = LocalSession(Rules(players=2), human=0, bots=[PlainBot()], seed=5)
    app = TrucoApp(session, delay=0, save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert MAZO in app.view.legal
        await pilot.press("m")
        await settle(pilot, app)
        assert not session.game.history and MAZO not in dict(session.game.actions).values()
        assert any("Press m again (or y)" in line for line in rendered(app, "#message"))

        await pilot.press("escape")  # another key: no
        await settle(pilot, app)
        assert not any("Press m again" in line for line in rendered(app, "#message"))
        await pilot.press("m")
        await settle(pilot, app)
        assert not session.game.history  # asked again, not gone

        await pilot.press("y")
        await settle(pilot, app)
        assert session.game.history and session.game.history[0].actions[-1] == (0, MAZO)

        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("m")
        await pilot.press("1")  # a card instead: no mazo, the card is played
        await settle(pilot, app)
        assert len(session.game.history) == 1 or session.game.history[1].actions[-1] != (0, MAZO)
        assert (0, MAZO) not in session.game.actions


@headless
async def test_the_mazo_button_asks_too(tmp_path: Path) -> None:
    session = LocalSession(Rules(players=2), human=0, bots=[PlainBot()], seed=5)
    app = TrucoApp(session, delay=0, save_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.click(f"#act-{MAZO}")
        await settle(pilot, app)
        assert not session.game.history
        await pilot.pause(0.3)  # (a button ignores a click while it shows the last one)
        await pilot.click(f"#act-{MAZO}")
        await settle(pilot, app)
        assert session.game.history[0].actions[-1] == (0, MAZO)


@headless
async def test_the_screen_tells_the_person_in_the_second_person(tmp_path: Path) -> None:
    set_language(DEFAULT_LANGUAGE)
    session = LocalSession(Rules(players=2), human=0, bots=[PlainBot()], seed=5)
    app = TrucoApp(session, delay=0, save_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("m", "m")
        await settle(pilot, app)
        screen = "\n".join(rendered(app))
        assert "Truco: te fuiste al mazo" in screen
        assert "Vos se fue" not in screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
@headless
async def test_an_analysis_mark_is_whole_and_in_the_screens_language(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Not "INACCURACY: seat 0 play 12b" cut in the title: a sentence in Spanish on a
    Spanish screen, the seat by its name and the cards in words, shown whole."""
    from truco.analysis import analyze
    from truco.analysis.cli import marks_text
    from truco.record import record_from_json
    from truco.tui.viewer import RecordViewer

    set_language(DEFAULT_LANGUAGE)
    record = record_from_json(
        {
            "format": "truco-record/1",
            "rules": {"players": 2, "flor": False, "target": 30},
            "hands": [
                {
                    "deal": [["1e", "1b", "7e"], ["4c", "5o", "6b"]],
                    "actions": [
                        [0, "play 7e"],
                        [1, "play 4c"],
                        [0, "play 1b"],
                        [1, "truco"],
                        [0, "no-quiero"],
                    ],
                }
            ],
        }
    )
    viewer = RecordViewer(record)
    viewer.marks = marks_text(analyze(record), viewer.names)
    mark = viewer.marks[(0, 4)]
    assert mark.startswith("Error grave: Lugar 1 dijo no quiero")
    app = TrucoApp(viewer, save_dir=tmp_path)
    async with app.run_test(size=size) as pilot:
        await pilot.press("end")
        await pilot.pause()
        screen = rendered(app)
        shown = " ".join(" ".join(line.split()) for line in rendered(app, "#message"))
        assert mark in shown, (mark, shown)
        text = "\n".join(screen)
        assert "BLUNDER" not in text and "seat 0" not in text and "Lugar 0" not in text
        assert "Equipo 1" in text and "Equipo 0" not in text  # teams counted from 1 too


def test_seats_and_teams_are_counted_from_one_in_every_screen() -> None:
    """``show`` says "Lugar 1", "Equipo 1" as ``watch`` does (never "Lugar 0")."""
    from truco.record import record_from_json
    from truco.tui.viewer import RecordViewer

    set_language(DEFAULT_LANGUAGE)
    hand = {"deal": [["1e", "1b", "7e"], ["4c", "5o", "6b"]], "actions": []}
    record = {"format": "truco-record/1", "rules": {"players": 2}, "hands": [hand]}
    viewer = RecordViewer(record_from_json(record))
    watching = LocalSession(Rules(players=2), human=None, bots=["random"], seed=1)
    assert viewer.names == watching.names == ("Lugar 1", "Lugar 2")
    assert viewer.team_names == watching.team_names == ("Equipo 1", "Equipo 2")


@pytest.mark.parametrize("lang", ["es", "en"])
@headless
async def test_the_help_says_the_tanto_and_the_mazo_in_words(lang: str, tmp_path: Path) -> None:
    set_language(lang)
    app, _session = table_for_two_teams(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        await pilot.pause()
        from textual.widgets import Markdown

        help_text = " ".join(app.screen.query_one("#help-text", Markdown).source.split())
    assert "+ 20" not in help_text
    if lang == "es":
        assert "20 más las dos cartas" in help_text and "irse al mazo (m pregunta" in help_text
    else:
        assert "20 plus the two cards" in help_text and "1 of swords" in help_text
        assert "go to the mazo (m asks first" in help_text and "irse" not in help_text


def test_bots_go_by_a_name_and_a_level_in_words_never_an_engine_id() -> None:
    """The terminal named them "Bot 2 (search:medium)"; like the page: "Tito", "hard"."""
    from truco.tui.remote import RemoteSession
    from truco.tui.render import seats_markup

    session = LocalSession(
        Rules(players=4), human=0, bots=["search:hard", "simple", "mirror"], seed=1
    )
    assert session.names == ("You", "Rosa", "Tito", "Chela")
    assert session.seat_notes == ("", "hard", "beginner", "mirror")
    from truco.tui.session import bot_level

    ladder = ["beginner", "amateur", "club", "student:club", "master", "search:expert-2026"]
    assert [bot_level(b) for b in ladder] == [
        "beginner",
        "amateur",
        "club player",
        "club player",
        "master",
        "expert 2026",
    ]
    drawn = Content.from_markup(
        seats_markup(session.view(), session.names, {}, session.seat_notes)
    ).plain
    assert "Rosa · rival" in drawn and "hard" in drawn and ":" not in drawn
    set_language("es")
    assert LocalSession(Rules(), human=0, bots=["search:expert"]).seat_notes == ("", "experto")
    # a server's table: its bots' names, their levels from the seats' specs
    seats = [
        {"seat": 0, "kind": "human", "name": "Ana"},
        {"seat": 1, "kind": "bot", "name": "Rosa", "bot": "search:medium"},
        {"seat": 2, "kind": "empty"},
        {"seat": 3, "kind": "human", "name": "Beto", "away": True},
    ]
    table = {"rules": Rules(players=4).to_dict(), "seats": seats}
    remote = RemoteSession("http://x", "ab12cd", "token", table, 0)
    assert remote.names[1] == "Rosa"
    assert remote.seat_notes == ("", "intermedio", "libre", "ausente: lo cubre un bot")


def test_the_log_tells_the_person_they_are_mano() -> None:
    """ "Mano 1, es mano Vos" read as the screen speaking of someone else."""
    from truco.tui.render import log_markup

    set_language("es")
    session = LocalSession(Rules(), human=0, bots=["random"], seed=1)
    assert session.view().mano == 0
    head = Content.from_markup(log_markup(session.view(), session.names)).plain
    assert head.splitlines()[0] == "Mano 1, sos mano"
    rival = log_markup(session.view(), session.names, (), hand_index=1, mano=1)
    assert Content.from_markup(rival).plain.splitlines()[0] == "Mano 2, es mano Rosa"


def test_a_waiting_call_says_who_answers_as_a_player_would() -> None:
    """ "¡truco! — responde Nosotros" named the player's own team in the third person."""
    from truco.tui.render import pending_text
    from truco.view import PendingCall

    set_language("es")
    truco = PendingCall("truco", team=0, level=1)
    assert pending_text(truco, ("Nosotros", "Ellos"), 0, 2) == "¡truco! — te toca responder"
    assert pending_text(truco, ("Nosotros", "Ellos"), 2, 4) == "¡truco! — nos toca responder"
    assert pending_text(truco, ("Ellos", "Nosotros"), 1, 4) == "¡truco! — responden ellos"
    assert pending_text(truco, ("Equipo 1", "Equipo 2")) == "¡truco! — responde Equipo 1"
