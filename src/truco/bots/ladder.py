"""The ladder: the levels a person climbs, named for players, each a method and a budget.

Each level is a bot of its own name (``beginner`` ... ``master``), played by one of the
methods below at a fixed budget; its rating is measured in the arena (``benchmarks/
ladder.py``, docs/bots.md), anchored at ``random`` = 0. The lobby lists these first, with
one line on each in the page's languages (``botdesc.<level>`` in the page catalogs).

>>> [level.name for level in LADDER]
['beginner', 'amateur', 'club', 'master']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """A rung: its ``name``, the bot ``spec`` that plays it (a method and its budget),
    and its measured arena ``rating`` (Elo, ``random`` = 0; docs/bots.md says how)."""

    name: str
    spec: str
    rating: int


#: From the weakest up. ``simple`` is the rule-based player (no search: it calls with
#: good cards and plays the obvious card, never an absurd move); ``search:easy`` samples
#: 8 worlds per decision; ``student`` is the learned evaluator (no worlds at all): at
#: ``club`` it strays from its best move at a temperature of one point; ``master`` is the
#: student guided by a small search of the expert's on its close decisions
#: (:mod:`.guided`; the student alone, the master before issue 29, is ``student:master``).
LADDER: tuple[Level, ...] = (
    Level("beginner", "simple", 636),
    Level("amateur", "search:easy", 827),
    Level("club", "student:club", 862),
    Level("master", "student:guided", 970),
)
#: The ladder by name.
LEVELS_BY_NAME = {level.name: level for level in LADDER}
#: The top of the ladder.
TOP = LADDER[-1]
