"""A trained policy seated as a :class:`truco.bots.Bot`.

A :class:`PolicyBot` encodes its seat's view with :class:`~truco.rl.encoding.Encoder`
(the very tensors of training), masks the legal actions and asks the policy. Any object
with ``probabilities(observation, mask) -> array`` is a policy; :class:`LinearPolicy`
(softmax of a linear function, numpy only) is the one of ``examples/train_tiny_agent.py``
and saves to / loads from a ``.npz`` file.

The bot kinds ``linear`` and ``ppo`` are this module's :func:`load_bot` and
:func:`load_ppo_bot`, declared as entry points of the group ``truco.bots``
(pyproject.toml) and added to :data:`truco.bots.BOTS` by importing this module:
``make_bot("linear:/path/policy.npz")`` or
``make_bot("ppo:/path/model.zip")`` (a ``MaskablePPO`` of sb3-contrib, the ``ppo`` extra),
and so the arena and the server, can seat a saved policy.

>>> from truco import Game, Rules
>>> from truco.view import seat_view
>>> policy = LinearPolicy.zeros(Rules())
>>> bot = PolicyBot(policy, seed=1)
>>> game = Game(Rules(), seed=2)
>>> seat = game.actors()[0]
>>> legal = game.legal_actions(seat)
>>> bot.choose(seat_view(game, seat), legal, game.rules) in legal
True
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..actions import NUM_ACTIONS, is_say
from ..bots import BOTS, PLUGIN_BOTS, Bot
from ..rules import Rules
from ..view import SeatView
from .encoding import Encoder


class Policy(Protocol):
    """What a :class:`PolicyBot` needs: action probabilities for an encoded view."""

    rules: Rules
    observation: str  # "observation" or "information_state"

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


class LinearPolicy:
    """``softmax(W @ x + b)`` over the legal actions (illegal ones get probability 0)."""

    def __init__(
        self,
        rules: Rules,
        weights: np.ndarray,
        bias: np.ndarray,
        observation: str = "observation",
    ) -> None:
        self.rules = rules
        self.observation = observation
        self.weights = weights.astype(np.float64)
        self.bias = bias.astype(np.float64)

    @classmethod
    def zeros(cls, rules: Rules, observation: str = "observation") -> LinearPolicy:
        """The uniform policy (over the legal actions) of a table."""
        enc = Encoder(rules)
        size = (
            enc.observation_shape if observation == "observation" else enc.information_state_shape
        )[0]
        return cls(rules, np.zeros((NUM_ACTIONS, size)), np.zeros(NUM_ACTIONS), observation)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        logits: np.ndarray = self.weights @ observation + self.bias
        return logits

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = np.where(mask > 0, self.logits(observation), -np.inf)
        logits -= logits.max()
        e = np.exp(logits)
        probs: np.ndarray = e / e.sum()
        return probs

    def save(self, path: str | Path) -> None:
        meta = json.dumps({"rules": self.rules.to_dict(), "observation": self.observation})
        np.savez_compressed(path, weights=self.weights, bias=self.bias, meta=np.array(meta))

    @classmethod
    def load(cls, path: str | Path) -> LinearPolicy:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            return cls(
                Rules.from_dict(meta["rules"]),
                data["weights"],
                data["bias"],
                meta["observation"],
            )


class PolicyBot(Bot):
    """A bot that acts with ``policy`` (greedy by default, or sampling with
    ``greedy=False``). Megaphone words are never said: the policies of this package are
    trained without them."""

    name = "policy"

    def __init__(
        self,
        policy: Policy,
        level: str = "default",
        seed: int | None = None,
        greedy: bool = True,
    ) -> None:
        super().__init__(level, seed)
        self.policy = policy
        self.greedy = greedy
        self.encoder = Encoder(policy.rules)
        self._np = np.random.default_rng(seed)

    def __deepcopy__(self, memo: dict[int, Any]) -> PolicyBot:
        """A copy with its own random state that shares the policy: a policy is read,
        never changed, while it plays, and some cannot be copied at all (a torch
        model's). Environments holding the bot are copied this way
        (:mod:`truco.rl.best_response` tries options in copies)."""
        new = copy.copy(self)
        new.rng = copy.deepcopy(self.rng, memo)
        new._np = copy.deepcopy(self._np, memo)
        return new

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        if rules.players != self.policy.rules.players or rules.target != self.policy.rules.target:
            trained = self.policy.rules.describe()
            raise ValueError(f"this policy was trained for {trained}, not {rules.describe()}")
        choices = [a for a in legal if not is_say(a)] or list(legal)
        if self.policy.observation == "observation":
            x = self.encoder.observation_tensor(view)
        else:  # the words heard are not part of a policy trained without the megaphone
            quiet = dataclasses.replace(view, log=tuple(e for e in view.log if not is_say(e[1])))
            x = self.encoder.information_state_tensor(quiet)
        mask = np.zeros(NUM_ACTIONS)
        mask[choices] = 1.0
        probs = self.policy.probabilities(x, mask)
        if self.greedy:
            return int(np.argmax(probs))
        return int(self._np.choice(NUM_ACTIONS, p=probs))


def load_bot(path: str, seed: int | None = None) -> PolicyBot:
    """A :class:`PolicyBot` for a :class:`LinearPolicy` saved at ``path``; a file that
    cannot be read as one raises ``ValueError`` naming it."""
    try:
        policy = LinearPolicy.load(path)
    except (OSError, ValueError, KeyError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(f"cannot load the policy {path!r}: {reason}") from None
    return PolicyBot(policy, level=path, seed=seed)


class MaskablePPOPolicy:
    """A ``MaskablePPO`` model of sb3-contrib (``examples/train_masked_ppo.py``) as a
    :class:`Policy`: the action distribution of its network, masked. The model keeps
    its table and observation kind in the attribute ``truco`` (saved with it)."""

    def __init__(self, model: Any) -> None:
        meta = getattr(model, "truco", None)
        if not isinstance(meta, dict) or "rules" not in meta:
            raise ValueError("the model carries no truco table (was it trained here?)")
        self.model = model
        self.rules = Rules.from_dict(meta["rules"])
        self.observation = str(meta.get("observation", "observation"))

    @classmethod
    def load(cls, path: str | Path) -> MaskablePPOPolicy:
        try:
            import torch  # type: ignore[import-not-found,unused-ignore]
            from sb3_contrib import MaskablePPO  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise ValueError(
                "a ppo: bot needs sb3-contrib (pip install 'truco-argento[ppo]')"
            ) from None
        # one decision at a time needs no thread pool, and a pool started before the
        # arena forks its workers deadlocks them
        torch.set_num_threads(1)
        return cls(MaskablePPO.load(str(path), device="cpu"))

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        policy = self.model.policy
        obs = {"observation": observation.astype(np.float32), "action_mask": mask.astype(np.int8)}
        tensor, _ = policy.obs_to_tensor(obs)
        dist = policy.get_distribution(tensor, action_masks=mask.astype(bool)[None, :])
        probs: np.ndarray = dist.distribution.probs[0].detach().cpu().numpy().astype(np.float64)
        return probs


def load_ppo_bot(path: str, seed: int | None = None) -> PolicyBot:
    """A :class:`PolicyBot` for a ``MaskablePPO`` model saved at ``path`` (needs the
    ``ppo`` extra); a file that cannot be read as one raises ``ValueError`` naming it."""
    try:
        policy = MaskablePPOPolicy.load(path)
    except (OSError, ValueError, KeyError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(f"cannot load the policy {path!r}: {reason}") from None
    return PolicyBot(policy, level=path, seed=seed)


# pyproject.toml declares both as entry points of the group ``truco.bots``, which
# :func:`truco.bots.make_bot` loads by name; importing this module registers them too.
BOTS.setdefault("linear", load_bot)
BOTS.setdefault("ppo", load_ppo_bot)
PLUGIN_BOTS.update(("linear", "ppo"))
