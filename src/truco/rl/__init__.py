"""The research interface: truco in the shapes agents are trained on.

- :mod:`truco.rl.game`: :class:`TrucoGame` / :class:`TrucoState`, OpenSpiel's API without
  OpenSpiel (fixed action enumeration, chance nodes for the deal, information-state
  strings and tensors, ``resample_from_infostate``).
- :mod:`truco.rl.encoding`: what one seat knows, as a string and as fixed-shape tensors.
- :mod:`truco.rl.env`: the PettingZoo AEC environment and a Gymnasium environment where
  the other seats are bots of the project (:class:`~truco.rl.env.MaskedBotEnv`: under the
  masked convention, for maskable learners and Gymnasium's ``check_env``).
- :mod:`truco.rl.vector`: many games stepped together, observations and masks as arrays.
- :mod:`truco.rl.policy_bot`: a trained policy seated as a :class:`truco.bots.Bot`.
- :mod:`truco.rl.parallel`: the PettingZoo parallel environment.
- :mod:`truco.rl.env_parts`: what the environments share (the game, its chance nodes, an
  agent's observation and space, rendering).
- :mod:`truco.rl.efg` and :mod:`truco.rl.exact`: mini-truco solved exactly: its whole tree
  for OpenSpiel's C++ tools; a bot as a strategy per information set, exact values.
- :mod:`truco.rl.best_response`: a best-response learner (a lower bound of exploitability).
- :mod:`truco.rl.registration`: the Gymnasium ids
  (``gymnasium.make("TrucoArgento/BotOpponent-v0")``, ``gymnasium.make_vec``), registered on
  import.
- :mod:`truco.rl.layout`: the observation and information-state tensors' layout, as a table.
- :mod:`truco.rl.openspiel`: registration with ``pyspiel`` where OpenSpiel is installed.

Needs the ``rl`` extra (``pip install 'truco-argento[rl]'``: numpy, gymnasium,
pettingzoo); the rest of the package does not.

>>> from truco.rl import TrucoGame
>>> game = TrucoGame(players=2, flor=False)
>>> state = game.new_initial_state()
>>> state.is_chance_node(), game.num_distinct_actions()
(True, 61)
"""

from __future__ import annotations

from . import registration as _registration  # noqa: F401  (the Gymnasium ids)
from .game import CHANCE_PLAYER_ID, TERMINAL_PLAYER_ID, TrucoGame, TrucoState

__all__ = ["CHANCE_PLAYER_ID", "TERMINAL_PLAYER_ID", "TrucoGame", "TrucoState"]
