"""The terminal game, driven headless through Textual's pilot."""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from truco.actions import ENVIDO, MAZO, QUIERO, is_play, is_say, parse_action
from truco.bots import Bot
from truco.cards import RANK, parse_card
from truco.cli import main as truco_main
from truco.deal import Deal, SeededDealer
from truco.game import Game
from truco.locale import DEFAULT_LANGUAGE, set_language
from truco.record import load_record
from truco.rules import Rules
from truco.tui.app import TrucoApp
from truco.tui.cards_text import card_text, suit_text
from truco.tui.keys import CALL_KEYS, CARD_KEYS
from truco.tui.session import LocalSession
from truco.tui.viewer import RecordViewer
from truco.tui.widgets import RULES_HELP, HelpScreen
from truco.view import SeatView
from util import deal

RECORDS = Path(__file__).parent / "records"


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """These tests read the screen in English (tests/test_tui_spanish.py reads it in
    Spanish, the default)."""
    set_language("en")
    yield
    set_language(DEFAULT_LANGUAGE)


def headless(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async pilot test on its own event loop (no pytest plugin needed)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


class FirstHandDealer:
    """The given cards for the first hand, then reproducible deals."""

    def __init__(self, first: Deal, seed: int = 1) -> None:
        self.first = first
        self.rest = SeededDealer(seed)

    def deal(self, players: int, hand_index: int) -> Deal:
        return self.first if hand_index == 0 else self.rest.deal(players, hand_index)


class PoliteBot(Bot):
    """Accepts every call and plays its first card: a predictable rival."""

    name = "polite"

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        if QUIERO in legal:
            return QUIERO
        return next(a for a in legal if is_play(a) or a == MAZO)


async def settle(pilot, app: TrucoApp, limit: int = 5000) -> None:
    """Let the bots act until the table waits for the person (no clocks involved)."""
    for _ in range(limit):
        await pilot.pause()
        if app.is_idle():
            return
    raise AssertionError("the bots never stopped")


def person_key(app: TrucoApp) -> str:
    """The key of the person's first legal action (or Enter after a hand)."""
    if app.hand_over():
        return "enter"
    view = app.view
    for action in view.legal:
        if is_play(action):
            return CARD_KEYS[view.hand.index(action)]
        if not is_say(action):
            return CALL_KEYS[action]
    raise AssertionError(f"nothing to press: {view.describe()}")


def card_short(card: int) -> str:
    return f"{RANK[card]} {suit_text(card)}"


def shows(text: str, card: int) -> bool:
    """Whether ``text`` names ``card`` (long or short form; "1 de oros" is not "11 de oros")."""
    return any(
        re.search(rf"(?<!\d){re.escape(name)}", text)
        for name in (card_text(card), card_short(card))
    )


def one_on_one(cards: tuple[str, str], **app_options: object) -> tuple[TrucoApp, LocalSession]:
    game = Game(Rules(), dealer=FirstHandDealer(deal(*cards)))
    session = LocalSession(Rules(), human=0, bots=[PoliteBot()], game=game)
    return TrucoApp(session, delay=0, **app_options), session  # type: ignore[arg-type]


@headless
async def test_a_hand_of_1v1_call_answer_play_and_score() -> None:
    app, session = one_on_one(("1e 3c 4b", "2o 5c 6e"))
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot, app)
        text = app.screen_text()
        assert "Your turn" in text
        # English words on an English screen: "1 of swords", not "1 de espadas"
        assert "1 1 of swords" in text and "e envido" in text and "t truco" in text
        assert "m go to the mazo" in text and " de espadas" not in text and "irse" not in text
        await pilot.press("e")  # envido; the bot answers quiero at once
        await settle(pilot, app)
        assert [a for _, a in session.game.actions][-1] == QUIERO
        text = app.screen_text()
        assert "You: envido" in text and "quiero" in text
        assert "Envido: You 4 · Rosa 6" in text  # the showdown
        await pilot.press("1")  # 1 of swords; the bot plays 2 of coins
        await settle(pilot, app)
        table = app.query_one("#table").render().plain
        rows = [line.split() for line in table.splitlines()]
        assert ["1st"] in rows  # the bazas laid out per seat, who won each under them
        assert ["●", "You", "1", "swords"] in rows and ["◆", "Rosa", "2", "coins"] in rows
        assert ["Us"] in rows
        await pilot.press("1")  # 3 of cups beats 5 of cups: the hand is ours
        await settle(pilot, app)
        assert session.game.score == (1, 2)
        assert app.hand_over()
        text = app.screen_text()
        assert "Hand over" in text
        assert "— Hand 1: Us +1, Them +2 (1-2)" in text  # the log: what each team scored...
        assert "Envido: Rosa won with 6 — Them +2" in text  # ...and why, in words
        assert "Truco: not called, won on the bazas (1st Us, 2nd Us) — Us +1" in text
        assert "You: 3 of cups" in text  # the card that closed the hand is in the log
        assert "shows 6 of swords" in text  # the winning tanto is shown when the hand closes
        assert "1 · 1 malas" in text and "2 · 2 malas" in text
        await pilot.press("1")  # the next hand waits for Enter
        assert "press Enter" in app.message
        await pilot.press("enter")
        await settle(pilot, app)
        assert not app.hand_over() and session.game.hand_index == 1


