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
