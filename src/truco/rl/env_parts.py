"""What the environments share: the game they run, its chance nodes, an agent's
observation and its space, rendering.

The AEC and Gymnasium environments (:mod:`truco.rl.env`) and the parallel one
(:mod:`truco.rl.parallel`) both build on these, so neither imports the other's module
for them.

>>> game = make_game("hand", {"players": 2, "max_hands": 1})
>>> state = game.new_initial_state()
>>> sample_chance(state, np.random.default_rng(0))
>>> obs = observe(state, state.current_player(), "observation")
>>> observation_space(game, "observation")["observation"].shape == obs["observation"].shape
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..actions import NUM_ACTIONS
from .game import TrucoGame, TrucoState

#: ``observation=``: which tensor an agent observes.
OBSERVATIONS = ("observation", "information_state")


def first_mano(options: dict[str, Any] | None) -> int | None:
    """``reset(options={"first_mano": seat})`` (``-1``: drawn), or ``None``: the game's."""
    mano = (options or {}).get("first_mano")
    if mano is not None and not isinstance(mano, int | np.integer):
        raise ValueError(f"first_mano must be a seat or -1 (got {mano!r})")
    return None if mano is None else int(mano)


def make_game(rewards: str, options: dict[str, Any]) -> TrucoGame:
    """The game an environment runs: ``options`` are the table's and the game's
    parameters, ``rewards`` its returns (``"match"`` or ``"hand"``)."""
    return TrucoGame(options, returns=rewards)


def check_observation(observation: str) -> str:
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS} (got {observation!r})")
    return observation


def sample_chance(state: TrucoState, rng: np.random.Generator) -> None:
    """Play the chance nodes (the deal, a drawn mano, who answers) from ``rng``."""
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])


def observe(state: TrucoState, seat: int, kind: str) -> dict[str, np.ndarray]:
    """``{"observation": the seat's tensor, "action_mask": its legal actions now}``."""
    tensor = (
        state.observation_tensor(seat)
        if kind == "observation"
        else state.information_state_tensor(seat)
    )
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if not state.is_terminal() and state.current_player() == seat:
        mask[state.legal_actions(seat)] = 1
    return {"observation": tensor, "action_mask": mask}


def observation_space(game: TrucoGame, kind: str) -> spaces.Dict:
    """The space of :func:`observe`'s dictionaries."""
    shape = tuple(
        game.observation_tensor_shape()
        if kind == "observation"
        else game.information_state_tensor_shape()
    )
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


def render_mode(mode: str | None, metadata: Mapping[str, Any]) -> str | None:
    """``mode`` if the environment's ``metadata`` offers it (``None``: no rendering)."""
    if mode is not None and mode not in metadata["render_modes"]:
        raise ValueError(f"render_mode must be one of {metadata['render_modes']} (got {mode!r})")
    return mode


def render(mode: str | None, state: TrucoState) -> str | None:
    """PettingZoo's and Gymnasium's convention: ``"ansi"`` returns the text, ``"human"``
    prints it."""
    if mode is None:
        gymnasium.logger.warn("render() was called without a render_mode")
        return None
    if mode == "human":
        print(state)
        return None
    return str(state)
