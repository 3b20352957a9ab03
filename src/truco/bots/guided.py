"""The student-guided search: the student shortlists, a small expert search settles.

Expert iteration's next step at play time. The student (:mod:`.student`) values every
candidate action at once from the seat's view; most decisions are clear to it and it
plays its best move at once. On a *close* one, where its best few candidates
(:attr:`Guide.candidates`) are within :attr:`Guide.gate` points of its best, those few
are played out by the expert's own search (:data:`~.search.EXPERT_2026`: its weighed
worlds, its wary rivals, its read of the table and its fit of the rivals, which sees
every decision) at a small budget of :attr:`Guide.worlds` worlds, and each is worth the
mean of the student's value and the search's (:attr:`Guide.blend`). The expert's caution
holds there too: a risky call (envido, truco and their raises) is played over the best
quiet move of the shortlist only when it is worth more by more than one standard error of
the search's paired difference (:func:`~.search.cautious_index`); a few worlds otherwise
make a falta look free whenever none of them held the rival's good hand. The search then
spends its worlds only where the student hesitates, among the moves it rates, at about
1/35 of the expert's cost a decision (its 95th percentile, 1v1).

The student learnt from 1v1 and 2v2 positions only, and in 3v3 its envido is far from the
expert's (it accepts faltas that three rivals' tantos beat). On such a table
(:attr:`Guide.unlearnt`) an envido decision, an envido call to answer or one that may be
made, is the expert's search alone over every candidate at :attr:`Guide.envido_worlds`
worlds (its fit of the rivals shared): in 3v3 the level's 95th percentile is then about a
fifth of the expert's, not a thirtieth.

A falta envido from a weak tanto (under :data:`~.search.BLUFF_TANTO`) is a bluff that
puts the match on one envido; the student learnt from a teacher whose rollout rivals fold
to it, and made it far more often than the expert, whose every bluff is bounded to a tenth
of the hands (:attr:`~.search.Method.bluff_rate`). The guided student bounds that one the
same way (:data:`MATCH_CALLS`); its other bluffs, which pay against the expert, it keeps.

A lookahead valued by the student instead (the other seats answer with the rollout
policy until this seat acts again, the student values the position reached) was tried
and lost to the plain student (docs/bots.md): the student's values are not comparable
across the points of a hand where they meet the hand's exact end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ..actions import ENVIDO_CALLS, FALTA_ENVIDO, is_say
from ..rules import Rules
from ..view import SeatView
from .search import EXPERT_2026, Method, SearchBot, cautious_index, paired_error
from .student import StudentBot, StudentModel


@dataclass(frozen=True)
class Guide:
    """A budget: at most ``candidates`` of the student's best, those within ``gate``
    points of its best (of :func:`~.student.worth`), played out in ``worlds`` worlds of
    the expert's search; a candidate is worth ``blend`` times the search's value plus the
    rest of the student's."""

    candidates: int
    gate: float
    worlds: int
    blend: float = 0.5
    #: tables (by their number of players) whose envido the student never learnt: there
    #: an envido decision (an envido call to answer, or one that may be made) is the
    #: expert's search alone over every candidate, at ``envido_worlds`` worlds
    unlearnt: frozenset[int] = frozenset()
    envido_worlds: int = 48


def shortlist(values: Sequence[float], guide: Guide) -> list[int]:
    """The indices of the candidates worth a search: the best few, within the gate
    (the best first)."""
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    top = values[order[0]]
    return [i for i in order[: guide.candidates] if top - values[i] <= guide.gate]


def guide_method(guide: Guide) -> Method:
    """The expert's search at the guide's budget of worlds (two drawn per world kept)."""
    return dataclasses.replace(EXPERT_2026, worlds=guide.worlds, oversample=2, team_worlds=None)


def envido_method(guide: Guide) -> Method:
    """The expert's search at the guide's budget for the envido of an unlearnt table."""
    return dataclasses.replace(
        EXPERT_2026, worlds=guide.envido_worlds, team_worlds=guide.envido_worlds
    )


def envido_decision(view: SeatView, legal: Sequence[int]) -> bool:
    """Whether ``view`` must answer an envido call or may make one."""
    pending = view.pending
    return (pending is not None and pending.kind == "envido") or any(
        a in ENVIDO_CALLS for a in legal
    )


#: The calls that can put the match on one envido, whose bluffs the guided student makes
#: only as often as the expert makes any (:meth:`~.search.SearchBot.bounded_bluffs`).
MATCH_CALLS = frozenset({FALTA_ENVIDO})


#: The student's levels that search their close decisions, and their budgets.
GUIDES = {
    "guided": Guide(candidates=3, gate=2.0, worlds=12, unlearnt=frozenset({6}), envido_worlds=48)
}


class GuidedBot(StudentBot):
    """The student's best move, or on a close decision the best of its shortlist by the
    expert's search at a small budget (the module doc)."""

    def __init__(
        self, level: str = "guided", seed: int | None = None, model: StudentModel | None = None
    ) -> None:
        if level not in GUIDES:
            raise ValueError(f"unknown level {level!r} for student (one of {', '.join(GUIDES)})")
        super().__init__("master", seed, model)
        self.level = level
        self.guide = GUIDES[level]
        self.search = SearchBot("expert-2026", seed, method=guide_method(self.guide))
        self.envido_search = SearchBot("expert-2026", seed, method=envido_method(self.guide))

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        return self.search.tracked(view, lambda: self._choose(view, legal, rules))

    def _choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        if view.rules.players in self.guide.unlearnt and envido_decision(view, legal):
            return self._search_alone(view, legal, rules)
        candidates = [a for a in legal if not is_say(a)] or list(legal)
        candidates = self.search.bounded_bluffs(view, candidates, MATCH_CALLS)
        if len(candidates) == 1:
            return candidates[0]
        values = self.values(view, candidates)
        close = shortlist(values, self.guide)
        if len(close) == 1:
            return candidates[close[0]]
        shortlisted = [candidates[i] for i in close]
        found = self.search.evaluate(view, shortlisted, rules)
        b = self.guide.blend
        mixed = [b * v + (1 - b) * values[i] for v, i in zip(found.values, close, strict=True)]

        def error(i: int, base: int) -> float:  # the student's part is the same in both
            return b * paired_error(found.samples[i], found.samples[base])

        return shortlisted[cautious_index(shortlisted, mixed, error, self.search.method.cautious)]

    def _search_alone(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        """The expert's choice at the envido budget, reading the rivals as fitted."""
        search = self.envido_search
        search.tracker, search.rivals = self.search.tracker, self.search.rivals
        return search.decide(view, legal, rules)
