"""The arena for agents held in memory: the report of ``truco arena`` from Python.

>>> from truco.bots import make_bot
>>> from truco.rules import Rules
>>> report = compare(make_bot("simple", 1), "random", Rules(target=15), matches=4)
>>> report.matches, report.bots[1].name
(4, 'random')
>>> low, high = report.bots[0].ci95  # the Wilson 95% interval of its match win rate
>>> 0.0 <= low <= report.bots[0].match_win_rate <= high <= 1.0
True
"""

from __future__ import annotations

from ..bots import Bot
from ..rules import Rules
from .cli import _play
from .report import ArenaReport


def compare(
    agent: str | Bot,
    opponent: str | Bot,
    rules: Rules | None = None,
    matches: int = 100,
    seed: int = 0,
    jobs: int = 1,
    max_seconds: float | None = None,
) -> ArenaReport:
    """``agent`` against ``opponent`` in duplicate matches, as ``truco arena A B`` plays
    them (the same deals for a seed, each pair with the seats swapped), and the same
    report: match wins with a Wilson 95% interval, points per hand with a per-pair
    interval, the Elo difference, decision times (``report.table()`` prints it as the
    command does, ``report.to_json()`` is its ``--json``).

    Each of them is a bot spec (``"simple"``, ``"search:expert"``, ``"linear:p.npz"``)
    or a :class:`~truco.bots.Bot` object — e.g. a :class:`~truco.rl.policy_bot.PolicyBot`
    around a policy just trained — which plays every seat of its team as it is.
    ``rules``: the table (default: 1v1 sin flor to 30); ``matches``: an even number;
    ``jobs``: processes (forked: an object is copied into each); ``max_seconds``: stop
    starting pairs after that long. A bad argument raises ``ValueError``."""
    rules = rules or Rules()
    if matches < 2 or matches % 2:
        raise ValueError(f"matches must be an even number of at least 2, got {matches}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    report = _play((agent, opponent), rules, seed, matches // 2, jobs, max_seconds, None)
    if report is None:
        raise ValueError("no duplicate pair finished within max_seconds")
    return report
