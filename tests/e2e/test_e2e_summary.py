"""The page's summary of a closed hand, fed with hands the engine really closed: who won
the envido and with what, how the truco was won (bazas, a refusal, the mazo), and the
points dropped because the chico was already decided. Runs the page's own
``static/story.js`` in Chromium on the JSON the server would send."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_kit import ARGS, CHROMIUM, config, sync_api

from server_testing import LiveServer
from truco.actions import action_token
from truco.game import Game, MatchPosition
from truco.rules import Rules
from truco.server.protocol import public_hand_json
from truco.view import public_hand
from util import deal, new_game, play

TABLE = {
    "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Beto"}],
    "rules": {"players": 2, "target": 15},
}


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with (
        LiveServer(config(tmp_path_factory.mktemp("summary") / "t.sqlite3")) as live,
        sync_api.sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(locale="es-AR").new_page()
        page.goto(live.url + "/")
        page.wait_for_selector("#create-form")
        yield page
        browser.close()


def summary(page: Any, game: Game, before: tuple[int, int], viewer: int | None) -> list[str]:
    closed = game.history[-1]
    hand = public_hand_json(public_hand(closed))
    actions = [[seat, action_token(a)] for seat, a in closed.actions]
    return list(
        page.evaluate(
            """async ([table, hand, before, actions, viewer]) => {
                const { Story } = await import('/static/story.js');
                return new Story(table, viewer).summary(hand, before, actions);
            }""",
            [TABLE, hand, list(before), actions, viewer],
        )
    )


def test_envido_won_and_the_hand_by_bazas(page: Any) -> None:
    game = new_game("7c 6c 4b", "1e 2e 12b", target=15)
    play(game, "0 envido; 1 quiero; 0 play 4b; 1 play 1e; 1 play 2e; 0 play 6c")
    assert game.history[-1].why == ((0, "envido", 2), (1, "truco", 1))
    lines = summary(page, game, (0, 0), 0)
    assert (
        lines[0] == "Ana ganó el envido con 33 (frente a Beto: son buenas): 2 puntos para nosotros."
    )
    assert lines[1] == "La mano fue para ellos por las bazas (1ª de Beto, 2ª de Beto): 1 punto."
    assert lines[-1] == "En total: 2 puntos para nosotros y 1 punto para ellos."


def test_a_refused_truco_and_a_refused_envido_name_who_refused(page: Any) -> None:
    game = new_game("7o 6o 4c", "1e 2e 12b", target=15)
    play(game, "0 real-envido; 1 no-quiero; 0 truco; 1 no-quiero")
    lines = summary(page, game, (0, 0), None)
    assert lines[0] == "Beto no quiso el envido: 1 punto para los azules."
    assert lines[1] == "Beto no quiso el truco: 1 punto para los azules."


def test_the_mazo_is_named(page: Any) -> None:
    game = new_game("7o 6o 4c", "1e 2e 12b", target=15)
    play(game, "0 truco; 1 quiero; 0 mazo")
    lines = summary(page, game, (0, 0), 1)
    assert lines[0] == "Ana se fue al mazo: 2 puntos para nosotros."


def test_points_past_the_chico_are_dropped_and_said_so(page: Any) -> None:
    rules = Rules(players=2, target=15)
    game = Game.at_position(MatchPosition(rules, 0, 4, (14, 3), (0, 0)), manual_deal=True)
    game.deal(deal("7o 6o 4c", "1e 2e 12b"))
    play(game, "0 envido; 1 quiero; 0 play 4c; 1 mazo")
    closed = game.history[-1]
    assert closed.points == (3, 0) and closed.score == (15, 3)
    lines = summary(page, game, (14, 3), None)
    assert (
        "No se anotaron 2 puntos de los azules: el chico ya estaba decidido al llegar a 15."
        in lines
    )
    assert "El chico es para los azules: llegaron a 15." in lines
    assert lines[-1] == "En total: 1 punto para los azules y 0 puntos para los rojos."
