"""The search bot: determinized Monte Carlo over the rest of the hand.

For a decision it samples worlds consistent with its view (:mod:`truco.determinize`),
tries every candidate action in each world and plays the hand out with the rollout
policy (:mod:`.rollout`); each action is worth the mean change of the bot team's
match value (the hand's points, what they mean so near the target). The same worlds and
the same rollout randomness serve every candidate (common random numbers), so the
comparison is sharp. Levels are budgets of worlds, never peeks at hidden cards.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ..actions import is_say
from ..determinize import Determinizer
from ..game import Game
from ..rules import Rules
from ..view import SeatView
from .base import Bot
from .rollout import NEUTRAL, PlayerModel, action_likelihood, play_out_hand

#: Per level: worlds played out per decision, and worlds drawn per world kept (above
#: one, the kept worlds are chosen by how well they explain the rivals' calls and plays).
LEVELS = {"easy": (8, 3), "medium": (40, 3), "hard": (120, 4)}
ALIASES = {"default": "medium", "normal": "medium"}

#: The mirror bots' models of their rivals (``mirror:tight`` ...): our search, at the
#: medium budget, sure that its rivals play tighter or looser than its own policy.
MIRROR_MODELS = {
    "tight": PlayerModel(calls=-0.1, accepts=-0.15),
    "loose": PlayerModel(calls=0.1, accepts=0.15),
}


def match_value(need_mine: int, need_theirs: int) -> float:
    """A smooth estimate of the chance of winning the chico needing ``need_mine`` points
    against rivals needing ``need_theirs``: about 1.6 points change hands per hand."""
    if need_mine <= 0:
        return 1.0
    if need_theirs <= 0:
        return 0.0
    return 0.5 * (
        1.0 + math.erf((need_theirs - need_mine) / (2.2 * math.sqrt(need_mine + need_theirs)))
    )


def hand_utility(points: Sequence[int], score: Sequence[int], team: int, target: int) -> float:
    """What a hand's ``points`` are worth to ``team`` from ``score``: the points that
    count (extra points past the target are lost) plus the change in match value."""
    need_m, need_t = target - score[team], target - score[1 - team]
    mine, theirs = points[team], points[1 - team]
    before = match_value(need_m, need_t)
    after = match_value(need_m - mine, need_t - theirs)
    return min(mine, need_m) - min(theirs, need_t) + 12.0 * (after - before)


def _custom_budget(level: str) -> tuple[int, int] | None:
    """A level written as ``WORLDSxOVERSAMPLE`` (``"40x3"``), for experiments."""
    worlds, x, oversample = level.partition("x")
    if x and worlds.isdigit() and oversample.isdigit() and int(worlds) > 0 and int(oversample) > 0:
        return int(worlds), int(oversample)
    return None


class SearchBot(Bot):
    """Determinized flat Monte Carlo search with a rule-based rollout policy."""

    name = "search"

    def __init__(
        self, level: str = "default", seed: int | None = None, rivals: PlayerModel = NEUTRAL
    ) -> None:
        level = ALIASES.get(level, level)
        budget = LEVELS.get(level) or _custom_budget(level)
        if budget is None:
            raise ValueError(
                f"unknown level {level!r} for search (one of {', '.join(LEVELS)}, or WORLDSxOVERSAMPLE)"
            )
        super().__init__(level, seed)
        self.worlds, self.oversample = budget
        #: how the rivals are assumed to play, in the rollouts and the world weights
        self.rivals = rivals

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        candidates = [a for a in legal if not is_say(a)]
        if len(candidates) == 1:
            return candidates[0]
        assert view.seat is not None
        seat, team = view.seat, view.seat & 1
        rng = self.rng
        totals = [0.0] * len(candidates)
        score, target = view.score, rules.target
        models = (NEUTRAL, self.rivals) if team == 0 else (self.rivals, NEUTRAL)
        for world in self._worlds(Determinizer(view), team):
            world.dealer = None  # only this hand is played out
            closed = len(world.history)
            rollout_seed = rng.random()
            for i, action in enumerate(candidates):
                game = world.clone()
                game.push(seat, action)
                play_out_hand(game, random.Random(rollout_seed), models)
                totals[i] += hand_utility(game.history[closed].points, score, team, target)
        best = max(range(len(candidates)), key=totals.__getitem__)
        return candidates[best]

    def _worlds(self, determinizer: Determinizer, team: int) -> list[Game]:
        """The worlds to play out: uniform among the consistent deals, or (oversampling)
        resampled by the likelihood of the rivals' logged actions under the rollout policy."""
        rng, model = self.rng, self.rivals
        if self.oversample <= 1:
            return [determinizer.sample(rng) for _ in range(self.worlds)]

        def rivals(game: Game, seat: int, action: int) -> float:
            return action_likelihood(game, seat, action, model) if seat & 1 != team else 1.0

        drawn = [
            determinizer.sample_weighted(rng, rivals) for _ in range(self.worlds * self.oversample)
        ]
        worlds = [w for w, _ in drawn]
        weights = [weight for _, weight in drawn]
        return rng.choices(worlds, weights=weights, k=self.worlds)


class MirrorBot(SearchBot):
    """The search bot (medium budget) with another model of its rivals
    (:data:`MIRROR_MODELS`): a gauntlet opponent that plays like us but reads the table
    differently."""

    name = "mirror"

    def __init__(self, level: str = "default", seed: int | None = None) -> None:
        model = MIRROR_MODELS.get(level)
        if model is None:
            raise ValueError(
                f"unknown level {level!r} for mirror (one of {', '.join(MIRROR_MODELS)})"
            )
        super().__init__("medium", seed, rivals=model)
        self.level = level
