"""Post-game analysis: every decision of a record weighed from the deciding seat's view.

For each action of a finished (or unfinished) match where the seat had a real choice,
the analysis rebuilds that seat's :class:`~truco.view.SeatView` (its own cards, the
public table: never another seat's hidden cards) and asks the determinized search
(:meth:`~truco.bots.search.SearchBot.evaluate`) what every legal action is worth: the
expected points of the hand for the seat's team (with the match-value bonus of
:func:`~truco.bots.search.hand_utility`). The best action is the cautious search's
choice (a risky call must beat the best quiet action by a standard error, so a call is
not named "better" on the luck of the sample). The **loss** of a decision is the best
action's value minus the chosen one's, in those points.

Grades (documented thresholds, in expected points of the hand):

* **inaccuracy**: loss of at least :data:`INACCURACY` (0.5)
* **mistake**: at least :data:`MISTAKE` (1.0)
* **blunder**: at least :data:`BLUNDER` (2.0)

and only when the loss is also larger than :data:`SIGNIFICANCE` standard errors of the
paired difference (the search samples worlds: a loss inside its noise is not graded).
A player's **accuracy** is the mean of ``100 * exp(-loss / ACCURACY_SCALE)`` over their
decisions (a perfect decision counts 100, a loss of one point 61, of three points 22).

The analysis is deterministic for a ``seed`` (each decision's search is seeded from the
seed and the decision's place) and its cost per decision is bounded by ``worlds``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..actions import action_token, is_say
from ..bots.search import Evaluation, Method, SearchBot, paired_error
from ..game import Game
from ..record import Record
from ..view import SeatView, seat_view

INACCURACY, MISTAKE, BLUNDER = 0.5, 1.0, 2.0
SIGNIFICANCE = 2.0
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
ACCURACY_SCALE = 2.0
#: Worlds per decision by default (the search's medium budget, a little more).
DEFAULT_WORLDS = 60


def grade(loss: float, error: float) -> str | None:
    """``"blunder"``, ``"mistake"``, ``"inaccuracy"`` or ``None`` for a decision's loss."""
    if loss <= SIGNIFICANCE * error:
        return None
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


@dataclass(frozen=True)
class Decision:
    """One weighed decision: ``hand`` and ``step`` (the action's index in the hand's
    actions) place it in the record."""

    hand: int
    step: int
    seat: int
    chosen: int
    best: int
    loss: float
    grade: str | None
    values: dict[int, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "step": self.step,
            "seat": self.seat,
            "chosen": action_token(self.chosen),
            "best": action_token(self.best),
            "loss": round(self.loss, 3),
            "grade": self.grade,
            "values": {action_token(a): round(v, 3) for a, v in self.values.items()},
        }


@dataclass(frozen=True)
class PlayerSummary:
    seat: int
    name: str
    decisions: int
    accuracy: float
    grades: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "team": self.seat & 1,
            "name": self.name,
            "decisions": self.decisions,
            "accuracy": round(self.accuracy, 1),
            **{PLURAL[g]: n for g, n in self.grades.items()},
        }


@dataclass(frozen=True)
class GraphPoint:
    """Where the match stood at a decision: team 0's expected margin of points (the
    score difference plus the hand's expected points at that moment, as the deciding
    seat saw them with its best action)."""

    hand: int
    step: int
    margin: float

    def to_json(self) -> dict[str, Any]:
        return {"hand": self.hand, "step": self.step, "margin": round(self.margin, 3)}


