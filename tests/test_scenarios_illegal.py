"""Illegal actions (issue 2, "Tests"; docs/architecture.md "Errors"): in each place of the rules an
illegal action raises IllegalAction whose reason names the cause, and leaves the state
exactly as it was (every seat's view, the record, the legal actions, the score)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from truco.actions import MAZO, NUM_ACTIONS, parse_action
from truco.game import Game, IllegalAction, MatchPosition
from truco.record import game_to_record
from truco.rules import Rules
from truco.view import seat_view
from util import deal, new_game, play

D1 = ("1e 1b 7e", "4c 5c 6c")
D2 = ("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b")
FLOR_1V1 = ("7e 6e 5e", "7c 4c 10c")


def snapshot(game: Game) -> tuple:
    seats = [*range(game.players), None]
    return (
        json.dumps(game_to_record(game), sort_keys=True),
        [seat_view(game, s) for s in seats],
        [game.legal_actions(s) for s in range(game.players)],
        game.actors(),
        game.score,
        game.chicos,
        list(game.actions),
        len(game.history),
        game.winner,
    )


def refused(game: Game, seat: int, token: str, cause: str) -> IllegalAction:
    before = snapshot(game)
    clone = game.clone()
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, parse_action(token))
    assert cause.lower() in info.value.reason.lower(), info.value.reason
    assert info.value.seat == seat and info.value.token == token
    assert isinstance(info.value, ValueError)
    assert snapshot(game) == before
    assert snapshot(clone) == before
    return info.value


def one(*moves: str, **options) -> Callable[[], Game]:
    def build() -> Game:
        game = new_game(*D1, **options)
        play(game, "; ".join(moves))
        return game

    return build


def two(*moves: str, **options) -> Callable[[], Game]:
    def build() -> Game:
        game = new_game(*D2, **options)
        play(game, "; ".join(moves))
        return game

    return build


def flor(*moves: str, hands=FLOR_1V1) -> Callable[[], Game]:
    def build() -> Game:
        game = new_game(*hands, flor=True)
        play(game, "; ".join(moves))
        return game

    return build


CASES = [
    # cards and turns
    ("play out of turn", one(), 1, "play 4c", "not this seat's turn"),
    ("play a card not held", one(), 0, "play 4c", "does not hold"),
    (
        "play a card already played",
        one("0 play 7e", "1 play 4c"),
        0,
        "play 7e",
        "does not hold",
    ),
    ("caller plays while its truco waits", one("0 truco"), 0, "play 1e", "waiting"),
    (
        "rival plays while the truco waits",
        one("0 truco"),
        1,
        "play 4c",
        "waits for its answer",
    ),
    (
        "play while an envido waits",
        one("0 envido"),
        1,
        "play 4c",
        "waits for its answer",
    ),
    # envido
    ("envido by a non-pie 2v2", two(), 0, "envido", "pies"),
    ("real envido by a non-pie 2v2", two("0 play 1e"), 1, "real-envido", "pies"),
    (
        "envido after the first baza",
        one("0 play 7e", "1 play 4c"),
        0,
        "envido",
        "first baza",
    ),
    (
        "envido after the truco accepted",
        one("0 truco", "1 quiero"),
        0,
        "envido",
        "accepted",
    ),
    (
        "envido twice a hand",
        one("0 envido", "1 quiero"),
        0,
        "falta-envido",
        "only once",
    ),
    (
        "envido against a truco in the second baza",
        one("0 play 7e", "1 play 4c", "0 truco"),
        1,
        "envido",
        "first truco call, in the first baza",
    ),
    ("envido off turn", one(), 1, "envido", "not this seat's turn"),
    # truco
    (
        "retruco by the calling team",
        one("0 truco", "1 quiero"),
        0,
        "retruco",
        "accepted the last call",
    ),
    (
        "truco again instead of retruco",
        one("0 truco", "1 quiero", "0 play 7e"),
        1,
        "truco",
        "retruco",
    ),
    ("vale cuatro as the first call", one(), 0, "vale-cuatro", "first call is truco"),
    (
        "above vale cuatro",
        one("0 truco", "1 retruco", "0 vale-cuatro", "1 quiero"),
        0,
        "vale-cuatro",
        "highest",
    ),
    ("answer one's own call", one("0 truco"), 0, "quiero", "other team's answer"),
    ("quiero with no call", one(), 0, "quiero", "no call to answer"),
    ("no quiero with no call", one("0 play 7e"), 1, "no-quiero", "no call to answer"),
    # flor
    ("flor on a table sin flor", one(), 0, "flor", "sin flor"),
    ("flor without holding one", one(flor=True), 0, "flor", "do not hold a flor"),
    ("a holder plays before singing", flor(), 0, "play 7e", "flor"),
    ("a holder calls truco before singing", flor(), 0, "truco", "flor"),
    (
        "a holder answers an envido before singing",
        flor("0 envido", hands=("1o 2b 3o", "7c 4c 10c")),
        1,
        "quiero",
        "flor",
    ),
    (
        "flor sung twice",
        flor("0 flor", "1 con-flor-me-achico"),
        0,
        "flor",
        "already sung",
    ),
    (
        "contraflor with no flor waiting",
        flor("0 flor", "1 con-flor-me-achico"),
        0,
        "contraflor",
        "no flor is waiting",
    ),
    (
        "envido after a flor",
        flor("0 flor", "1 con-flor-me-achico", "0 play 5e"),
        1,
        "envido",
        "flor was sung",
    ),
    ("truco while a flor waits", flor("0 flor"), 1, "truco", "does not answer"),
    (
        "no quiero to a flor sin con flor quiero",
        flor("0 flor"),
        1,
        "quiero",
        "does not answer",
    ),
    # mazo and seats
    ("mazo off turn", one(), 1, "mazo", "not this seat's turn"),
    ("act after leaving 2v2", two("0 mazo"), 0, "play 4o", "mazo"),
    ("no seat 2 at a 1v1 table", one(), 2, "mazo", "no seat 2"),
    ("no seat -1", one(), -1, "mazo", "no seat -1"),
    ("megaphone in 1v1", one(), 0, "say si", "2v2 and 3v3"),
    # the end of a hand and of the match
    (
        "act after the hand closed",
        one("0 truco", "1 no-quiero"),
        0,
        "play 1e",
        "hand is over",
    ),
    (
        "act after the match",
        one("0 falta-envido", "1 quiero", "0 mazo"),
        1,
        "mazo",
        "match is over",
    ),
]


@pytest.mark.parametrize("name,build,seat,token,cause", CASES, ids=[c[0] for c in CASES])
def test_an_illegal_action_is_refused_with_its_reason_and_changes_nothing(
    name, build, seat, token, cause
) -> None:
    game = build()
    refused(game, seat, token, cause)


# raises that break the envido chain (docs/rules.md "Fine points": the envido repeats only once,
# straight after a single envido; real envido comes once; falta envido ends the chain)
CHAIN_CASES = [
    ("a third envido", "0 envido; 1 envido", 0, "envido", "only once"),
    (
        "an envido after real envido",
        "0 envido; 1 real-envido",
        0,
        "envido",
        "only once",
    ),
    ("real envido twice", "0 real-envido", 1, "real-envido", "comes once"),
    (
        "a raise after falta envido",
        "0 falta-envido",
        1,
        "real-envido",
        "ends the chain",
    ),
    (
        "falta envido twice",
        "0 envido; 1 falta-envido",
        0,
        "falta-envido",
        "ends the chain",
    ),
]


@pytest.mark.parametrize(
    "name,moves,seat,token,cause", CHAIN_CASES, ids=[c[0] for c in CHAIN_CASES]
)
def test_a_raise_that_breaks_the_envido_chain_is_refused_and_changes_nothing(
    name, moves, seat, token, cause
) -> None:
    game = new_game(*D1)
    play(game, moves)
    refused(game, seat, token, "")


@pytest.mark.parametrize(
    "name,moves,seat,token,cause", CHAIN_CASES, ids=[c[0] for c in CHAIN_CASES]
)
def test_a_raise_that_breaks_the_envido_chain_names_the_chain_rule(
    name, moves, seat, token, cause
) -> None:
    game = new_game(*D1)
    play(game, moves)
    error = refused(game, seat, token, "")
    assert "already been played" not in error.reason
    assert cause in error.reason


def test_flor_on_a_table_sin_flor_names_the_table_even_while_a_call_waits() -> None:
    game = new_game(*D1)
    play(game, "0 truco")
    refused(game, 1, "flor", "sin flor")


def test_an_envido_against_a_pending_flor_names_the_flor() -> None:
    game = flor("0 flor")()
    refused(game, 1, "envido", "flor")


def test_a_non_holder_may_not_answer_a_flor_2v2() -> None:
    game = new_game("7e 6e 5e", "1o 2b 3o", "4o 5b 6o", "7c 4c 10c", flor=True)
    play(game, "0 flor")
    refused(game, 1, "con-flor-me-achico", "only a player holding flor")


def test_a_pair_not_playing_may_not_act_in_a_pica_pica_round() -> None:
    rules = Rules(players=6, pica_pica=True)
    game = Game.at_position(
        MatchPosition(rules, 0, 0, (6, 2), (0, 0), True, True), manual_deal=True
    )
    game.deal(deal("4c 5c 6c", "4o 5o 6o", "4b 5b 6b", "4e 5e 6e", "7c 10c 11c", "7o 10o 11o"))
    refused(game, 1, "play 4o", "pica-pica")
    refused(game, 2, "say si", "pica-pica")


def test_the_game_goes_on_normally_after_a_refused_action() -> None:
    game = new_game(*D1)
    refused(game, 1, "play 4c", "turn")
    refused(game, 0, "retruco", "truco")
    play(game, "0 play 1e; 1 play 4c; 0 play 1b; 1 play 5c")
    assert game.history[-1].why == ((0, "truco", 1),)


def test_a_non_integer_seat_is_refused() -> None:
    game = new_game(*D1)
    before = snapshot(game)
    with pytest.raises(IllegalAction):
        game.apply("0", MAZO)  # type: ignore[arg-type]
    assert snapshot(game) == before


def _pica_round() -> Game:
    rules = Rules(players=6, pica_pica=True)
    game = Game.at_position(
        MatchPosition(rules, 0, 0, (6, 2), (0, 0), True, True), manual_deal=True
    )
    game.deal(deal("4c 5c 6c", "4o 5o 6o", "4b 5b 6b", "4e 5e 6e", "7c 10c 11c", "7o 10o 11o"))
    play(game, "0 envido")
    return game


SWEEP = [
    ("1v1 start", one()),
    ("1v1 truco waits", one("0 truco")),
    ("1v1 envido chain waits", one("0 envido", "1 envido")),
    ("1v1 truco accepted", one("0 truco", "1 quiero", "0 play 7e")),
    ("1v1 second baza", one("0 play 7e", "1 play 4c")),
    ("2v2 start", two()),
    ("2v2 envido esta primero", two("0 play 1e", "1 play 4c", "2 truco", "1 envido")),
    ("2v2 a seat left", two("0 mazo", "1 play 4c")),
    ("flor exchange waits", flor("0 flor")),
    ("contraflor waits", flor("0 flor", "1 contraflor")),
    ("flor obligation", flor("0 envido", hands=("1o 2b 3o", "7c 4c 10c"))),
    ("pica-pica round", _pica_round),
    ("hand closed", one("0 truco", "1 no-quiero")),
    ("match over", one("0 falta-envido", "1 quiero", "0 mazo")),
]


@pytest.mark.parametrize("name,build", SWEEP, ids=[c[0] for c in SWEEP])
def test_every_action_outside_the_legal_list_is_refused_and_changes_nothing(name, build) -> None:
    """In each place, every (seat, action) pair that legal_actions leaves out raises
    IllegalAction with a reason, and nothing changes."""
    game = build()

    def light(g: Game) -> tuple:
        return (
            json.dumps(game_to_record(g), sort_keys=True),
            g.actors(),
            [g.legal_actions(s) for s in range(g.players)],
            g.score,
            g.chicos,
            len(g.history),
            g.winner,
        )

    before = light(game)
    refused_count = 0
    for seat in range(game.players):
        allowed = set(game.legal_actions(seat))
        for action in range(NUM_ACTIONS):
            if action in allowed:
                continue
            with pytest.raises(IllegalAction) as info:
                game.apply(seat, action)
            assert info.value.reason and info.value.reason != "not allowed now"
            refused_count += 1
    assert light(game) == before
    assert refused_count > 0
