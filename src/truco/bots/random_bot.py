"""The random bot: uniform over the legal actions."""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import Rules
from ..view import SeatView
from .base import Bot


class RandomBot(Bot):
    """Uniform over the legal actions (megaphone words included only when they are
    all there is, which never happens: a seat that may speak may also wait)."""

    name = "random"

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        from ..actions import is_say

        choices = [a for a in legal if not is_say(a)] or list(legal)
        return self.rng.choice(choices)
