"""The game's vocabulary as named types: seats, teams, cards, actions, calls and stages.

Seats, teams, cards and actions stay plain integers (the engine's hot path indexes
tables with them); the aliases say which one a signature means. Seats are numbered
``0..players-1`` in playing order; a seat's team is ``seat & 1`` (even seats are team 0).

>>> call = Call(CallKind.TRUCO, team=1, level=2)
>>> call.kind.token, call.team, call.level
('truco', 1, 2)
>>> Stage.CALLED > Stage.OPEN
True
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, NamedTuple

Seat = int
"""A seat at the table, ``0..players-1`` in playing order."""
Team = int
"""A team, 0 or 1: the team of ``seat`` is ``seat & 1``."""
Card = int
"""A card of the 40-card deck, ``0..39`` (see :mod:`truco.cards`)."""
Action = int
"""An action, ``0..NUM_ACTIONS-1``: a card played, a call, an answer, ``mazo`` or a
megaphone word (see :mod:`truco.actions`)."""

PARDA: Final = -1
"""The result of a baza tied between the teams (a baza result is otherwise a team)."""


class CallKind(IntEnum):
    """What a call waiting for its answer is about."""

    TRUCO = 0  # truco, retruco or vale cuatro
    ENVIDO = 1  # an envido chain (envido, real envido, falta envido)
    FLOR = 2  # the first flor of the hand, with a rival holding flor
    CONTRAFLOR = 3
    CONTRAFLOR_AL_RESTO = 4

    @property
    def token(self) -> str:
        """The call's name as records and views write it (``"contraflor-al-resto"``)."""
        return _CALL_KIND_TOKENS[self]


_CALL_KIND_TOKENS = ("truco", "envido", "flor", "contraflor", "contraflor-al-resto")


class Stage(IntEnum):
    """How far the envido (or the flor) of a round has gone."""

    OPEN = 0  # not called yet
    CALLED = 1  # called, waiting for its answer
    DONE = 2  # settled, refused, annulled, or closed by a flor


class Call(NamedTuple):
    """A call waiting for its answer."""

    kind: CallKind
    team: Team
    """The team that must answer."""
    level: int
    """For a truco call, the level it asks: 1 truco, 2 retruco, 3 vale cuatro; 0 for the
    other calls (an envido's calls are in ``Game.envido_calls``)."""
