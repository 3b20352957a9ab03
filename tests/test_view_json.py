"""``SeatView.to_json`` and ``SeatView.from_json`` are exact inverses.

Every view of random whole matches on every table of the rule book (every seat and a
spectator, after every action, 3v3 pica-pica included) goes through JSON text and
comes back equal; the wire keys the browser page reads are all there.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from strategies import TABLES, new_match, play_out, seeds, table_id
from truco.game import Game
from truco.rules import Rules
from truco.view import OWN_FIELDS, PublicHand, SeatView, ViewError, seat_view, shared_fields

#: The keys of a view that the browser page (server/static/app.js) and the terminal read.
WIRE_KEYS = {
    "seat", "team", "hand_index", "mano", "dealer", "score", "chicos", "winner", "hand",
    "dealt", "played", "bazas", "baza_results", "turn", "actors", "legal", "pending",
    "truco_level", "truco_owner", "envido_open", "showdowns", "flor_sung", "in_hand",
    "pica_pica", "round_seats", "log", "last_hand", "notes", "scored",
}  # fmt: skip


def round_trip(view: SeatView) -> SeatView:
    return SeatView.from_json(json.loads(json.dumps(view.to_json())))


@pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_every_view_of_a_random_match_comes_back_from_json(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    counts = {"views": 0}

    def check(game: Game) -> None:
        for seat in [*range(game.players), None]:
            view = seat_view(game, seat)
            data = view.to_json()
            assert data.keys() >= WIRE_KEYS
            assert round_trip(view) == view, (seat, data)
            counts["views"] += 1

    play_out(game, policy, on_step=check)
    assert counts["views"] > game.players


@pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_views_built_from_shared_fields_are_the_seats_own_views(rules: Rules, seed: int) -> None:
    """What the server does once per version (the shared fields, built once, each seat's
    own part added) gives every seat exactly its own view, and the shared part is truly
    the same for every seat: no seat's cards, words or legal actions."""
    game, policy = new_match(rules, seed)
    own = {*OWN_FIELDS, "team"}

    def check(game: Game) -> None:
        shared = shared_fields(game)
        assert not shared.keys() & set(OWN_FIELDS)
        spectator = seat_view(game, None, shared).to_json()
        shared_json = {k: v for k, v in spectator.items() if k not in own}
        for seat in [*range(game.players), None]:
            view = seat_view(game, seat)
            assert seat_view(game, seat, shared) == view
            data = view.to_json()
            assert {k: v for k, v in data.items() if k not in own} == shared_json

    play_out(game, policy, on_step=check)


def test_pica_pica_state_survives_the_wire() -> None:
    """The fields that the hand-written codec used to drop (issue 14: every 3v3
    pica-pica view came back different)."""
    rules = Rules(players=6, pica_pica=True)
    for seed in range(200):
        game, policy = new_match(rules, seed)
        seen: list[SeatView] = []

        def keep(game: Game, seen: list[SeatView] = seen) -> None:
            if game.pica_now:
                seen.append(seat_view(game, 0))

        play_out(game, policy, on_step=keep)
        if seen:
            break
    assert seen, "no pica-pica hand in 200 random matches"
    for view in seen:
        assert view.pica_pica and view.position.pica_now and view.position.pica_started
        assert round_trip(view) == view


def test_a_closed_hand_round_trips() -> None:
    game = Game(Rules(players=4, flor=True), seed=11)
    while not game.history:
        seat = game.actors()[0]
        game.apply(seat, game.legal_actions(seat, megaphone=False)[0])
    view = seat_view(game, 2)
    assert view.last_hand is not None
    assert PublicHand.from_json(view.last_hand.to_json()) == view.last_hand


@pytest.mark.parametrize(
    "mangle",
    [
        lambda d: d.pop("position"),
        lambda d: d.update(hand=["8e"]),
        lambda d: d.update(legal=["dance"]),
        lambda d: d.update(rules={"players": 5}),
        lambda d: d.update(score=[1]),
    ],
    ids=["missing key", "bad card", "bad action", "bad rules", "bad score"],
)
def test_anything_else_is_refused_with_one_clear_error(mangle: object) -> None:
    data = seat_view(Game(Rules(), seed=1), 0).to_json()
    mangle(data)  # type: ignore[operator]
    with pytest.raises(ViewError, match=r"^not a seat view: "):
        SeatView.from_json(data)
