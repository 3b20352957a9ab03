"""The student: a small learned evaluator of a seat's candidate actions, and its bot.

Expert iteration's student. The teacher (the search of ``search:expert-2026``, at a
smaller budget) weighs every candidate action of many positions by playing the hand out
in sampled worlds; the student is a small multilayer perceptron that learns, from the
seat's view and one candidate action, what the teacher found that action worth:

* ``points``: the expected points of the hand for the seat's team, its rivals' taken
  off (the points that count: none past the target);
* ``chance``: the expected change in the team's chance of winning the chico
  (:func:`~.search.match_value`).

The action's worth is ``points + WIN_WORTH * chance``, the search's own
:func:`~.search.hand_utility`. The bot plays the candidate worth most; it reads only its
seat's view (:func:`features`), and the same view always gives the same move, at the
cost of a few thousand multiplications (no world is sampled).

The trained weights ship in the package (``data/student-v1.json.gz``, a few kilobytes)
and load with the standard library; the training is one command (``python -m
truco.rl.student``, docs/bots.md). The file says which feature list it was trained on
(:data:`FEATURES_VERSION`); a file for another list is refused when loaded.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ..actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    RETRUCO,
    TRUCO,
    VALE_CUATRO,
    is_say,
)
from ..cards import STRENGTH, flor_value, has_flor, parse_card
from ..determinize import Determinizer
from ..game import Game
from ..rules import Rules
from ..scoring import al_resto, falta_envido, truco_value
from ..view import SeatView, seat_view
from ..vocabulary import PARDA
from .base import Bot
from .judgement import WIN_SHARE, hand_power, hand_tanto, table_power
from .search import WIN_WORTH, match_value

#: The feature list's version: a model file names the one it was trained on.
FEATURES_VERSION = 1
#: The model shipped with the package, under ``truco/bots/data/``.
DEFAULT_MODEL = "student-v1.json.gz"
#: The strongest card (the ace of espadas).
_TOP = float(STRENGTH[parse_card("1e")])

#: Action kinds, one feature each (a card play is one kind, with its own features).
_KINDS = (
    ENVIDO,
    REAL_ENVIDO,
    FALTA_ENVIDO,
    FLOR,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    CON_FLOR_ME_ACHICO,
    TRUCO,
    RETRUCO,
    VALE_CUATRO,
    QUIERO,
    NO_QUIERO,
    MAZO,
)
_KIND_INDEX = {kind: i for i, kind in enumerate(_KINDS)}
_PENDING = ("truco", "envido", "flor", "contraflor", "contraflor-al-resto")


def position_features(view: SeatView) -> list[float]:
    """What the seat knows, as numbers (the same for every candidate action)."""
    assert view.seat is not None
    seat, team = view.seat, view.seat & 1
    rules = view.rules
    target = rules.target
    need_m, need_t = target - view.score[team], target - view.score[1 - team]
    results = view.baza_results
    won = sum(1 for r in results if r == team)
    lost = sum(1 for r in results if r != team and r != PARDA)
    pardas = sum(1 for r in results if r == PARDA)
    table = view.bazas[len(results)] if len(view.bazas) > len(results) else ()
    rival_best = max((STRENGTH[c] for s, c in table if s & 1 != team), default=-1)
    our_best = max((STRENGTH[c] for s, c in table if s & 1 == team), default=-1)
    held = sorted((STRENGTH[c] for c in view.hand), reverse=True)
    held_share = sorted((WIN_SHARE[c] for c in view.hand), reverse=True)
    tanto = hand_tanto(view.dealt)
    flor = rules.flor and has_flor(view.dealt)
    pending = view.pending
    rivals_pending = pending is not None and pending.team == team
    chain = pending.chain if pending is not None else ()
    rival_calls = [a for s, a in view.log if s & 1 != team]
    our_calls = [a for s, a in view.log if s & 1 == team]
    rival_tanto = our_tanto = -1
    for showdown in view.showdowns:
        for word in showdown:
            if word.tanto is None:
                continue
            if word.seat & 1 == team:
                our_tanto = max(our_tanto, word.tanto)
            else:
                rival_tanto = max(rival_tanto, word.tanto)
    scored_ours = sum(p for t, _, p in view.scored if t == team)
    scored_theirs = sum(p for t, _, p in view.scored if t != team)
    rivals_in = sum(1 for s, inside in enumerate(view.in_hand) if inside and s & 1 != team)
    partners_in = sum(
        1 for s, inside in enumerate(view.in_hand) if inside and s & 1 == team and s != seat
    )
    out = [
        1.0,
        min(max(need_m / target, 0.0), 1.0),
        min(max(need_t / target, 0.0), 1.0),
        match_value(need_m, need_t),
        float(target == 30),
        float(rules.players == 4),
        float(rules.players == 6),
        float(rules.flor),
        float(view.mano & 1 == team),
        float(view.mano == seat),
        len(results) / 2.0,
        float(won),
        float(lost),
        float(pardas),
        hand_power(view.hand, results, team),
        table_power(view.hand, results, table, team, view.mano & 1) if view.hand else 0.0,
        tanto / 33.0,
        max(tanto - 20, 0) / 13.0,
        float(flor),
        (flor_value(view.dealt) - 20) / 18.0 if flor else 0.0,
        len(view.hand) / 3.0,
    ]
    out += [held[i] / _TOP if i < len(held) else 0.0 for i in range(3)]
    out += [held_share[i] if i < len(held_share) else 0.0 for i in range(3)]
    out += [
        float(not table),
        float(rival_best >= 0),
        rival_best / _TOP if rival_best >= 0 else 0.0,
        float(our_best >= 0),
        our_best / _TOP if our_best >= 0 else 0.0,
        view.truco_level / 3.0,
        float(view.truco_owner is not None and view.truco_owner & 1 == team),
        float(view.truco_owner is not None and view.truco_owner & 1 != team),
        float(view.envido_open),
        float(any(a in (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO) for _, a in view.log)),
    ]
    out += [float(pending is not None and pending.kind == kind) for kind in _PENDING]
    out += [
        float(rivals_pending),
        (pending.level / 3.0) if pending is not None else 0.0,
        len(chain) / 3.0,
        float("falta-envido" in chain),
        float("real-envido" in chain),
        float(any(a in (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO) for a in rival_calls)),
        float(any(a in (TRUCO, RETRUCO, VALE_CUATRO) for a in rival_calls)),
        float(any(a in (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO) for a in our_calls)),
        float(any(a in (TRUCO, RETRUCO, VALE_CUATRO) for a in our_calls)),
        float(rival_tanto >= 0),
        rival_tanto / 33.0 if rival_tanto >= 0 else 0.0,
        float(our_tanto >= 0),
        float(rival_tanto >= 0 and tanto > rival_tanto),
        scored_ours / 4.0,
        scored_theirs / 4.0,
        rivals_in / 3.0,
        partners_in / 2.0,
    ]
    return out


def action_features(view: SeatView, action: int) -> list[float]:
    """The candidate ``action`` as numbers: its kind, and for a card, what it does."""
    assert view.seat is not None
    team = view.seat & 1
    kinds = [0.0] * (len(_KINDS) + 1)
    card = [0.0] * 7
    if action < 40:
        kinds[-1] = 1.0
        results = view.baza_results
        table = view.bazas[len(results)] if len(view.bazas) > len(results) else ()
        rival_best = max((STRENGTH[c] for s, c in table if s & 1 != team), default=-1)
        our_best = max((STRENGTH[c] for s, c in table if s & 1 == team), default=-1)
        mine = STRENGTH[action]
        held = [STRENGTH[c] for c in view.hand]
        rest = [c for c in view.hand if c != action]
        after = (*table, (view.seat, action))
        card = [
            mine / _TOP,
            WIN_SHARE[action],
            float(rival_best >= 0 and mine > rival_best and our_best <= rival_best),
            float(rival_best >= 0 and mine == rival_best),
            float(mine == max(held)),
            float(mine == min(held)),
            table_power(rest, results, after, team, view.mano & 1),
        ]
    elif action in _KIND_INDEX:
        kinds[_KIND_INDEX[action]] = 1.0
    return kinds + card


#: How many numbers :func:`position_features` and :func:`action_features` give.
def feature_sizes() -> tuple[int, int]:
    return _sizes()


@lru_cache(maxsize=1)
def _sizes() -> tuple[int, int]:
    game = Game(Rules(), seed=0)
    view = seat_view(game, game.actors()[0])
    return len(position_features(view)), len(action_features(view, view.hand[0]))


@dataclass(frozen=True)
class StudentModel:
    """A one-hidden-layer perceptron: inputs → ``tanh`` hidden units → ``(points,
    chance)``; ``w1`` holds one row per input (position inputs first), ``w2`` one row
    per hidden unit. Targets were scaled: ``points / scale[0]``, ``chance / scale[1]``."""

    w1: tuple[tuple[float, ...], ...]
    b1: tuple[float, ...]
    w2: tuple[tuple[float, float], ...]
    b2: tuple[float, float]
    scale: tuple[float, float]
    positions: int  # how many of the inputs are position features
    meta: dict[str, object]

    @classmethod
    def from_json(cls, data: dict[str, object]) -> StudentModel:
        if data.get("format") != "truco-student/1":
            raise ValueError("not a truco student model (format truco-student/1)")
        if data.get("features") != FEATURES_VERSION:
            raise ValueError(
                f"student model for features v{data.get('features')}, "
                f"this version reads v{FEATURES_VERSION}"
            )
        fields: dict[str, Any] = data
        w1 = tuple(tuple(float(x) for x in row) for row in fields["w1"])
        b1 = tuple(float(x) for x in fields["b1"])
        w2 = tuple((float(a), float(b)) for a, b in fields["w2"])
        b2a, b2b = (float(x) for x in fields["b2"])
        sa, sb = (float(x) for x in fields["scale"])
        positions = int(fields["positions"])
        sizes = feature_sizes()
        if positions != sizes[0] or len(w1) != sum(sizes) or len(b1) != len(w2):
            raise ValueError("student model's shape does not match its feature list")
        meta = data.get("meta", {})
        return cls(
            w1,
            b1,
            w2,
            (b2a, b2b),
            (sa, sb),
            positions,
            dict(meta) if isinstance(meta, dict) else {},
        )

    def evaluate(self, view: SeatView, actions: Sequence[int]) -> list[tuple[float, float]]:
        """Per action, its predicted ``(points, chance)`` (see the module doc)."""
        position = position_features(view)
        hidden = list(self.b1)
        w1 = self.w1
        n = len(hidden)
        for x, row in zip(position, w1, strict=False):
            if x:
                for j in range(n):
                    hidden[j] += x * row[j]
        out: list[tuple[float, float]] = []
        offset = self.positions
        for action in actions:
            h = hidden[:]
            for k, x in enumerate(action_features(view, action)):
                if x:
                    row = w1[offset + k]
                    for j in range(n):
                        h[j] += x * row[j]
            p, c = self.b2
            for j, w in enumerate(self.w2):
                t = math.tanh(h[j])
                p += t * w[0]
                c += t * w[1]
            out.append((p * self.scale[0], c * self.scale[1]))
        return out


def closing_points(view: SeatView, actions: Sequence[int]) -> dict[int, tuple[int, int]]:
    """The hand's points ``(team 0, team 1)`` for each action of ``actions`` (a refusal or
    the mazo) that closes the hand at once.

    Such a hand's points are public (the refused call's stake, the team that left, what
    the hand already gave), so one world drawn from the view tells them (a fixed draw:
    the answer is the view's)."""
    closers = [a for a in actions if a in (NO_QUIERO, MAZO)]
    if not closers or view.seat is None:
        return {}
    world = Determinizer(view).sample(random.Random(0))
    world.dealer = None  # only this hand is played
    closed = len(world.history)
    found: dict[int, tuple[int, int]] = {}
    for action in closers:
        game = world.clone()
        game.push(view.seat, action)
        if len(game.history) > closed:
            points = game.history[closed].points
            found[action] = (points[0], points[1])
    return found


def predict(
    model: StudentModel, view: SeatView, actions: Sequence[int]
) -> list[tuple[float, float]]:
    """Per action, its ``(points, chance)``: the model's, or the exact ones of an action
    that closes the hand whatever the hidden cards (:func:`closing_points`); bounded by
    the points the hand has already given and what each team can still take from it
    (:func:`hand_worth`), and by the chance there is to win or lose."""
    assert view.seat is not None
    team = view.seat & 1
    target = view.rules.target
    need_m, need_t = target - view.score[team], target - view.score[1 - team]
    out = model.evaluate(view, actions)
    closing_of = closing_points(view, actions)
    for i, action in enumerate(actions):
        closing = closing_of.get(action)
        if closing is not None:
            mine, theirs = closing[team], closing[1 - team]
            out[i] = (
                float(min(mine, need_m) - min(theirs, need_t)),
                match_value(need_m - mine, need_t - theirs) - match_value(need_m, need_t),
            )
    return bounded(view, out)


def bounded(view: SeatView, out: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Each ``(points, chance)`` of ``out`` held within what the hand can still move
    (see :func:`predict`)."""
    assert view.seat is not None
    team = view.seat & 1
    target = view.rules.target
    need_m, need_t = target - view.score[team], target - view.score[1 - team]
    # the points already won in this hand are everyone's; the rest is what each team
    # can still take
    ours = sum(p for t, _, p in view.scored if t == team)
    theirs = sum(p for t, _, p in view.scored if t != team)
    won = min(ours, need_m) - min(theirs, need_t)
    most, least = won + hand_worth(view, team), won - hand_worth(view, 1 - team)
    before = match_value(need_m, need_t)
    return [
        (min(max(points, least), most), min(max(chance, -before), 1.0 - before))
        for points, chance in out
    ]


#: The most an envido chain can be worth short of a falta: envido, envido, real envido
#: accepted (or a falta refused after them).
ENVIDO_CHAIN_MOST = 7


def hand_worth(view: SeatView, team: int) -> int:
    """The most points ``team`` could still take from this hand (for the loss bound):
    the truco's four, the envido's or flor's while they can still be called or answered,
    each round of a pica-pica, never more than the team needs."""
    rules = view.rules
    score, target = view.score, rules.target
    most = truco_value(3)
    pending = view.pending.kind if view.pending is not None else None
    first_baza = not view.baza_results
    if view.envido_open or pending == "envido" or first_baza:
        falta = falta_envido(team, score, target, rules.falta_envido)
        most += max(ENVIDO_CHAIN_MOST, falta)
    if rules.flor and (first_baza or (pending is not None and pending.startswith("contraflor"))):
        most += al_resto(score, target) + 3 * rules.players
    if view.pica_pica:
        most *= rules.players // 2
    return min(most, target - score[team])


def load_model(source: str | None = None) -> StudentModel:
    """A model file (``.json`` or ``.json.gz``), by default the packaged one."""
    if source is None:
        raw = resources.files("truco.bots").joinpath("data", DEFAULT_MODEL).read_bytes()
    else:
        with open(source, "rb") as f:
            raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return StudentModel.from_json(json.loads(raw))


@lru_cache(maxsize=4)
def packaged_model() -> StudentModel:
    """The packaged model, loaded once per process."""
    return load_model()


def worth(points: float, chance: float) -> float:
    """An action's worth from its two parts (:func:`~.search.hand_utility`'s units)."""
    return points + WIN_WORTH * chance


#: The student's levels: how far from its best move it may stray, a temperature in
#: points of the hand (0: always the move it values most; above, a move worth ``d``
#: points less is played ``exp(-d / temperature)`` times as often as the best).
TEMPERATURES = {"master": 0.0, "club": 1.0}


class StudentBot(Bot):
    """The student's bot: the candidate its model values most (megaphone words aside),
    or at a level with a temperature, a draw that favours it."""

    name = "student"

    def __init__(
        self, level: str = "default", seed: int | None = None, model: StudentModel | None = None
    ) -> None:
        level = "master" if level == "default" else level
        if level not in TEMPERATURES:
            raise ValueError(
                f"unknown level {level!r} for student (one of {', '.join(TEMPERATURES)})"
            )
        super().__init__(level, seed)
        self.temperature = TEMPERATURES[level]
        self.model = model or packaged_model()

    def values(self, view: SeatView, candidates: Sequence[int]) -> list[float]:
        return [worth(p, c) for p, c in predict(self.model, view, candidates)]

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        candidates = [a for a in legal if not is_say(a)] or list(legal)
        if len(candidates) == 1:
            return candidates[0]
        values = self.values(view, candidates)
        if not self.temperature:
            return candidates[max(range(len(candidates)), key=values.__getitem__)]
        top = max(values)
        weights = [math.exp((v - top) / self.temperature) for v in values]
        return self.rng.choices(candidates, weights=weights)[0]
