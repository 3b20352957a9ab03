"""Gymnasium ids of the environments (registered when :mod:`truco.rl` is imported).

- ``TrucoArgento/BotOpponent-v0``: :class:`~truco.rl.env.BotOpponentEnv`; with
  ``gymnasium.make_vec``, :class:`~truco.rl.vector.TrucoVectorEnv` against the same bots.
- ``TrucoArgento/MaskedBotOpponent-v0``: :class:`~truco.rl.env.MaskedBotEnv` (an illegal
  action forfeits: for maskable learners); ``make_vec`` as above.
- ``TrucoArgento/SelfPlay-v0``: ``make_vec`` only, :class:`~truco.rl.vector.TrucoVectorEnv`
  where the caller plays every seat.

Keyword arguments are the environments' (``opponent``, ``learner``, ``rewards``,
``players``, ``flor``, ``max_hands``...). Without importing the package first, name the
module in the id: ``gymnasium.make("truco.rl:TrucoArgento/BotOpponent-v0")``.

>>> import gymnasium
>>> e = gymnasium.make("TrucoArgento/BotOpponent-v0", opponent="simple", max_hands=1)
>>> obs, info = e.reset(seed=1)
>>> sorted(obs)
['action_mask', 'observation']
>>> v = gymnasium.make_vec("TrucoArgento/BotOpponent-v0", num_envs=4, opponent="simple")
>>> v.observation_space.shape
(4, 575)
"""

from __future__ import annotations

import gymnasium

#: The ids and what they make.
IDS = {
    "TrucoArgento/BotOpponent-v0": "truco.rl.env:BotOpponentEnv",
    "TrucoArgento/MaskedBotOpponent-v0": "truco.rl.env:MaskedBotEnv",
    "TrucoArgento/SelfPlay-v0": None,
}
_VECTOR = "truco.rl.vector:TrucoVectorEnv"


def register() -> None:
    """Register the ids (once; importing :mod:`truco.rl` does it)."""
    for env_id, entry_point in IDS.items():
        if env_id in gymnasium.registry:
            continue
        kwargs = {} if entry_point is None else {"opponent": "random"}
        gymnasium.register(
            id=env_id,
            entry_point=entry_point,
            vector_entry_point=_VECTOR,
            kwargs=kwargs,
        )


register()
