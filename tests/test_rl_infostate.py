"""Information states: no leak, nothing seen is lost, and resampling keeps them.

Positions come from random playouts of :class:`truco.rl.TrucoGame` on every table
(1v1/2v2/3v3, sin/con flor, pica-pica, megaphone on so team words are covered).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import numpy as np
import pytest

from truco.cards import DECK, card_name
from truco.rl import TrucoGame, TrucoState
from truco.view import seat_view

TABLES = [
    {"players": 2, "flor": False},
    {"players": 2, "flor": True},
    {"players": 4, "flor": False},
    {"players": 4, "flor": True},
    {"players": 6, "flor": False},
    {"players": 6, "flor": True},
    {"players": 6, "flor": True, "pica_pica": True},
]
IDS = ["1v1", "1v1-flor", "2v2", "2v2-flor", "3v3", "3v3-flor", "3v3-flor-pica"]


def positions(table: dict[str, object], count: int, seed: int) -> Iterator[TrucoState]:
    """``count`` states (chance and player nodes) met along random playouts."""
    game = TrucoGame(megaphone=True, **table)
    rng = random.Random(seed)
    made = 0
    while made < count:
        state = game.new_initial_state()
        while not state.is_terminal() and made < count:
            if rng.random() < 0.35:
                yield state.clone()
                made += 1
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))


def _public(state: TrucoState) -> tuple[object, ...]:
    """What the whole table sees of the hand besides the cards played: tantos declared,
    flores sung, who may act, the pending call."""
    v = seat_view(state.game, None)
    return (
        v.showdowns,
        v.flor_sung,
        v.actors,
        v.pending,
        v.in_hand,
        v.truco_level,
        v.turn,
    )


def _with_other_cards(state: TrucoState, player: int, rng: random.Random) -> TrucoState | None:
    """The same episode with every card ``player`` has not seen dealt again at random
    (its own cards and the cards played stay), replayed from its record; ``None`` when
    the recorded actions are not legal with the new cards."""
    record = state.to_record()
    if not record["hands"] or state.game.needs_deal:
        return None
    hand = record["hands"][-1]
    played = {(s, tok.split()[1]) for s, tok in hand["actions"] if tok.startswith("play ")}
    seen = set(hand["deal"][player]) | {c for _, c in played}
    pool = [card_name(c) for c in DECK if card_name(c) not in seen]
    rng.shuffle(pool)
    hand["deal"] = [
        cards if s == player else [c if (s, c) in played else pool.pop() for c in cards]
        for s, cards in enumerate(hand["deal"])
    ]
    try:
        return state.game_spec.deserialize_state(json.dumps(record))
    except ValueError:
        return None


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_no_leak_other_deals_same_information_state(table: dict[str, object]) -> None:
    rng = random.Random(11)
    compared = changed_for_others = 0
    for state in positions(table, 160, seed=1):
        n = state.game.n
        player = rng.randrange(n)
        for _ in range(4):
            other = _with_other_cards(state, player, rng)
            if other is None or _public(other) != _public(state):
                continue  # the unseen cards changed something public: a different story
            compared += 1
            assert other.information_state_string(player) == state.information_state_string(player)
            assert np.array_equal(
                other.information_state_tensor(player),
                state.information_state_tensor(player),
            )
            assert other.observation_string(player) == state.observation_string(player)
            assert np.array_equal(
                other.observation_tensor(player), state.observation_tensor(player)
            )
            assert other.legal_actions(player) == state.legal_actions(player)
            # the cards did change: someone who holds them sees a different state
            if any(
                other.information_state_string(s) != state.information_state_string(s)
                for s in range(n)
            ):
                changed_for_others += 1
    assert compared > 50
    assert changed_for_others > compared // 2


def _seen(state: TrucoState, player: int) -> tuple[object, ...]:
    """Everything ``player``'s seat view holds about the hand and the match position
    (the previous hand's summary aside), plus its cards dealt so far at a chance node."""
    v = seat_view(state.game, player)
    fields = {f: getattr(v, f) for f in v.__dataclass_fields__ if f != "last_hand"}
    if not v.dealt:  # between hands: the round fields are the closed hand's leftovers
        fields = {
            f: fields[f] for f in ("seat", "position", "hand_index", "score", "chicos", "winner")
        }
    fields["dealt"] = tuple(sorted(v.dealt or state._own_dealing(player)))
    return tuple(sorted(fields.items()))


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_information_state_differs_exactly_when_something_seen_differs(
    table: dict[str, object],
) -> None:
    by_string: dict[str, tuple[object, ...]] = {}
    by_tensor: dict[bytes, tuple[object, ...]] = {}
    seen_to_string: dict[tuple[object, ...], str] = {}
    for state in positions(table, 400, seed=2):
        for player in range(state.game.n):
            seen = _seen(state, player)
            string = state.information_state_string(player)
            tensor = state.information_state_tensor(player).tobytes()
            assert by_string.setdefault(string, seen) == seen, (
                "two different things seen, one string"
            )
            assert by_tensor.setdefault(tensor, seen) == seen, (
                "two different things seen, one tensor"
            )
            assert seen_to_string.setdefault(seen, string) == string, "one thing seen, two strings"
    assert len(by_string) > 300


def test_order_of_the_log_is_part_of_the_information_state() -> None:
    # envido then truco, against truco answered "el envido está primero"
    game = TrucoGame(players=2, max_hands=1, returns="hand")
    first, second = game.new_initial_state(), game.new_initial_state()
    for s in (first, second):
        for card in (3, 4, 26, 13, 14, 35):  # 4e 5e 7o | 4b 5b 6c: nobody with flor
            s.apply_action(card)
    for a in (40, 50, 47):  # envido, quiero, truco
        first.apply_action(a)
    for a in (47, 40, 50):  # truco, envido (está primero), quiero
        second.apply_action(a)
    assert first.information_state_string(1) != second.information_state_string(1)
    assert not np.array_equal(first.information_state_tensor(1), second.information_state_tensor(1))


def test_team_words_are_seen_by_the_team_only() -> None:
    game = TrucoGame(players=4, megaphone=True)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = [state.information_state_string(s) for s in range(4)]
    speaker = state.current_player()
    state.apply_action(53)  # say si
    after = [state.information_state_string(s) for s in range(4)]
    for s in range(4):
        assert (before[s] != after[s]) == (s & 1 == speaker & 1)


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_resample_from_infostate_keeps_the_information_state(
    table: dict[str, object],
) -> None:
    rng = random.Random(5)
    pica_seen = 0
    for state in positions(table, 300, seed=3):
        player = rng.randrange(state.game.n)
        world = state.resample_from_infostate(player, rng)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert np.array_equal(
            world.information_state_tensor(player),
            state.information_state_tensor(player),
        )
        assert world.observation_string(player) == state.observation_string(player)
        assert world.current_player() == state.current_player()
        assert world.returns() == state.returns()
        # its history is a path of the game from the start to this very world (issue 32)
        replayed = state.game_spec.new_initial_state()
        for action in world.history():
            replayed.apply_action(action)
        assert replayed.to_record() == world.to_record()
        hand_start = state._hand_start  # earlier hands: kept as they were
        kept = len(hand_start.history()) if hand_start else len(state.history())
        assert world.history()[:kept] == state.history()[:kept]
        if world.current_player() == player:
            assert world.legal_actions() == state.legal_actions()
        pica_seen += state.game.pica_now
        # the world is a full game: it plays on to the end
        for _ in range(30):
            if world.is_terminal():
                break
            if world.is_chance_node():
                world.apply_action(rng.choice(world.chance_outcomes())[0])
            else:
                world.apply_action(rng.choice(world.legal_actions()))
    if table.get("pica_pica"):
        assert pica_seen > 0


def test_resample_accepts_openspiel_and_numpy_samplers() -> None:
    game = TrucoGame(players=4, flor=True)
    state = next(
        s for s in positions({"players": 4, "flor": True}, 50, seed=9) if s.is_player_node()
    )
    gen = np.random.default_rng(0)
    for rng in (gen, lambda: gen.random(), 7, None):
        world = state.resample_from_infostate(1, rng)
        assert world.information_state_string(1) == state.information_state_string(1)
    assert game.num_players() == 4
