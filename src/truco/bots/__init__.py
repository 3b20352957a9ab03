"""Bots: players that see only their seat's view.

>>> bot = make_bot("random", seed=1)
>>> bot.name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .random_bot import RandomBot
from .search import SearchBot
from .simple import SimpleBot

#: name -> factory(level, seed)
BOTS: dict[str, Callable[[str, int | None], Bot]] = {
    "random": lambda level, seed: RandomBot(level, seed),
    "simple": lambda level, seed: SimpleBot(level, seed),
    "search": lambda level, seed: SearchBot(level, seed),
}


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from ``name`` or ``name:level`` (``"search:hard"``)."""
    name, _, level = spec.partition(":")
    factory = BOTS.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r} (one of {', '.join(sorted(BOTS))})")
    return factory(level or "default", seed)


__all__ = ["BOTS", "Bot", "RandomBot", "SearchBot", "SimpleBot", "make_bot"]