@headless
async def test_illegal_keys_do_nothing_and_say_why() -> None:
    app, session = one_on_one(("1e 3c 4b", "2o 5c 6e"))
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot, app)
        for key, why in [
            ("q", "Not now: there is no call to answer"),
            ("n", "Not now: there is no call to answer"),
            ("l", "Not now: this table is played sin flor"),
            ("s", "the megaphone is only for 2v2 and 3v3 tables"),  # 1v1: no team talk
            ("z", "does nothing"),
            ("left_square_bracket", "does nothing"),
        ]:
            await pilot.press(key)
            assert why in app.message, (key, app.message)
            assert app.message in app.screen_text()
            assert session.game.actions == []
        await pilot.press("t")
        await settle(pilot, app)  # the bot accepts the truco...
        assert session.game.truco_level == 1
        before = list(session.game.actions)
        await pilot.press("t")  # ...so only the bot's team may raise to retruco
        assert app.message == "Not now: only the team that accepted the last call may raise"
        assert session.game.actions == before
        await pilot.press("e")  # and the envido is gone once the truco is accepted
        assert "the envido is closed once the truco has been accepted" in app.message
        assert app.message in app.screen_text() and session.game.actions == before
        await pilot.press("3")  # a legal key clears the message and plays its card
        assert app.message == "" and session.game.actions[len(before)] == (0, parse_card("4b"))


@headless
async def test_a_refused_key_is_worded_in_spanish_from_its_code() -> None:
    """2v2, the person is the mano (not the pie): no envido, and the screen says why in
    Spanish, from the refusal's code (no English sentence parsed)."""
    set_language("es")
    rules = Rules(players=4)
    cards = deal("1e 3c 4b", "2o 5c 6e", "7o 4c 5b", "6b 7c 10e")
    game = Game(rules, dealer=FirstHandDealer(cards))
    session = LocalSession(rules, human=0, bots=[PoliteBot()] * 3, game=game)
    app = TrucoApp(session, delay=0)
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot, app)
        assert session.game.turn == 0 and not session.game.is_pie(0)
        await pilot.press("e")
        why = "en equipos solo el pie (el último de cada equipo) canta el envido"
        assert why in app.message and why in app.screen_text()
        assert session.game.actions == []
        await pilot.press("q")
        assert "no hay nada cantado para contestar" in app.message


@pytest.mark.parametrize("players", [2, 4, 6])
@headless
async def test_the_person_never_sees_a_bots_unplayed_card(players: int) -> None:
    rules = Rules(players=players, flor=True)
    session = LocalSession(rules, human=1, bots=["random"], seed=11)
    app = TrucoApp(session, delay=0)
    async with app.run_test(size=(140, 42)) as pilot:
        for _ in range(60):
            await settle(pilot, app)
            if session.game.history:  # the first hand closed: its shown cards are public
                break
            text = app.screen_text()
            for seat in range(players):
                if seat == 1:
                    continue
                for card in session.game.hand_cards(seat):
                    assert not shows(text, card), (seat, card_text(card))
            await pilot.press(person_key(app))
        else:
            raise AssertionError("the first hand never closed")


