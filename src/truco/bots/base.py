"""The bot interface: a bot sees exactly what a seated person sees.

A bot gets its seat's :class:`~truco.view.SeatView` (no hidden cards), the legal
actions and the table's rules, and returns one of the legal actions. The server, the
terminal game and the arena all use this interface.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence

from ..rules import Rules
from ..view import SeatView


class Bot(ABC):
    """A player. ``name`` identifies the kind, ``level`` its strength setting,
    ``seed`` makes its choices reproducible (``None``: unpredictable)."""

    name: str = "bot"

    def __init__(self, level: str = "default", seed: int | None = None) -> None:
        self.level = level
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        """Return one action of ``legal`` for the seat of ``view``."""

    def __repr__(self) -> str:
        return f"{self.name}:{self.level}"
