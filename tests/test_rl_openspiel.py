"""The optional OpenSpiel registration."""

from __future__ import annotations

import importlib
import random

import pytest


def test_the_module_imports_without_open_spiel() -> None:
    module = importlib.import_module("truco.rl.openspiel")
    assert module.SHORT_NAME == "python_truco_argento"
    assert module.register() == module.AVAILABLE


def test_pyspiel_loads_and_plays_the_game() -> None:
    pyspiel = pytest.importorskip(
        "pyspiel",
        reason="open_spiel is not installed (optional: pip install open_spiel)",
    )
    import truco.rl.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_truco_argento", {"players": 4, "flor": True})
    assert game.num_distinct_actions() == 61
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            player = state.current_player()
            state.information_state_string(player)
            state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == 0


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2},
        {"players": 4, "flor": True, "megaphone": True, "first_mano": -1},
        {"players": 6, "pica_pica": True, "max_hands": 3},
    ],
)
def test_the_fast_tensors_are_pyspiels_own(params: dict[str, object]) -> None:
    """``information_state_tensor()``/``observation_tensor()`` answer from Python (one
    encoding per state version); they must equal what pyspiel's C++ path and a fresh
    observer compute, for every seat, at every kind of node, and follow the state."""
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (optional)")
    import numpy as np

    import truco.rl.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_truco_argento", params)
    n = game.num_players()
    rng = random.Random(7)
    checked = 0
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            for p in range(n):
                for perfect_recall in (True, False):
                    fast = (
                        state.information_state_tensor(p)
                        if perfect_recall
                        else state.observation_tensor(p)
                    )
                    cxx = (
                        pyspiel.State.information_state_tensor(state, p)
                        if perfect_recall
                        else pyspiel.State.observation_tensor(state, p)
                    )
                    inner = (
                        state.inner.information_state_tensor(p)
                        if perfect_recall
                        else state.inner.observation_tensor(p)
                    )
                    observer = game.make_py_observer(
                        pyspiel.IIGObservationType(perfect_recall=perfect_recall)
                    )
                    observer.set_from(state, p)
                    assert type(fast) is list
                    assert fast == cxx == inner.tolist() == observer.tensor.tolist()
                    assert np.array_equal(state.tensor(perfect_recall, p), inner)
                    checked += 1
            if not state.is_chance_node():
                assert state.information_state_tensor() == state.information_state_tensor(
                    state.current_player()
                )
            state.apply_action(rng.choice(state.legal_actions()))
        with pytest.raises(ValueError):
            state.information_state_tensor()  # no one acts at the end
    assert checked > 500


def test_a_cached_tensor_cannot_be_changed_by_its_reader() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (optional)")
    import truco.rl.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_truco_argento", {"players": 2})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    first = state.information_state_tensor()
    first[:] = [9.0] * len(first)
    assert max(state.information_state_tensor()) == 1.0
    with pytest.raises(ValueError):
        state.tensor(True)[0] = 9.0
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.information_state_tensor(0) != state.information_state_tensor(0)
