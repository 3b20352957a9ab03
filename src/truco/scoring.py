"""What calls are worth: the envido chain, falta envido, the flor, al resto, truco levels.

Pure functions of the chain and the chico's score at the start of the hand (points of a
hand are only added when it closes, so that score is the one in force).

>>> envido_accepted((ENVIDO, ENVIDO, REAL_ENVIDO), 0, (0, 0), 30, "leader")
7
>>> envido_refused((ENVIDO, ENVIDO, REAL_ENVIDO, FALTA_ENVIDO))
7
>>> falta_envido(0, (0, 0), 30, "leader")   # both in las malas: the chico
30
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import ENVIDO, FALTA_ENVIDO, REAL_ENVIDO
from .vocabulary import CallKind

MALAS = 15  # on a table to 30, points 0-14 are las malas

FLOR = 3
"""A flor that stands without a comparison: nobody rival holds flor, the rival answers
"con flor me achico", or every rival flor holder went to the mazo."""
CON_FLOR_QUIERO = 4
"""A first flor answered "con flor quiero" (variant): the comparison is worth 4."""
CONTRAFLOR = 6
"""An accepted contraflor: the comparison is worth 6."""
CONTRAFLOR_REFUSED_CON_FLOR_QUIERO = 4
"""A refused contraflor under the "con flor quiero" variant (3 otherwise)."""
CONTRAFLOR_AL_RESTO_REFUSED = 6
"""A refused contraflor al resto, even as the first answer to the flor."""


def envido_raises(chain: Sequence[int]) -> tuple[int, ...]:
    """The calls that may follow an envido chain: envido repeats once, straight after
    a single envido; real envido comes once; falta envido ends the chain."""
    if not chain:
        return (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO)
    last = chain[-1]
    if last == ENVIDO:
        return (
            (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO) if len(chain) == 1 else (REAL_ENVIDO, FALTA_ENVIDO)
        )
    if last == REAL_ENVIDO:
        return (FALTA_ENVIDO,)
    return ()


def _chain_sum(chain: Sequence[int]) -> int:
    return sum(2 if call == ENVIDO else 3 for call in chain)


def envido_accepted(
    chain: Sequence[int], winner: int, score: Sequence[int], target: int, falta_rule: str
) -> int:
    """Points for the winner of an accepted envido chain."""
    if chain[-1] == FALTA_ENVIDO:
        return falta_envido(winner, score, target, falta_rule)
    return _chain_sum(chain)


def envido_refused(chain: Sequence[int]) -> int:
    """Points for the team that made the refused last call: the chain accepted so far,
    or 1 when the refused call was the first."""
    return 1 if len(chain) == 1 else _chain_sum(chain[:-1])


def falta_envido(winner: int, score: Sequence[int], target: int, rule: str) -> int:
    """An accepted falta envido's worth for ``winner`` (team 0/1) at ``score``."""
    mine, theirs = score[winner], score[1 - winner]
    in_malas = target == 30 and mine < MALAS and theirs < MALAS
    if rule == "leader":
        return target - mine if in_malas else target - max(score)
    if rule == "loser":
        return target - theirs
    # "chico": the chico if the winner leads or the rival is in las malas
    rival_in_malas = target == 30 and theirs < MALAS
    if mine > theirs or rival_in_malas:
        return target - mine
    return target - theirs


def al_resto(score: Sequence[int], target: int) -> int:
    """Contraflor al resto: what the leader needs to reach the target; on a table to 30
    with both teams in las malas, what the leader needs to reach 15."""
    leader = max(score)
    if target == 30 and leader < MALAS:
        return MALAS - leader
    return target - leader


def flor_accepted(kind: CallKind, score: Sequence[int], target: int) -> int:
    """What the flor comparison is worth once the flor call ``kind`` is accepted.

    >>> flor_accepted(CallKind.CONTRAFLOR, (0, 0), 30), flor_accepted(CallKind.FLOR, (0, 0), 30)
    (6, 4)
    """
    if kind == CallKind.FLOR:  # "con flor quiero"
        return CON_FLOR_QUIERO
    if kind == CallKind.CONTRAFLOR:
        return CONTRAFLOR
    return al_resto(score, target)


def flor_refused(kind: CallKind, con_flor_quiero: bool) -> int:
    """Points for the team whose flor call ``kind`` is refused (or left unanswered
    because the whole answering team went to the mazo).

    >>> flor_refused(CallKind.CONTRAFLOR, False), flor_refused(CallKind.CONTRAFLOR, True)
    (3, 4)
    """
    if kind == CallKind.CONTRAFLOR_AL_RESTO:
        return CONTRAFLOR_AL_RESTO_REFUSED
    if kind == CallKind.CONTRAFLOR and con_flor_quiero:
        return CONTRAFLOR_REFUSED_CON_FLOR_QUIERO
    return FLOR


def truco_value(level: int) -> int:
    """Points of a round won at an accepted truco level (0 = no truco: 1 point)."""
    return level + 1


def truco_refused(level: int) -> int:
    """Points for the team whose truco call of ``level`` is refused: the level below,
    accepted (a refused truco 1, retruco 2, vale cuatro 3)."""
    return truco_value(level - 1)
