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
from truco.refusals import CODES
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


def refused(game: Game, seat: int, token: str, code: str) -> IllegalAction:
    """``seat`` may not ``token``: IllegalAction names the rule by ``code`` (empty: any),
    and nothing changes."""
    before = snapshot(game)
    clone = game.clone()
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, parse_action(token))
    assert info.value.code == (code or info.value.code), info.value.reason
    assert info.value.code in CODES and info.value.reason == str(info.value.refusal)
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
    ("play out of turn", one(), 1, "play 4c", "not_your_turn"),
    ("play a card not held", one(), 0, "play 4c", "card_not_held"),
    (
        "play a card already played",
        one("0 play 7e", "1 play 4c"),
        0,
        "play 7e",
        "card_not_held",
    ),
    ("caller plays while its truco waits", one("0 truco"), 0, "play 1e", "waiting_for_rivals"),
    (
        "rival plays while the truco waits",
        one("0 truco"),
        1,
        "play 4c",
        "no_card_while_call",
    ),
    (
        "play while an envido waits",
        one("0 envido"),
        1,
        "play 4c",
        "no_card_while_call",
    ),
    # envido
    ("envido by a non-pie 2v2", two(), 0, "envido", "envido_pie_only"),
    ("real envido by a non-pie 2v2", two("0 play 1e"), 1, "real-envido", "envido_pie_only"),
    (
        "envido after the first baza",
        one("0 play 7e", "1 play 4c"),
        0,
        "envido",
        "envido_first_baza_only",
    ),
    (
        "envido after the truco accepted",
        one("0 truco", "1 quiero"),
        0,
        "envido",
        "envido_after_truco_accepted",
    ),
    (
        "envido twice a hand",
        one("0 envido", "1 quiero"),
        0,
        "falta-envido",
        "envido_once",
    ),
    (
        "envido against a truco in the second baza",
        one("0 play 7e", "1 play 4c", "0 truco"),
        1,
        "envido",
        "envido_primero_only",
    ),
    ("envido off turn", one(), 1, "envido", "not_your_turn"),
    # truco
    (
        "retruco by the calling team",
        one("0 truco", "1 quiero"),
        0,
        "retruco",
        "raise_by_acceptors",
    ),
    (
        "truco again instead of retruco",
        one("0 truco", "1 quiero", "0 play 7e"),
        1,
        "truco",
        "next_truco_call",
    ),
    ("vale cuatro as the first call", one(), 0, "vale-cuatro", "truco_first"),
    (
        "above vale cuatro",
        one("0 truco", "1 retruco", "0 vale-cuatro", "1 quiero"),
        0,
        "vale-cuatro",
        "vale_cuatro_is_top",
    ),
    ("answer one's own call", one("0 truco"), 0, "quiero", "waiting_for_rivals"),
    ("quiero with no call", one(), 0, "quiero", "no_call_to_answer"),
    ("no quiero with no call", one("0 play 7e"), 1, "no-quiero", "no_call_to_answer"),
    # flor
    ("flor on a table sin flor", one(), 0, "flor", "sin_flor"),
    ("flor without holding one", one(flor=True), 0, "flor", "no_flor_held"),
    ("a holder plays before singing", flor(), 0, "play 7e", "must_sing_flor"),
    ("a holder calls truco before singing", flor(), 0, "truco", "must_sing_flor"),
    (
        "a holder answers an envido before singing",
        flor("0 envido", hands=("1o 2b 3o", "7c 4c 10c")),
        1,
        "quiero",
        "must_sing_flor",
    ),
    (
        "flor sung twice",
        flor("0 flor", "1 con-flor-me-achico"),
        0,
        "flor",
        "flor_already_sung",
    ),
    (
        "contraflor with no flor waiting",
        flor("0 flor", "1 con-flor-me-achico"),
        0,
        "contraflor",
        "no_flor_waiting",
    ),
    (
        "envido after a flor",
        flor("0 flor", "1 con-flor-me-achico", "0 play 5e"),
        1,
        "envido",
        "flor_was_sung",
    ),
    ("truco while a flor waits", flor("0 flor"), 1, "truco", "not_an_answer"),
    (
        "no quiero to a flor sin con flor quiero",
        flor("0 flor"),
        1,
        "quiero",
        "not_an_answer",
    ),
    # mazo and seats
    ("mazo off turn", one(), 1, "mazo", "not_your_turn"),
    ("act after leaving 2v2", two("0 mazo"), 0, "play 4o", "gone_to_mazo"),
    ("no seat 2 at a 1v1 table", one(), 2, "mazo", "no_such_seat"),
    ("no seat -1", one(), -1, "mazo", "no_such_seat"),
    ("megaphone in 1v1", one(), 0, "say si", "megaphone_teams_only"),
    # the end of a hand and of the match
    (
        "act after the hand closed",
        one("0 truco", "1 no-quiero"),
        0,
        "play 1e",
        "hand_over",
    ),
    (
        "act after the match",
        one("0 falta-envido", "1 quiero", "0 mazo"),
        1,
        "mazo",
        "match_over",
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
    ("a third envido", "0 envido; 1 envido", 0, "envido", "envido_repeats_once"),
    (
        "an envido after real envido",
        "0 envido; 1 real-envido",
        0,
        "envido",
        "envido_repeats_once",
    ),
    ("real envido twice", "0 real-envido", 1, "real-envido", "real_envido_once"),
    (
        "a raise after falta envido",
        "0 falta-envido",
        1,
        "real-envido",
        "falta_envido_ends_chain",
    ),
    (
        "falta envido twice",
        "0 envido; 1 falta-envido",
        0,
        "falta-envido",
        "falta_envido_ends_chain",
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
    assert error.code == cause


def test_flor_on_a_table_sin_flor_names_the_table_even_while_a_call_waits() -> None:
    game = new_game(*D1)
    play(game, "0 truco")
    refused(game, 1, "flor", "sin_flor")


def test_an_envido_against_a_pending_flor_names_the_flor() -> None:
    game = flor("0 flor")()
    refused(game, 1, "envido", "flor_was_sung")


def test_a_non_holder_may_not_answer_a_flor_2v2() -> None:
    game = new_game("7e 6e 5e", "1o 2b 3o", "4o 5b 6o", "7c 4c 10c", flor=True)
    play(game, "0 flor")
    refused(game, 1, "con-flor-me-achico", "flor_holders_answer")


def test_a_pair_not_playing_may_not_act_in_a_pica_pica_round() -> None:
    rules = Rules(players=6, pica_pica=True)
    game = Game.at_position(
        MatchPosition(rules, 0, 0, (6, 2), (0, 0), True, True), manual_deal=True
    )
    game.deal(deal("4c 5c 6c", "4o 5o 6o", "4b 5b 6b", "4e 5e 6e", "7c 10c 11c", "7o 10o 11o"))
    refused(game, 1, "play 4o", "pica_pica_other_pair")
    refused(game, 2, "say si", "pica_pica_other_pair")
    refused(game, 0, "say si", "megaphone_pica_pica")


def test_the_game_goes_on_normally_after_a_refused_action() -> None:
    game = new_game(*D1)
    refused(game, 1, "play 4c", "not_your_turn")
    refused(game, 0, "retruco", "truco_first")
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
            assert info.value.code != "not_now", info.value.reason
            refused_count += 1
    assert light(game) == before
    assert refused_count > 0


def test_every_engine_refusal_code_is_reached_by_a_scenario() -> None:
    """Each code the engine registers (truco.refusals.CODES, origin "engine") is the
    answer of at least one scenario above: no code is dead, none untested."""
    reached = set()
    for _name, build, seat, token, _code in CASES:
        reached.add(refused(build(), seat, token, "").code)
    for _name, moves, seat, token, _code in CHAIN_CASES:
        game = new_game(*D1)
        play(game, moves)
        reached.add(refused(game, seat, token, "").code)
    game = new_game(*D1)
    play(game, "0 truco")
    reached.add(refused(game, 1, "flor", "").code)
    reached.add(refused(flor("0 flor")(), 1, "envido", "").code)
    game = new_game("7e 6e 5e", "1o 2b 3o", "4o 5b 6o", "7c 4c 10c", flor=True)
    play(game, "0 flor")
    reached.add(refused(game, 1, "con-flor-me-achico", "").code)
    pica = _pica_round()
    reached |= {pica.why_illegal(1, parse_action("play 4o")).code}
    game = Game.at_position(
        MatchPosition(Rules(players=6, pica_pica=True), 0, 0, (6, 2), (0, 0), True, True),
        manual_deal=True,
    )
    game.deal(deal("4c 5c 6c", "4o 5o 6o", "4b 5b 6b", "4e 5e 6e", "7c 10c 11c", "7o 10o 11o"))
    reached.add(refused(game, 0, "say si", "").code)
    # asked of an action that is legal, why_illegal has no rule to name
    reached.add(new_game(*D1).why_illegal(0, MAZO).code)
    try:
        new_game(*D1).apply(0, NUM_ACTIONS)
    except IllegalAction as exc:
        reached.add(exc.code)
    engine = {code for code, entry in CODES.items() if entry.origin == "engine"}
    assert sorted(engine - reached) == sorted(UNREACHED)


#: Engine codes no position reaches, and why (a rule written for completeness).
UNREACHED = {
    # the round's dealer plays the last card of the first baza, which closes it: the
    # first-baza rule (checked before) already answers whenever the dealer has played
    "envido_dealer_played",
}