@headless
async def test_a_2v2_match_with_bots_runs_to_its_end_and_saves_a_record(
    tmp_path: Path, capsys
) -> None:
    rules = Rules(players=4, target=15)
    session = LocalSession(rules, human=0, bots=["random"], seed=5)
    app = TrucoApp(session, delay=0, save_dir=tmp_path)
    async with app.run_test(size=(140, 42)) as pilot:
        await pilot.press("w")  # not before the end: the record holds the bots' cards
        assert "when the match is over" in app.message and app.saved_path is None
        for _ in range(2000):
            await settle(pilot, app)
            if session.game.is_over:
                break
            await pilot.press(person_key(app))
        assert session.game.is_over
        assert "The match is over" in app.screen_text()
        await pilot.press("w")
    path = app.saved_path
    assert path is not None and path.parent == tmp_path
    assert truco_main(["replay", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["winner"] == session.game.winner
    assert len(result["hands"]) == len(session.game.history)
    assert json.loads(path.read_text())["headers"]["seats"][0] == "You"


@headless
async def test_watching_bots_2v2_to_the_end() -> None:
    session = LocalSession(
        Rules(players=4, target=15, flor=True), human=None, bots=["simple", "random"] * 2, seed=2
    )
    app = TrucoApp(session, delay=0)
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot, app)
        assert session.game.is_over
        assert "The match is over" in app.screen_text()
        await pilot.press("1")
        assert "watching" in app.message


@headless
async def test_megaphone_words_reach_the_log_in_team_games() -> None:
    session = LocalSession(Rules(players=4), human=0, bots=["random"], seed=3)
    app = TrucoApp(session, delay=0)
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot, app)
        await pilot.press("s")
        await pilot.press("3")  # Voy
        await settle(pilot, app)
        assert (0, parse_action("say voy")) in session.view().log
        assert "You 📣 Voy" in app.screen_text()  # in the log
        assert "📣 Your team: You Voy" in app.screen_text()  # and on the table
        assert "does nothing" not in app.message  # the word's key spoke it, nothing else


def test_the_record_viewer_steps_through_a_record() -> None:
    record = load_record((RECORDS / "02_envido_then_truco.json").read_bytes())
    viewer = RecordViewer(record)
    total = sum(len(h.actions) + 1 for h in record.hands)
    assert len(viewer.steps) == total and viewer.error is None


@headless
async def test_the_record_viewer_moves_forward_and_back() -> None:
    record = load_record((RECORDS / "02_envido_then_truco.json").read_bytes())
    viewer = RecordViewer(record)
    app = TrucoApp(viewer, delay=0)
    first_hand = record.hands[0]
    async with app.run_test(size=(140, 42)) as pilot:
        assert "step 1/" in app.screen_text()
        # every seat's cards are open in a record
        for cards in first_hand.deal or ():
            for card in cards:
                assert card_short(card) in app.screen_text()
        await pilot.press("right", "right")
        assert viewer.index == 2 and "step 3/" in app.screen_text()
        seat, action = first_hand.actions[1]
        assert len(app.view.log) == 2 and app.view.log[1] == (seat, action)
        await pilot.press("left")
        assert viewer.index == 1 and len(app.view.log) == 1
        await pilot.press("end")
        assert viewer.index == len(viewer.steps) - 1
        assert "Hand 1" in app.screen_text() and "Score" in app.screen_text()
        await pilot.press("right")
        assert "No more steps" in app.message
        await pilot.press("q")
        assert "record viewer" in app.message


def test_command_line_errors_are_one_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert truco_main(["show", str(bad)]) == 2
    assert truco_main(["show", str(tmp_path / "missing.json")]) == 2
    assert truco_main(["play", "--bots", "nosuch"]) == 2
    assert truco_main(["play", "--players", "2", "--pica-pica"]) == 2
    assert truco_main(["watch", "--players", "4", "--bots", "random,random,random,random,x"]) == 2
    assert truco_main(["play", "--table", "abc"]) == 2  # --table without --connect
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 6 and all(line.startswith("truco ") for line in err), err


@headless
async def test_help_screen_shows_the_rules_and_the_keys() -> None:
    app, session = one_on_one(("1e 3c 4b", "2o 5c 6e"))
    async with app.run_test(size=(140, 42)) as pilot:
        await pilot.press("h")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("e")  # keys go to the help screen, not to the table
        assert session.game.actions == []
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("e")
        await settle(pilot, app)
        assert session.game.actions[0] == (0, ENVIDO)
    assert "son buenas" in RULES_HELP and "| t | truco, retruco, vale cuatro |" in RULES_HELP


