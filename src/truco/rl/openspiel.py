"""Truco registered with OpenSpiel (``pyspiel``), where ``open_spiel`` is installed.

Importing this module registers ``python_truco_argento``; then
``pyspiel.load_game("python_truco_argento", {"players": 4, "flor": True})`` gives a
game every OpenSpiel algorithm can run (CFR variants walk the chance nodes, IS-MCTS
uses ``resample_from_infostate``). Without ``open_spiel`` the module imports cleanly and
:data:`AVAILABLE` is ``False``. The pyspiel classes only forward to
:class:`truco.rl.game.TrucoState`: the same enumeration, strings, tensors and returns.

>>> import truco.rl.openspiel as ts
>>> ts.AVAILABLE in (True, False)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .game import DEFAULT_PARAMS, TrucoGame, TrucoState

try:  # pragma: no cover - depends on the optional open_spiel
    import pyspiel  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    pyspiel = None

AVAILABLE = pyspiel is not None
SHORT_NAME = TrucoGame.short_name

if AVAILABLE:  # pragma: no cover - exercised only where open_spiel is installed

    def _game_type() -> Any:
        return pyspiel.GameType(
            short_name=SHORT_NAME,
            long_name=TrucoGame.long_name,
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=pyspiel.GameType.RewardModel.REWARDS,
            max_num_players=6,
            min_num_players=2,
            provides_information_state_string=True,
            provides_information_state_tensor=True,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=dict(DEFAULT_PARAMS),
        )

    class SpielTrucoGame(pyspiel.Game):  # type: ignore[misc]
        """The pyspiel face of :class:`TrucoGame`."""

        def __init__(self, params: dict[str, Any] | None = None) -> None:
            spec = TrucoGame({**DEFAULT_PARAMS, **(params or {})})
            info = pyspiel.GameInfo(
                num_distinct_actions=spec.num_distinct_actions(),
                max_chance_outcomes=spec.max_chance_outcomes(),
                num_players=spec.num_players(),
                min_utility=spec.min_utility(),
                max_utility=spec.max_utility(),
                utility_sum=0.0,
                max_game_length=spec.max_game_length(),
            )
            super().__init__(_game_type(), info, params or {})
            self.spec = spec

        def new_initial_state(self) -> SpielTrucoState:
            return SpielTrucoState(self)

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
            perfect_recall = iig_obs_type is None or iig_obs_type.perfect_recall
            return _Observer(self.spec, perfect_recall)

    class SpielTrucoState(pyspiel.State):  # type: ignore[misc]
        """The pyspiel face of :class:`TrucoState`."""

        def __init__(self, game: SpielTrucoGame, inner: TrucoState | None = None) -> None:
            super().__init__(game)
            self.inner = inner or game.spec.new_initial_state()

        def current_player(self) -> int:
            player = self.inner.current_player()
            if player == -1:
                return int(pyspiel.PlayerId.CHANCE)
            if player == -4:
                return int(pyspiel.PlayerId.TERMINAL)
            return player

        def _legal_actions(self, player: int) -> list[int]:
            return self.inner.legal_actions(-1 if player == pyspiel.PlayerId.CHANCE else player)

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return self.inner.chance_outcomes()

        def _apply_action(self, action: int) -> None:
            self.inner.apply_action(action)

        def _action_to_string(self, player: int, action: int) -> str:
            from .game import action_to_string

            return action_to_string(action, -1 if player == pyspiel.PlayerId.CHANCE else player)

        def is_terminal(self) -> bool:
            return self.inner.is_terminal()

        def returns(self) -> list[float]:
            return self.inner.returns()

        def rewards(self) -> list[float]:
            return self.inner.rewards()

        def resample_from_infostate(
            self, player_id: int, probability_sampler: Any
        ) -> SpielTrucoState:
            return SpielTrucoState(
                self.get_game(),
                self.inner.resample_from_infostate(player_id, probability_sampler),
            )

        def __deepcopy__(self, memo: dict[int, Any]) -> SpielTrucoState:
            new = SpielTrucoState(self.get_game(), self.inner.clone())
            return new

        def __str__(self) -> str:
            return str(self.inner)

    class _Observer:
        """OpenSpiel's PyObserver: perfect recall -> the information state, else the
        observation."""

        def __init__(self, spec: TrucoGame, perfect_recall: bool) -> None:
            self.perfect_recall = perfect_recall
            shape = (
                spec.information_state_tensor_shape()
                if perfect_recall
                else spec.observation_tensor_shape()
            )
            self.tensor = np.zeros(shape, np.float32)
            self.dict = {"observation": self.tensor}

        def set_from(self, state: SpielTrucoState, player: int) -> None:
            inner = state.inner
            values = (
                inner.information_state_tensor(player)
                if self.perfect_recall
                else inner.observation_tensor(player)
            )
            self.tensor[:] = values

        def string_from(self, state: SpielTrucoState, player: int) -> str:
            inner = state.inner
            if self.perfect_recall:
                return inner.information_state_string(player)
            return inner.observation_string(player)


_registered = False


def register() -> bool:
    """Register the game with ``pyspiel`` (once); ``False`` when OpenSpiel is missing."""
    global _registered
    if not AVAILABLE:
        return False
    if not _registered:  # pragma: no cover
        pyspiel.register_game(_game_type(), SpielTrucoGame)
        _registered = True
    return True


register()

__all__ = ["AVAILABLE", "SHORT_NAME", "register"]
