"""``truco arena``: bots against bots in the duplicate format, with statistics.

Each deal sequence is played twice with the bots' seats swapped, so the luck of the
cards cancels; matches run on every core; the table reports match wins with a Wilson
95% interval, hand points per hand with a per-pair interval, the Elo difference and the
bots' decision times. :func:`compare` is the same from Python, for agents held in
memory (a policy just trained) as well as bot specs.
"""

from __future__ import annotations

from .agents import compare
from .cli import register
from .match import MatchResult, play_match
from .report import ArenaReport, summarize

__all__ = ["ArenaReport", "MatchResult", "compare", "play_match", "register", "summarize"]
