"""Bots: players that see only their seat's view.

>>> bot = make_bot("random", seed=1)
>>> bot.name
'random'
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from .base import Bot
from .guided import GUIDES, GuidedBot
from .ladder import LADDER
from .random_bot import RandomBot
from .search import MirrorBot, SearchBot
from .simple import SimpleBot
from .student import StudentBot
from .styles import STYLES, StyleBot

#: name -> factory(level, seed)
BOTS: dict[str, Callable[[str, int | None], Bot]] = {
    "random": lambda level, seed: RandomBot(level, seed),
    "simple": lambda level, seed: SimpleBot(level, seed),
    "search": lambda level, seed: SearchBot(level, seed),
    "mirror": lambda level, seed: MirrorBot("tight" if level == "default" else level, seed),
    "student": lambda level, seed: (
        GuidedBot(level, seed) if level in GUIDES else StudentBot(level, seed)
    ),
}


def _style_factory(style: str) -> Callable[[str, int | None], Bot]:
    return lambda level, seed: StyleBot(style, seed)


#: The gauntlet's styles, each a bot of its own name (``tight``, ``loose``...).
BOTS.update({style: _style_factory(style) for style in STYLES})


def _level_factory(spec: str) -> Callable[[str, int | None], Bot]:
    return lambda level, seed: make_bot(spec, seed)


#: The ladder's levels (``beginner`` ... ``master``), each a bot of its own name, listed
#: first (the lobby offers the bots in this order).
BOTS = {**{level.name: _level_factory(level.spec) for level in LADDER}, **BOTS}

#: The opponents of ``truco arena --gauntlet``: one of each style, and the mirrors.
GAUNTLET = (*STYLES, "mirror:tight", "mirror:loose")


#: The entry-point group where optional parts of the package (and other packages) declare
#: bots: ``name = "module:factory"``, a ``factory(level, seed)`` (pyproject.toml's
#: ``[project.entry-points."truco.bots"]``), loaded on first use.
ENTRY_POINTS = "truco.bots"

#: The names of the bots loaded from :data:`ENTRY_POINTS` (or registered by such a part
#: on import): they take a level that is not a strength (``linear:PATH`` is a trained
#: policy's file), so the lobby does not list them.
PLUGIN_BOTS: set[str] = set()


def plugin_bot(name: str) -> Callable[[str, int | None], Bot] | None:
    """The factory of the bot ``name`` as an entry point of :data:`ENTRY_POINTS`
    declares it, loaded (``None``: none is declared)."""
    for point in entry_points(group=ENTRY_POINTS, name=name):
        factory: Callable[[str, int | None], Bot] = point.load()
        PLUGIN_BOTS.add(name)
        return factory
    return None


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from ``name`` or ``name:level`` (``"search:hard"``, ``"linear:policy.npz"``)."""
    name, _, level = spec.partition(":")
    factory = BOTS.get(name) or plugin_bot(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r} (one of {', '.join(sorted(BOTS))})")
    return factory(level or "default", seed)


__all__ = [
    "BOTS",
    "GAUNTLET",
    "LADDER",
    "Bot",
    "MirrorBot",
    "RandomBot",
    "SearchBot",
    "SimpleBot",
    "StudentBot",
    "StyleBot",
    "make_bot",
]
