"""The gauntlet: opponents with one clear style each, to test a bot against.

A strong bot must beat all of them, not just our own rule-based beginner. Each style
is a handful of thresholds (:class:`Style`) read by one small player
(:class:`StyleBot`):

``tight``
    calls and accepts only with strong hands, never bluffs.
``loose``
    loose-aggressive: bluffs truco and envido often, raises, accepts wide.
``station``
    a calling station: accepts every call, calls little.
``scared``
    refuses almost everything and calls only with the nuts.
``falta``
    falta-happy: calls falta envido at any excuse, otherwise plays like a beginner.

The mirror bots (``mirror:tight``, ``mirror:loose``) are the search bot with another
model of its rivals; they live in :mod:`.search`. Like every bot, these see only their
seat's view.

>>> make = StyleBot("tight", seed=1)
>>> make.style.envido_call, make.style.bluff
(30, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    ENVIDO,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    TRUCO,
    is_say,
)
from ..cards import flor_value, tanto
from ..rules import Rules
from ..view import SeatView
from .base import Bot
from .judgement import follow, hand_power

#: A threshold nobody reaches: "never".
NEVER = 99


@dataclass(frozen=True)
class Style:
    """How a style plays. Tantos are envido points (0-33); powers are
    :func:`~truco.bots.judgement.hand_power` scores in [0, 1]."""

    envido_call: int  # call envido with this tanto or more
    real_call: int  # ... real envido
    falta_call: int  # ... falta envido
    envido_accept: int  # accept envido / real envido
    falta_accept: int  # accept a chain that ends in falta envido
    truco_call: float  # call truco (retruco and vale cuatro need a little more)
    truco_accept: float  # accept truco (a little more for each level)
    raise_at: float  # raise a truco call instead of accepting
    bluff: float = 0.0  # chance of calling (envido or truco) anyway


STYLES: dict[str, Style] = {
    "tight": Style(30, 32, NEVER, 29, 31, 0.75, 0.55, 0.9),
    "loose": Style(24, 28, 31, 24, 28, 0.4, 0.25, 0.6, bluff=0.3),
    "station": Style(29, 32, NEVER, 0, 0, 0.6, 0.0, 0.95),
    "scared": Style(32, 33, NEVER, 32, 33, 0.9, 0.85, 1.1),
    "falta": Style(27, NEVER, 24, 27, 26, 0.6, 0.35, 0.85, bluff=0.15),
}


class StyleBot(Bot):
    """A player of one :data:`STYLES` style (the level names the style)."""

    name = "style"

    def __init__(self, level: str = "default", seed: int | None = None) -> None:
        if level not in STYLES:
            raise ValueError(f"unknown style {level!r} (one of {', '.join(STYLES)})")
        super().__init__(level, seed)
        self.style = STYLES[level]

    def __repr__(self) -> str:
        return self.level

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        acts = [a for a in legal if not is_say(a)] or list(legal)
        if len(acts) == 1:
            return acts[0]
        if FLOR in acts:
            return FLOR
        assert view.seat is not None
        team = view.seat & 1
        power = hand_power(view.hand, view.baza_results, team)
        if view.pending is not None and view.pending.team == team:
            return self._answer(view, acts, power)
        return self._turn(view, acts, power)

    def _bluffs(self) -> bool:
        return self.style.bluff > 0 and self.rng.random() < self.style.bluff

    def _answer(self, view: SeatView, acts: list[int], power: float) -> int:
        style, pending = self.style, view.pending
        assert pending is not None
        points = tanto(view.dealt)
        if pending.kind == "flor":
            if flor_value(view.dealt) >= 34 and CONTRAFLOR in acts:
                return CONTRAFLOR
            return CON_FLOR_ME_ACHICO if CON_FLOR_ME_ACHICO in acts else acts[0]
        if pending.kind != "truco" and pending.kind != "envido":  # contraflor
            return QUIERO if flor_value(view.dealt) >= 33 or style.envido_accept == 0 else NO_QUIERO
        if pending.kind == "envido":
            if "falta-envido" in pending.chain:
                return QUIERO if points >= style.falta_accept else NO_QUIERO
            if FALTA_ENVIDO in acts and points >= style.falta_call:
                return FALTA_ENVIDO
            if REAL_ENVIDO in acts and points >= style.real_call:
                return REAL_ENVIDO
            return QUIERO if points >= style.envido_accept else NO_QUIERO
        envido = self._envido_call(acts, points)  # el envido está primero
        if envido is not None:
            return envido
        raise_call = TRUCO + pending.level
        if raise_call in acts and (power >= style.raise_at or self._bluffs()):
            return raise_call
        return QUIERO if power >= style.truco_accept + 0.08 * (pending.level - 1) else NO_QUIERO

    def _envido_call(self, acts: list[int], points: int) -> int | None:
        style = self.style
        if FALTA_ENVIDO in acts and points >= style.falta_call:
            return FALTA_ENVIDO
        if REAL_ENVIDO in acts and points >= style.real_call:
            return REAL_ENVIDO
        if ENVIDO in acts and (points >= style.envido_call or self._bluffs()):
            return ENVIDO
        return None

    def _turn(self, view: SeatView, acts: list[int], power: float) -> int:
        envido = self._envido_call(acts, tanto(view.dealt))
        if envido is not None:
            return envido
        truco = next((a for a in acts if TRUCO <= a <= TRUCO + 2), None)
        if truco is not None:
            need = self.style.truco_call + 0.08 * (truco - TRUCO)
            if power >= need or self._bluffs():
                return truco
        cards = [a for a in acts if a < 40]
        if cards:
            assert view.seat is not None
            return follow(cards, view.bazas[-1] if view.bazas else (), view.seat & 1)
        return next((a for a in acts if a != MAZO), acts[0])
