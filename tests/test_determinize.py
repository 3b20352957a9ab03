"""Determinization: sampled worlds agree with everything a seat has seen."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strategies
from truco import Game, Rules
from truco.determinize import (
    Determinizer,
    InconsistentView,
    sample_game,
    seat_constraints,
)
from truco.view import SeatView, seat_view
from util import new_game, play

TABLES = strategies.SAMPLE_TABLES


def _public(view: SeatView) -> SeatView:
    # last_hand describes the hand before: a sampled world starts at the view's hand
    return dataclasses.replace(view, last_hand=None)


def random_position(rules: Rules, seed: int) -> tuple[Game, int]:
    return strategies.random_position(rules, seed, max_actions=60)


@settings(max_examples=1500, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_sampled_world_shows_the_viewer_exactly_its_view(table: Rules, seed: int) -> None:
    game, seat = random_position(table, seed)
    view = seat_view(game, seat)
    rng = random.Random(seed)
    for _ in range(5):
        world = sample_game(view, rng)
        assert _public(seat_view(world, seat)) == _public(view)
        assert world.hand_cards(seat) == view.hand
        assert world.dealt[seat] == view.dealt
        assert sorted(c for h in world.dealt for c in h) == sorted(
            {c for h in world.dealt for c in h}
        )
        # every seat's played cards are the ones the view shows
        for s, card in view.played:
            assert card in world.dealt[s]


@settings(max_examples=100, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_sampling_reads_only_the_view(table: Rules, seed: int) -> None:
    """Two games with the same public history but other hidden cards sample the same worlds."""
    game, seat = random_position(table, seed)
    view = seat_view(game, seat)
    other = sample_game(view, random.Random(seed + 1))  # another consistent truth
    other_view = seat_view(other, seat)
    assert _public(other_view) == _public(view)
    a = sample_game(dataclasses.replace(view, last_hand=None), random.Random(7))
    b = sample_game(dataclasses.replace(other_view, last_hand=None), random.Random(7))
    assert a.dealt == b.dealt


def test_declared_tanto_is_respected() -> None:
    game = new_game("1e 7o 4c", "6b 7b 12o")
    play(game, "0 envido; 1 quiero")  # mano 0 declares 7; seat 1 declares 33
    view = seat_view(game, 0)
    from truco.cards import tanto

    for i in range(200):
        world = sample_game(view, random.Random(i))
        assert tanto(world.dealt[1]) == 33


def test_son_buenas_bounds_the_tanto() -> None:
    game = new_game("6b 7b 12o", "1e 7o 4c")
    play(game, "0 envido; 1 quiero")  # seat 0 declares 33, seat 1 says son buenas
    view = seat_view(game, 0)
    assert view.showdowns[0][1].tanto is None
    constraint = seat_constraints(view)[1]
    assert constraint.tanto_at_most == 33
    from truco.cards import tanto

    game = new_game("1e 7o 4c", "6b 2b 12o")
    play(game, "0 envido; 1 quiero")  # seat 0 declares 7, seat 1 declares 28
    game2 = new_game("5e 6e 4c", "6b 2b 12o")
    play(game2, "0 envido; 1 quiero")  # seat 0 declares 31, seat 1: son buenas
    view = seat_view(game2, 0)
    for i in range(200):
        assert tanto(sample_game(view, random.Random(i)).dealt[1]) <= 31


def test_flor_sung_and_uncontested_flor() -> None:
    game = new_game("1e 2e 3e", "4b 5c 6o", flor=True)
    play(game, "0 flor")  # uncontested: seat 1 holds no flor
    view = seat_view(game, 1)
    from truco.cards import has_flor

    for i in range(200):
        world = sample_game(view, random.Random(i))
        assert has_flor(world.dealt[0])
    view0 = seat_view(game, 0)
    for i in range(200):
        assert not has_flor(sample_game(view0, random.Random(i)).dealt[1])


def test_a_seat_that_played_without_singing_has_no_flor() -> None:
    game = new_game("4b 5c 6o", "1e 2e 3o", flor=True)
    play(game, "0 play 4b")
    view = seat_view(game, 1)
    from truco.cards import has_flor

    for i in range(200):
        assert not has_flor(sample_game(view, random.Random(i)).dealt[0])


def test_between_hands_the_next_hand_is_dealt() -> None:
    game = Game(Rules(), manual_deal=True)
    game.deal(((0, 1, 2), (3, 4, 5)))
    play(game, "0 mazo")
    view = seat_view(game, 1)
    world = sample_game(view, random.Random(1))
    assert not world.needs_deal and world.hand_index == 1


def test_the_sampled_game_deals_later_hands() -> None:
    game, seat = random_position(Rules(), 3)
    world = sample_game(seat_view(game, seat), random.Random(2))
    rng = random.Random(0)
    while not world.is_over:
        s = world.actors()[0]
        world.push(s, rng.choice(world.legal_actions(s, False)))
    assert world.winner in (0, 1)


def test_a_view_no_deal_fits_is_reported() -> None:
    game = new_game("1e 7o 4c", "6b 7b 12o")
    play(game, "0 envido; 1 quiero")
    view = seat_view(game, 0)
    from truco.game import Declaration

    bad = dataclasses.replace(view, showdowns=((Declaration(0, 7), Declaration(1, 34)),))
    with pytest.raises(InconsistentView):
        Determinizer(bad)


def test_a_free_seat_s_cards_are_any_unseen_card_alike() -> None:
    """With nothing known of the other seats, each unseen card is in each of their hands
    in 3 of 37 draws (a fixed seed: within six standard deviations of that)."""
    game = Game(Rules(players=4), seed=3)
    view = seat_view(game, 0)
    determinizer = Determinizer(view)
    rng = random.Random(11)
    draws = 4000
    counts: dict[tuple[int, int], int] = {}
    for _ in range(draws):
        deal = determinizer.sample_deal(rng)
        assert deal[0] == tuple(view.dealt)
        assert len({c for hand in deal for c in hand}) == 12
        for seat in (1, 2, 3):
            for card in deal[seat]:
                counts[seat, card] = counts.get((seat, card), 0) + 1
    unseen = [c for c in range(40) if c not in view.dealt]
    expected = draws * 3 / 37
    spread = 6 * (expected * (1 - 3 / 37)) ** 0.5
    for seat in (1, 2, 3):
        for card in unseen:
            assert abs(counts.get((seat, card), 0) - expected) < spread, (seat, card)
