"""``truco analyze``: a finished match's decisions weighed from each seat's view.

See :mod:`.engine` for the method, the grades' thresholds and the accuracy figure.
"""

from __future__ import annotations

from .cli import register
from .engine import BLUNDER, INACCURACY, MISTAKE, TOP_BOT, Analysis, Decision, analyze, grade

__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MISTAKE",
    "TOP_BOT",
    "Analysis",
    "Decision",
    "analyze",
    "grade",
    "register",
]
