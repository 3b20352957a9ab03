"""OpenSpiel observers for every ``IIGObservationType``, checked for what they reveal
(issue 15: asked for public information only, the observer used to return the seat's
own cards)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (optional: pip install open_spiel)"
)

from truco.cards import DECK, card_name  # noqa: E402
from truco.rl import TrucoGame  # noqa: E402
from truco.rl.openspiel import SpielTrucoGame, SpielTrucoState  # noqa: E402
from truco.view import seat_view  # noqa: E402

PRIVATE = pyspiel.PrivateInfoType
COMBOS = list(
    itertools.product(
        (False, True), (False, True), (PRIVATE.NONE, PRIVATE.SINGLE_PLAYER, PRIVATE.ALL_PLAYERS)
    )
)
PARAMS = {"players": 4, "flor": True, "megaphone": True}


def _id(combo: tuple[bool, bool, object]) -> str:
    recall, public, private = combo
    return f"{'recall' if recall else 'now'}-{'public' if public else 'nopublic'}-{private.name}"


def _positions(count: int, seed: int) -> Iterator[SpielTrucoState]:
    game = pyspiel.load_game("python_truco_argento", PARAMS)
    rng = random.Random(seed)
    made = 0
    while made < count:
        state = game.new_initial_state()
        while not state.is_terminal() and made < count:
            if state.is_player_node() and rng.random() < 0.3:
                yield state.clone()
                made += 1
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))


def _redealt(state: SpielTrucoState, keep: set[int], rng: random.Random) -> SpielTrucoState | None:
    """The same hand with every unplayed card of the seats not in ``keep`` dealt again,
    replayed from its record; ``None`` when that changes anything public (a tanto
    declared, a flor, an action no longer legal)."""
    inner = state.inner
    record = inner.to_record()
    hand = record["hands"][-1]
    played = {(s, tok.split()[1]) for s, tok in hand["actions"] if tok.startswith("play ")}
    fixed = {c for s, cards in enumerate(hand["deal"]) if s in keep for c in cards}
    fixed |= {c for _, c in played}
    pool = [card_name(c) for c in DECK if card_name(c) not in fixed]
    rng.shuffle(pool)
    hand["deal"] = [
        cards if s in keep else [c if (s, c) in played else pool.pop() for c in cards]
        for s, cards in enumerate(hand["deal"])
    ]
    import json

    try:
        other = TrucoGame(PARAMS).deserialize_state(json.dumps(record))
    except ValueError:
        return None
    if other.current_player() != inner.current_player():
        return None
    a, b = seat_view(inner.game, None), seat_view(other.game, None)
    if (a.showdowns, a.flor_sung, a.actors, a.pending, a.in_hand) != (
        b.showdowns,
        b.flor_sung,
        b.actors,
        b.pending,
        b.in_hand,
    ):
        return None
    return SpielTrucoState(state.get_game(), other)


def _seen(observer: object, state: SpielTrucoState, player: int) -> tuple[bytes, str]:
    observer.set_from(state, player)  # type: ignore[attr-defined]
    return observer.tensor.tobytes(), observer.string_from(state, player)  # type: ignore[attr-defined]


@pytest.mark.parametrize("combo", COMBOS, ids=_id)
def test_each_observation_type_reveals_what_it_says(combo: tuple[bool, bool, object]) -> None:
    recall, public, private = combo
    game: SpielTrucoGame = pyspiel.load_game("python_truco_argento", PARAMS)
    iig = pyspiel.IIGObservationType(
        perfect_recall=recall, public_info=public, private_info=private
    )
    observer = game.make_py_observer(iig)
    rng = random.Random(5)
    own_changes = others_change = compared = 0
    for state in _positions(120, seed=3):
        player = rng.randrange(4)
        seen = _seen(observer, state, player)
        if not public and private == PRIVATE.NONE:  # asked for nothing
            assert observer.tensor.size == 0 and seen[1] == ""
            compared += 1
            continue
        others = _redealt(state, {player}, rng)  # the seat's own cards kept
        if others is not None:
            compared += 1
            if private == PRIVATE.ALL_PLAYERS:
                others_change += _seen(observer, others, player) != seen
            else:  # nobody else's card shows
                assert _seen(observer, others, player) == seen
        everyone = _redealt(state, set(), rng)  # the seat's own cards too
        if everyone is not None:
            if private == PRIVATE.NONE:  # nothing private at all
                assert _seen(observer, everyone, player) == seen
            else:
                own_changes += _seen(observer, everyone, player) != seen
    assert compared > 30
    if private == PRIVATE.ALL_PLAYERS:
        assert others_change > 0
    if private != PRIVATE.NONE and (public or private == PRIVATE.SINGLE_PLAYER):
        assert own_changes > 0


def test_the_default_types_are_the_information_state_and_the_observation() -> None:
    game = pyspiel.load_game("python_truco_argento", PARAMS)
    info = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    obs = game.make_py_observer()
    for state in _positions(40, seed=8):
        p = state.current_player()
        info.set_from(state, p)
        obs.set_from(state, p)
        assert np.array_equal(info.tensor, state.information_state_tensor(p))
        assert np.array_equal(obs.tensor, state.observation_tensor(p))
        assert info.string_from(state, p) == state.information_state_string(p)
        assert obs.string_from(state, p) == state.observation_string(p)


def test_private_blocks_hold_exactly_the_cards() -> None:
    game = pyspiel.load_game("python_truco_argento", PARAMS)
    own = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=False))
    every = game.make_py_observer(
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=False, private_info=PRIVATE.ALL_PLAYERS
        )
    )
    for state in _positions(40, seed=9):
        g, p = state.inner.game, state.current_player()
        own.set_from(state, p)
        assert set(np.flatnonzero(own.tensor[:40])) == set(g.dealt[p])
        assert set(np.flatnonzero(own.tensor[40:])) == set(g.cards[p])
        every.set_from(state, p)
        for s in range(4):
            block = every.tensor[((s - p) % 4) * 80 :][:80]
            assert set(np.flatnonzero(block[:40])) == set(g.dealt[s])
            assert set(np.flatnonzero(block[40:])) == set(g.cards[s])


def _after_envido(deal: list[int]) -> SpielTrucoState:
    """1v1: ``deal`` (seat 0's three cards, then seat 1's), envido quiero, the tantos
    declared, then truco from seat 0."""
    from truco.actions import parse_action

    state = pyspiel.load_game("python_truco_argento", {"players": 2}).new_initial_state()
    for card in deal:
        state.apply_action(card)
    for token in ("envido", "quiero", "truco"):
        state.apply_action(parse_action(token))
    return state


@pytest.mark.parametrize("recall", [False, True], ids=["now", "recall"])
def test_the_public_observer_keeps_the_hands_public_information(recall: bool) -> None:
    """Issue 32: asked for public information only, the observer used to read the
    stripped cards as "between hands" and say ``dealing`` for every position, leaving out
    the tantos declared, the pending call, the truco level, turn, bazas and envido."""
    observer = pyspiel.load_game("python_truco_argento", {"players": 2}).make_py_observer(
        pyspiel.IIGObservationType(
            perfect_recall=recall, public_info=True, private_info=PRIVATE.NONE
        )
    )
    # seat 0's tanto differs (two swords, or not), seat 1's cards are the same
    high = _after_envido([0, 1, 2, 3, 4, 5])
    low = _after_envido([0, 1, 10, 3, 4, 5])
    assert high.inner.game.showdowns != low.inner.game.showdowns
    for player in (0, 1):
        (high_tensor, high_string) = _seen(observer, high, player)
        (low_tensor, low_string) = _seen(observer, low, player)
        assert high_tensor != low_tensor
        assert high_string != low_string
        assert "dealing" not in high_string
        assert "pending truco team 1 level 1" in high_string
        assert "turn - actors 1 in 11" in high_string
        # and still nothing private: no card of any seat in the public block
        for card in (0, 1, 2, 3, 4, 5, 10):
            assert card_name(card) not in high_string.split("| log")[0].split("| bazas")[0]
