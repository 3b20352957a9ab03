"""The OpenSpiel-shaped game: enumeration, chance nodes, turns, returns, copies, records."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from truco.actions import NUM_ACTIONS, is_say, parse_action
from truco.record import load_record, replay
from truco.rl import CHANCE_PLAYER_ID, TERMINAL_PLAYER_ID, TrucoGame
from truco.rl.game import action_to_string

RECORD_MD = Path(__file__).resolve().parents[1] / "docs" / "record-format.md"
ALL_TABLES = [{"players": p, "flor": f} for p in (2, 4, 6) for f in (False, True)] + [
    {"players": 6, "pica_pica": True}
]


def play_out(game: TrucoGame, rng: random.Random, check: bool = True):  # type: ignore[no-untyped-def]
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if check:
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                assert state.current_player() == CHANCE_PLAYER_ID
            state.apply_action(rng.choice(outcomes)[0])
            continue
        legal = state.legal_actions()
        if check:
            assert legal == sorted(legal) and legal
            mask = state.legal_actions_mask()
            assert len(mask) == game.num_distinct_actions() == NUM_ACTIONS
            assert [a for a, m in enumerate(mask) if m] == legal
            assert state.current_player() in state.game.actors()
        state.apply_action(rng.choice(legal))
        steps += 1
    return state, steps


def test_action_enumeration_round_trips_with_the_record_notation() -> None:
    text = RECORD_MD.read_text(encoding="utf-8") if RECORD_MD.exists() else ""
    tokens = [action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(tokens)) == NUM_ACTIONS
    for a, token in enumerate(tokens):
        assert parse_action(token) == a
        assert parse_action(token.upper()) == a
        word = token.split()[0]
        if text:
            assert f"`{word}" in text or f"`{token}`" in text, token
    assert tokens[0] == "play 1e" and tokens[39] == "play 12c"
    assert tokens[52] == "mazo" and tokens[60] == "say no-tengo-nada"
    if text:  # every token of docs/record-format.md's table of actions is in the enumeration
        table = text.split("## Actions")[1].split("## Record")[0]
        rows = [r for r in table.splitlines() if r.startswith("| `")]
        for row in rows:
            for word in re.findall(r"`([a-z-]+)`", row.split("|")[1]):
                if word not in ("play", "say"):
                    assert parse_action(word) in range(40, 53), word
        words = re.findall(r"`([a-z-]+)`", rows[-1].split("|")[2])
        assert [parse_action(f"say {w}") for w in words] == list(range(53, 61))
    assert action_to_string(7, CHANCE_PLAYER_ID) == "deal 10e"


@pytest.mark.parametrize("table", ALL_TABLES)
def test_random_episodes_follow_the_api_and_are_zero_sum(
    table: dict[str, object],
) -> None:
    for returns in ("match", "hand"):
        game = TrucoGame(returns=returns, **table)
        rng = random.Random(3)
        for _ in range(3):
            state, steps = play_out(game, rng)
            assert state.current_player() == TERMINAL_PLAYER_ID
            assert steps <= game.max_game_length()
            r = state.returns()
            assert sum(r) == 0.0
            assert all(r[s] == r[s & 1] for s in range(len(r)))  # a team shares its return
            assert game.min_utility() <= r[0] <= game.max_utility()
            if returns == "match":
                assert r[state.game.winner] == 1.0
            else:
                diff = sum(h.points[0] - h.points[1] for h in state.game.history)
                assert r[0] == diff


def test_a_hand_opens_with_one_chance_node_per_card() -> None:
    game = TrucoGame(players=4, max_hands=1)
    state = game.new_initial_state()
    chance = 0
    while state.is_chance_node():
        assert len(state.chance_outcomes()) == 40 - chance
        state.apply_action(state.chance_outcomes()[-1][0])
        chance += 1
    assert chance == 12
    assert state.game.dealt[0] == (39, 38, 37)  # seat 0's three cards are dealt first


def test_chance_picks_which_partner_answers_as_the_arena_does() -> None:
    game = TrucoGame(players=4, max_hands=1)
    state = game.new_initial_state()
    for card in range(12):  # 1e 2e 3e | 4e 5e 6e | 7e 10e 11e | 12e 1b 2b
        state.apply_action(card)
    assert state.current_player() == 0
    state.apply_action(47)  # seat 0 calls truco: seats 1 and 3 may answer
    assert state.game.actors() == (1, 3)
    assert state.is_chance_node() and state.chance_kind() == "answer"
    assert state.chance_outcomes() == [(1, 0.5), (3, 0.5)]
    assert state.action_to_string(CHANCE_PLAYER_ID, 3) == "answers 3"
    with pytest.raises(ValueError, match="may not answer"):
        state.apply_action(2)
    state.apply_action(3)
    assert state.current_player() == 3
    assert state.legal_actions(1) == []  # only the picked partner answers
    state.apply_action(50)  # quiero: seat 0 still has to play its card
    assert state.current_player() == 0 and not state.is_chance_node()


def test_a_drawn_first_mano_is_a_chance_node() -> None:
    game = TrucoGame(players=4, first_mano=-1, max_hands=1)
    state = game.new_initial_state()
    assert state.chance_kind() == "mano"
    assert [s for s, _ in state.chance_outcomes()] == [0, 1, 2, 3]
    state.apply_action(2)
    assert state.game.mano == 2 and state.chance_kind() == "deal"
    for card in range(12):
        state.apply_action(card)
    assert state.current_player() == 2
    assert game.new_initial_state(first_mano=3).chance_kind() == "deal"


def test_illegal_actions_raise_and_change_nothing() -> None:
    game = TrucoGame(players=2)
    state = game.new_initial_state()
    with pytest.raises(ValueError):
        state.apply_action(47)  # not a card of the deck being dealt? it is no card at all
    for card in range(6):
        state.apply_action(card)
    with pytest.raises(ValueError):
        state.apply_action(0 + 3)  # a card of seat 1, not of seat 0
    before = state.serialize()
    with pytest.raises(ValueError):
        state.apply_action(50)  # quiero with nothing to accept
    assert state.serialize() == before


def test_megaphone_words_are_out_by_default_and_capped_when_in() -> None:
    rng = random.Random(4)
    quiet = TrucoGame(players=4)
    state, _ = play_out(quiet, rng, check=False)
    assert not any(is_say(a) for h in state.game.history for _, a in h.actions)
    talk = TrucoGame(players=4, megaphone=True, says_per_seat=2, max_hands=1)
    state = talk.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    seat = state.current_player()
    for _ in range(2):
        assert 53 in state.legal_actions()
        state.apply_action(53)
        assert state.current_player() == seat  # a word keeps the turn
    assert not any(is_say(a) for a in state.legal_actions())
    assert TrucoGame(players=2, megaphone=True).says_per_seat == 0  # no team talk in 1v1


def test_clone_is_independent() -> None:
    game = TrucoGame(players=2)
    rng = random.Random(8)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[-1])
    assert copy.history() != state.history()
    assert state.information_state_string(0) != copy.information_state_string(0)


@pytest.mark.parametrize("table", ALL_TABLES)
def test_serialize_is_a_record_and_deserializes_to_the_same_state(
    table: dict[str, object],
) -> None:
    game = TrucoGame(returns="hand", megaphone=True, **table)
    rng = random.Random(6)
    state = game.new_initial_state()
    for _ in range(rng.randrange(40, 400)):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    text = state.serialize()
    record = load_record(text)  # a valid truco-record/1
    assert replay(record).error is None
    again = game.deserialize_state(text)
    assert again.history() == state.history()
    assert again.returns() == state.returns()
    assert again.current_player() == state.current_player()
    for p in range(game.num_players()):
        assert again.information_state_string(p) == state.information_state_string(p)
        assert np.array_equal(again.observation_tensor(p), state.observation_tensor(p))
    assert json.loads(text)["format"] == "truco-record/1"


def test_tensor_shapes_are_fixed_per_table() -> None:
    for table in ALL_TABLES:
        game = TrucoGame(**table)
        state, _ = play_out(game, random.Random(1), check=False)
        assert state.information_state_tensor(0).shape == tuple(
            game.information_state_tensor_shape()
        )
        assert state.observation_tensor(1).shape == tuple(game.observation_tensor_shape())
    assert (
        TrucoGame(players=2).information_state_tensor_shape()
        != TrucoGame(players=4).information_state_tensor_shape()
    )


def test_game_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown game parameter"):
        TrucoGame(colour="red")
    with pytest.raises(ValueError, match="returns"):
        TrucoGame(returns="bazas")
    with pytest.raises(ValueError, match="pica_pica"):
        TrucoGame(players=2, pica_pica=True)
    assert "players=4" in str(TrucoGame(players=4))
