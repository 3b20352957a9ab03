"""``Game.legal_actions`` reads the legality predicates inlined on its fast path; the
predicates (``must_sing_flor``, ``why_envido_closed``, ``is_pie``, ``why_no_raise``,
``why_no_megaphone``) stay the one statement of each rule that the reasons use. At every
step of random matches on every table, both must say the same."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from strategies import TABLES, new_match, play_out, seeds, table_id
from truco.actions import (
    ENVIDO_CALLS,
    FLOR,
    MAZO,
    NO_QUIERO,
    QUIERO,
    SAY_ACTIONS,
    TRUCO,
    TRUCO_CALLS,
)
from truco.game import Game
from truco.rules import Rules
from truco.vocabulary import CallKind

every_table = pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])


def check_predicates(game: Game) -> None:
    if game.is_over or game.needs_deal:
        return
    pending = game.pending[-1] if game.pending else None
    for seat in range(game.players):
        legal = game.legal_actions(seat)
        if not game.in_hand[seat]:
            assert legal == []
            continue
        says = [a for a in legal if a in SAY_ACTIONS]
        assert bool(says) == (game.why_no_megaphone() is None), (seat, legal)
        acts = [a for a in legal if a not in SAY_ACTIONS]
        if pending is None and seat == game.turn:
            if game.must_sing_flor(seat):
                assert acts == [FLOR, MAZO]
                continue
            envido = [a for a in acts if a in ENVIDO_CALLS]
            opens = game.why_envido_closed() is None and game.is_pie(seat)
            assert bool(envido) == opens, (seat, acts)
            raises = [a for a in acts if a in TRUCO_CALLS]
            if game.why_no_raise(seat) is None:
                assert raises == [TRUCO + game.truco_level]
            else:
                assert raises == []
        elif pending is not None and pending.team == seat & 1:
            kind = pending.kind
            if kind in (CallKind.TRUCO, CallKind.ENVIDO) and game.must_sing_flor(seat):
                assert acts == [FLOR, MAZO]
            elif kind == CallKind.TRUCO:
                assert acts[:2] == [QUIERO, NO_QUIERO]
                primero = pending.level == 1 and game.why_envido_closed() is None
                assert bool(set(acts) & set(ENVIDO_CALLS)) == primero, acts
        else:
            assert acts == []


@every_table
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=seeds)
def test_the_fast_path_agrees_with_the_named_predicates(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    play_out(game, policy, check_predicates)
