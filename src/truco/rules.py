"""Table options: one frozen, validated value.

>>> Rules(players=4, flor=True).target
30
>>> Rules(players=2, pica_pica=True)
Traceback (most recent call last):
...
truco.rules.RulesError: pica_pica is a 3v3 option: it needs players=6 (got players=2)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

#: Falta envido variants (docs/rules.md): what an accepted falta envido is worth.
FALTA_ENVIDO_VARIANTS = {
    "leader": "what the leading team still needs to reach the target; on a table to 30 with "
    "both teams in las malas its winner takes the chico (Truco Argento, the default)",
    "loser": "what the loser of the falta still needs to finish the chico (classic rule book)",
    "chico": "the winner takes the chico if it leads or the rival is in las malas, otherwise what "
    "the rival needs to reach the target (third rule book)",
}


class RulesError(ValueError):
    """A table option with a value, or a combination of options, that is not allowed."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The options of one table.

    ``players`` 2, 4 or 6 (1v1, 2v2, 3v3); ``flor`` con/sin flor; ``target`` 15 or 30
    points a chico; ``chicos`` 1 or best of 3; ``falta_envido`` one of
    :data:`FALTA_ENVIDO_VARIANTS`; ``con_flor_quiero`` the variant where a rival flor may
    accept the comparison for 4 (and a refused contraflor gives 4); ``pica_pica`` the
    3v3 option on tables to 30.
    """

    players: int = 2
    flor: bool = False
    target: int = 30
    chicos: int = 1
    falta_envido: str = "leader"
    con_flor_quiero: bool = False
    pica_pica: bool = False
    #: cards dealt to each seat: 3, or 1 or 2 for mini-truco (1v1 sin flor: a variant
    #: small enough to solve exactly; docs/rules.md says how its rounds are decided)
    hand_size: int = 3

    def __post_init__(self) -> None:
        def check(name: str, allowed: tuple[Any, ...]) -> None:
            value = getattr(self, name)
            if type(value) is not type(allowed[0]) or value not in allowed:
                raise RulesError(
                    f"{name} must be one of {', '.join(map(_show, allowed))} (got {_show(value)})"
                )

        check("players", (2, 4, 6))
        check("flor", (False, True))
        check("target", (30, 15))
        check("chicos", (1, 3))
        check("falta_envido", tuple(FALTA_ENVIDO_VARIANTS))
        check("con_flor_quiero", (False, True))
        check("pica_pica", (False, True))
        check("hand_size", (3, 1, 2))
        if self.hand_size != 3 and (self.players != 2 or self.flor):
            raise RulesError(f"hand_size {self.hand_size} (mini-truco) is a 1v1 sin flor option")
        if self.con_flor_quiero and not self.flor:
            raise RulesError("con_flor_quiero is a flor option: it needs flor=true")
        if self.pica_pica and self.players != 6:
            raise RulesError(
                f"pica_pica is a 3v3 option: it needs players=6 (got players={self.players})"
            )
        if self.pica_pica and self.target != 30:
            raise RulesError(f"pica_pica is played on tables to 30 (got target={self.target})")

    @property
    def chicos_to_win(self) -> int:
        return self.chicos // 2 + 1

    def to_dict(self) -> dict[str, Any]:
        """All options, as written in a record's ``rules`` (``hand_size`` only when it
        is not 3: records of the real game stay as they were)."""
        out = asdict(self)
        if self.hand_size == 3:
            del out["hand_size"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Options from a record's ``rules``: absent ones take the defaults, unknown keys
        are ignored (docs/record-format.md), bad values raise :class:`RulesError`."""
        if not isinstance(data, dict):
            raise RulesError("rules must be a JSON object")
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def describe(self) -> str:
        """A short human name: ``"2v2 con flor a 30"``."""
        size = {2: "1v1", 4: "2v2", 6: "3v3"}[self.players]
        parts = [size, "con flor" if self.flor else "sin flor", f"a {self.target}"]
        if self.chicos == 3:
            parts.append("al mejor de 3")
        if self.pica_pica:
            parts.append("con pica-pica")
        if self.hand_size != 3:
            parts.append(f"de {self.hand_size} carta{'s' if self.hand_size > 1 else ''}")
        return " ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)