@headless
async def test_watching_can_pause_and_change_speed() -> None:
    session = LocalSession(Rules(), human=None, bots=["random"], seed=4)
    app = TrucoApp(session, delay=1000)  # the first bot move waits: nothing moves by itself
    async with app.run_test(size=(140, 42)) as pilot:
        await pilot.press("space")
        assert app.paused and "paused" in app.screen_text()
        await pilot.press("plus")
        assert app.delay < 1000
        await pilot.press("space")
        assert not app.paused


def test_a_record_with_an_illegal_action_is_shown_up_to_it() -> None:
    record = load_record((RECORDS / "11_err_raise_without_right.json").read_bytes())
    viewer = RecordViewer(record)
    assert viewer.error is not None and "may not" in viewer.error
    viewer.last()
    assert "stops here" in viewer.caption()  # the title points below...


@headless
async def test_an_illegal_records_reason_is_shown_whole() -> None:
    record = load_record((RECORDS / "11_err_raise_without_right.json").read_bytes())
    viewer = RecordViewer(record)
    app = TrucoApp(viewer, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("end", "right")
        assert viewer.error is not None and viewer.error in app.message  # ...the reason, whole
        assert viewer.error in app.query_one("#message").render().plain


@headless
async def test_the_mouse_presses_the_same_actions() -> None:
    app, session = one_on_one(("1e 3c 4b", "2o 5c 6e"))
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot, app)
        assert not app.query_one(f"#act-{QUIERO}").display  # only legal calls have buttons
        await pilot.click(f"#act-{ENVIDO}")
        await settle(pilot, app)
        assert [a for _, a in session.game.actions[:2]] == [ENVIDO, QUIERO]
        await pilot.click("#card-1")  # 3 of cups
        await settle(pilot, app)
        assert session.game.actions[2] == (0, parse_card("3c"))


class TalkativeBot(PoliteBot):
    """Says "voy" whenever it may, then plays like :class:`PoliteBot`."""

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        voy = parse_action("say voy")
        return voy if voy in legal else super().choose(view, legal, rules)


@headless
async def test_the_rivals_megaphone_never_reaches_the_screen() -> None:
    session = LocalSession(
        Rules(players=4), human=0, bots=[TalkativeBot() for _ in range(3)], seed=8
    )
    app = TrucoApp(session, delay=0)
    async with app.run_test(size=(140, 42)) as pilot:
        for _ in range(20):
            await settle(pilot, app)
            if session.game.history:
                break
            await pilot.press(person_key(app))
        said = {seat for hand in session.game.history for seat, a in hand.actions if is_say(a)}
        assert {1, 2, 3} <= said  # everybody talked...
        text = app.screen_text()
        assert "Tito 📣 Voy" in text  # ...the partner is heard
        assert "Rosa 📣" not in text and "Chela 📣" not in text  # the rivals are not


def test_a_closed_hand_in_the_log_counts_only_the_points_scored() -> None:
    from truco.tui.render import hand_result_markup
    from truco.view import PublicHand

    # Us had 14 of 15: the envido's 2 reach 15 (one beyond it), the truco's point is dropped
    hand = PublicHand(
        index=4,
        mano=0,
        why=((0, "envido", 2), (0, "truco", 1)),
        points=(3, 0),
        score=(15, 9),
        chicos=(1, 0),
        played=(),
        revealed=(),
    )
    text = hand_result_markup(hand, ("You", "Bot 1"), ("Us", "Them"), (14, 9), 15)
    assert "— Hand 5: Us +1 (15-9)" in text and "+3" not in text.splitlines()[0]
    assert "1 point beyond it dropped" in text and "the chico was already won" in text


@headless
async def test_the_record_viewer_names_the_hand_it_shows() -> None:
    record = load_record((RECORDS / "02_envido_then_truco.json").read_bytes())
    viewer = RecordViewer(record)
    app = TrucoApp(viewer, delay=0)
    end_of_first = max(i for i, (_g, hand, _a) in enumerate(viewer.steps) if hand == 0)
    async with app.run_test(size=(120, 40)) as pilot:
        while viewer.index < end_of_first:
            await pilot.press("right")
        log = app.query_one("#log").render().plain
        assert log.splitlines()[0].startswith("Hand 1,")  # not "Hand 2" above hand 1
        assert "— Hand 1:" in log  # and what it scored, once closed