@dataclass(frozen=True)
class Analysis:
    decisions: list[Decision]
    players: list[PlayerSummary]
    graph: list[GraphPoint] = field(default_factory=list)
    seed: int = 0
    worlds: int = DEFAULT_WORLDS

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "worlds": self.worlds,
            "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER},
            "players": [p.to_json() for p in self.players],
            "decisions": [d.to_json() for d in self.decisions],
            "graph": [g.to_json() for g in self.graph],
        }

    def marks(self) -> dict[tuple[int, int], Decision]:
        """The graded decisions by ``(hand, step)``."""
        return {(d.hand, d.step): d for d in self.decisions if d.grade is not None}

    def text(self) -> str:
        """A report for the terminal: per player, then the graded decisions."""
        lines = [f"{'seat':<5} {'player':<16} {'decisions':>9} {'accuracy':>8}  graded"]
        for p in self.players:
            graded = ", ".join(f"{n} {g if n == 1 else PLURAL[g]}" for g, n in p.grades.items())
            lines.append(f"{p.seat:<5} {p.name:<16} {p.decisions:>9} {p.accuracy:>8.1f}  {graded}")
        marked = [d for d in self.decisions if d.grade is not None]
        if marked:
            lines.append("")
        for d in marked:
            lines.append(
                f"hand {d.hand + 1} step {d.step + 1}: seat {d.seat} {action_token(d.chosen)} "
                f"is {'an' if d.grade == 'inaccuracy' else 'a'} {d.grade} (-{d.loss:.2f}); "
                f"better {action_token(d.best)}"
            )
        return "\n".join(lines)


def decision_points(record: Record) -> Iterator[tuple[int, int, int, int, SeatView, Game]]:
    """Every action of the record with the actor's view before it:
    ``(hand, step, seat, action, view, game)``."""
    game = Game(record.rules, first_mano=record.first_mano, manual_deal=True)
    if record.seed is not None:
        from ..deal import SeededDealer

        dealer = SeededDealer(record.seed)
    for h, hand in enumerate(record.hands):
        if game.is_over:
            return
        game.deal(hand.deal if hand.deal is not None else dealer.deal(game.n, h))
        for step, (seat, action) in enumerate(hand.actions):
            yield h, step, seat, action, seat_view(game, seat), game
            game.apply(seat, action)


def analyze(
    record: Record,
    seats: set[int] | None = None,
    seed: int = 0,
    worlds: int = DEFAULT_WORLDS,
) -> Analysis:
    """Weigh every decision of ``record`` (of ``seats`` only, if given)."""
    rules = record.rules
    names = list(record.headers.get("seats") or [])
    decisions: list[Decision] = []
    graph: list[GraphPoint] = []
    for h, step, seat, action, view, game in decision_points(record):
        if is_say(action) or (seats is not None and seat not in seats):
            continue
        candidates = [a for a in view.legal if not is_say(a)]
        if len(candidates) < 2 or action not in candidates:
            continue
        bot = SearchBot(f"{worlds}x3", seed=_decision_seed(seed, h, step))
        bot.method = Method(worlds, 3, cautious=1.0)  # the cautious search's choice is "best"
        evaluation = bot.evaluate(view, candidates, rules)
        decision = _decision(h, step, seat, action, evaluation, bot.cautious_choice(evaluation))
        decisions.append(decision)
        team = seat & 1
        best = max(evaluation.values)
        margin = game.score[0] - game.score[1] + (best if team == 0 else -best)
        graph.append(GraphPoint(h, step, margin))
    players = []
    for s in range(rules.players):
        mine = [d for d in decisions if d.seat == s]
        if seats is not None and s not in seats:
            continue
        accuracy = (
            sum(100.0 * math.exp(-d.loss / ACCURACY_SCALE) for d in mine) / len(mine)
            if mine
            else 100.0
        )
        grades = {
            g: sum(1 for d in mine if d.grade == g) for g in ("inaccuracy", "mistake", "blunder")
        }
        name = str(names[s]) if s < len(names) else f"seat {s}"
        players.append(PlayerSummary(s, name, len(mine), accuracy, grades))
    return Analysis(decisions, players, graph, seed, worlds)


def _decision(hand: int, step: int, seat: int, action: int, ev: Evaluation, best: int) -> Decision:
    values = dict(zip(ev.actions, ev.values, strict=True))
    i, b = ev.actions.index(action), ev.actions.index(best)
    loss = max(0.0, values[best] - values[action])
    error = paired_error(ev.samples[i], ev.samples[b]) if i != b else 0.0
    return Decision(hand, step, seat, action, best, loss, grade(loss, error), values)


def _decision_seed(seed: int, hand: int, step: int) -> int:
    return random.Random(f"analyze:{seed}:{hand}:{step}").getrandbits(32)


__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MISTAKE",
    "Analysis",
    "Decision",
    "analyze",
    "grade",
]
