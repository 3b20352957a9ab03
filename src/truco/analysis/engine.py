"""Post-game analysis: every decision of a record weighed by the top bot, from the
deciding seat's view.

For each action of a match where the seat had a real choice, the analysis rebuilds that
seat's :class:`~truco.view.SeatView` (its own cards, the public table: never another
seat's hidden cards) and asks the top bot of the ladder (:data:`TOP_BOT`, the
``master``'s student, :mod:`truco.bots.student`; the master searches further its
close decisions and the envido of 3v3, :mod:`truco.bots.guided`) two things in that view:

* what every legal action is worth, told apart as the hand's **expected points** for the
  seat's team (only the points that count: none past the target) and the **change in the
  chance of winning the match**: the student's two outputs, each bounded by what the
  hand can still move (:func:`hand_worth`) and by the chance there is to win or lose;
* which action it would play there: the one worth most on its measure, the move the
  ``master`` itself plays in that seat.

With ``worlds`` (``truco analyze --worlds N``) the evaluator is instead the search of
``search:expert-2026`` at N worlds, a sampled second opinion: every legal action played
out in the same sampled worlds (common random numbers), its cautious, robust choice as
the better move (never one of its randomised bluffs), its rivals the ones it assumes
before it has seen them play (a move is weighed against sound play, not against one
rival's habits).

**Grades.** A decision is graded only when the top bot's move is better on the bot's own
measure (points plus :data:`WIN_WEIGHT` times the change of the chance to win); with the
sampled search, by more than :data:`SIGNIFICANCE` standard errors of that paired
difference (the student's values have no sampling error). Its grade is then the
worse of two: by the points of the hand it gave away (:data:`POINT_GRADES`: 0.5, 1, 2)
and by the chance of winning the match it gave away (:data:`CHANCE_GRADES`: 4, 8, 16
percentage points). A player's **accuracy** is the mean, over their decisions that
mattered, of the share of the decision's stake they kept: ``100 * (1 - loss / stake)``,
where ``loss`` is on the bot's measure (0 when the player's move is as good as the bot's)
and ``stake`` the gap between the decision's best and worst move on that measure; a
decision matters when its stake is at least :data:`MATTERS` (a choice between equal cards
does not count). Each decision counts once, so a player is not judged on one big call.

**Determinism.** The analysis has no seed: the student's values are a function of the
seat's view, so the same record gives the same analysis every time, on the web and on
the command line, whatever ``resample`` says. With the sampled search, the worlds of each
decision are drawn from what the deciding seat sees there (:func:`view_key`: not the
names, not a hidden card, not any bot's or process's randomness), and ``resample`` draws
other worlds on purpose (docs/analysis.md measures how much of a grade is the
sampling's).

**Bound.** A loss in points is at most what the hand could still move between the teams
at that moment (:func:`hand_worth` for each team, summed): the truco's four points, the
envido's or the flor's while they can still be called, never past what a team needs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import action_token, is_say
from ..bots.ladder import TOP
from ..bots.search import WIN_WORTH, Evaluation, SearchBot, bluffs, match_value, paired_error
from ..bots.student import StudentModel, hand_worth, packaged_model, predict
from ..game import Game
from ..record import Record
from ..rules import Rules
from ..view import SeatView, seat_view

#: The bot whose evaluator weighs the decisions: the top level of the ladder.
TOP_BOT = TOP.name
#: The sampled second opinion (``worlds``): the search of this level.
SEARCH_BOT = "expert-2026"
#: Worlds per decision by default: none, the top bot's evaluator samples no world.
DEFAULT_WORLDS: int | None = None
#: How much a whole match's chance (0 to 1) weighs against one point of the hand in the
#: bot's measure (:func:`truco.bots.search.hand_utility`).
WIN_WEIGHT = WIN_WORTH
SIGNIFICANCE = 2.0
GRADES = ("inaccuracy", "mistake", "blunder")
#: points of the hand given away, for each grade
POINT_GRADES = (0.5, 1.0, 2.0)
#: chance of winning the match given away (0 to 1), for each grade
CHANCE_GRADES = (0.04, 0.08, 0.16)
INACCURACY, MISTAKE, BLUNDER = POINT_GRADES
#: the least stake (gap between a decision's best and worst move, the bot's measure) of a
#: decision that counts for the accuracy
MATTERS = 0.25
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def grade(points: float, chance: float, loss: float = 1.0, error: float = 0.0) -> str | None:
    """A decision's grade from the ``points`` of the hand and the ``chance`` of winning
    the match (0 to 1) it gave away; ``None`` when the bot's measure ``loss`` is not
    larger than :data:`SIGNIFICANCE` times its standard ``error`` (or not positive)."""
    if loss <= 0.0 or loss <= SIGNIFICANCE * error:
        return None
    level = -1
    for i, (p, c) in enumerate(zip(POINT_GRADES, CHANCE_GRADES, strict=True)):
        if points >= p or chance >= c:
            level = i
    return GRADES[level] if level >= 0 else None


@dataclass(frozen=True)
class Worth:
    """An action's worth in the bot's worlds: expected ``points`` of the hand for the
    seat's team (net, only points that count) and the expected change of its ``chance``
    of winning the match (0 to 1)."""

    points: float
    chance: float

    @property
    def utility(self) -> float:
        return self.points + WIN_WEIGHT * self.chance

    def to_json(self) -> dict[str, float]:
        return {"points": round(self.points, 3), "chance": round(self.chance, 4)}


@dataclass(frozen=True)
class Decision:
    """One weighed decision: ``hand`` and ``step`` (the action's index in the hand's
    actions) place it in the record. ``points`` and ``chance`` are what the chosen
    move gave away next to ``best`` (never negative), ``loss`` the same on the bot's
    measure, ``worth`` the most points the hand could still move."""

    hand: int
    step: int
    seat: int
    chosen: int
    best: int
    points: float
    chance: float
    loss: float
    grade: str | None
    values: dict[int, Worth]
    worth: int
    win_before: float  # the seat's team's chance of winning the match before the hand
    stake: float = 0.0  # the gap between the best and the worst move, the bot's measure

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "step": self.step,
            "seat": self.seat,
            "chosen": action_token(self.chosen),
            "best": action_token(self.best),
            "points": round(self.points, 2),
            "chance": round(self.chance, 4),
            "loss": round(self.loss, 3),
            "grade": self.grade,
            "worth": self.worth,
            "stake": round(self.stake, 3),
            "values": {action_token(a): v.to_json() for a, v in self.values.items()},
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
    """Where the match stood at a decision, as the deciding seat saw it with the top
    bot's move: team 0's chance of winning the match (``win``, 0 to 1) and its expected
    margin of points (the score difference plus the hand's expected points)."""

    hand: int
    step: int
    win: float
    margin: float

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "step": self.step,
            "win": round(self.win, 4),
            "margin": round(self.margin, 3),
        }


@dataclass(frozen=True)
class Analysis:
    decisions: list[Decision]
    players: list[PlayerSummary]
    graph: list[GraphPoint] = field(default_factory=list)
    resample: int = 0
    worlds: int | None = DEFAULT_WORLDS

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": TOP_BOT if self.worlds is None else f"search:{SEARCH_BOT}",
            "resample": self.resample,
            "worlds": self.worlds,
            "thresholds": {
                g: {"points": p, "chance": c}
                for g, p, c in zip(GRADES, POINT_GRADES, CHANCE_GRADES, strict=True)
            },
            "players": [p.to_json() for p in self.players],
            "decisions": [d.to_json() for d in self.decisions],
            "graph": [g.to_json() for g in self.graph],
        }

    def marks(self) -> dict[tuple[int, int], Decision]:
        """The graded decisions by ``(hand, step)``."""
        return {(d.hand, d.step): d for d in self.decisions if d.grade is not None}


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


def view_key(view: SeatView, resample: int = 0) -> str:
    """What fixes a decision's worlds: what the deciding seat sees (its cards, the
    table's moves and the score, the rules), and ``resample``: the same position gives the
    same worlds in any record, under any names, and no hidden card moves them."""
    seen = (view.rules, view.seat, view.hand_index, view.score, view.dealt, view.log, view.played)
    return hashlib.sha256(f"analyze:{resample}:{seen!r}".encode()).hexdigest()


def search_bot(worlds: int) -> SearchBot:
    """The sampled second opinion with ``worlds`` per decision, its rivals the sound
    players it assumes before it has seen them play (not fitted to the match)."""
    bot = SearchBot(SEARCH_BOT)
    bot.rivals = bot.prior_rivals()
    bot.method = dataclasses.replace(bot.method, worlds=worlds, team_worlds=worlds, adaptive=False)
    bot.worlds = worlds
    return bot


def analyze(
    record: Record,
    seats: set[int] | None = None,
    worlds: int | None = DEFAULT_WORLDS,
    resample: int = 0,
) -> Analysis:
    """Weigh every decision of ``record`` (of ``seats`` only, if given) with the top
    bot's evaluator, or with ``worlds``, the sampled search's."""
    rules = record.rules
    names = list(record.headers.get("seats") or [])
    bot: SearchBot | StudentModel = packaged_model() if worlds is None else search_bot(worlds)
    decisions: list[Decision] = []
    graph: list[GraphPoint] = []
    for h, step, seat, action, view, game in decision_points(record):
        if is_say(action) or (seats is not None and seat not in seats):
            continue
        candidates = [a for a in view.legal if not is_say(a)]
        if len(candidates) < 2 or action not in candidates:
            continue
        if isinstance(bot, SearchBot):
            bot.rng = random.Random(view_key(view, resample))
        decision = weigh(bot, view, candidates, action, rules, h, step)
        decisions.append(decision)
        graph.append(_graph_point(decision, view, game))
    players = []
    for s in range(rules.players):
        if seats is not None and s not in seats:
            continue
        mine = [d for d in decisions if d.seat == s]
        accuracy = player_accuracy(mine)
        grades = {g: sum(1 for d in mine if d.grade == g) for g in GRADES}
        name = str(names[s]) if s < len(names) else f"seat {s}"
        players.append(PlayerSummary(s, name, len(mine), accuracy, grades))
    return Analysis(decisions, players, graph, resample, worlds)


def player_accuracy(decisions: Sequence[Decision]) -> float:
    """The mean share of the stake kept over the decisions that mattered, in percent
    (100 with none)."""
    mattered = [d for d in decisions if d.stake >= MATTERS]
    if not mattered:
        return 100.0
    return 100.0 * sum(1.0 - min(d.loss, d.stake) / d.stake for d in mattered) / len(mattered)


def weigh(
    bot: SearchBot | StudentModel,
    view: SeatView,
    candidates: Sequence[int],
    action: int,
    rules: Rules,
    hand: int = 0,
    step: int = 0,
) -> Decision:
    """One decision: every candidate weighed by ``bot`` (the student's model, or the
    search in the same worlds), the bot's own move among them, and what ``action`` gave
    away next to it."""
    assert view.seat is not None
    if isinstance(bot, SearchBot):
        evaluation = bot.evaluate(view, candidates, rules)
        worths = _worths(evaluation, view, rules.target)
        best = _bot_move(bot, view, evaluation)
        i, b = evaluation.actions.index(action), evaluation.actions.index(best)
        error = paired_error(evaluation.samples[i], evaluation.samples[b]) if i != b else 0.0
    else:
        worths = _student_worths(bot, view, candidates)
        best = max(candidates, key=lambda a: worths[a].utility)
        error = 0.0
    mine, top = worths[action], worths[best]
    loss = top.utility - mine.utility
    points, chance = max(0.0, top.points - mine.points), max(0.0, top.chance - mine.chance)
    graded = grade(points, chance, loss, error)
    team = view.seat & 1
    worth = hand_worth(view, team) + hand_worth(view, 1 - team)
    before = _win_chance(view.score, team, rules.target)
    utilities = [w.utility for w in worths.values()]
    return Decision(
        hand,
        step,
        view.seat,
        action,
        best,
        points if loss > 0 else 0.0,
        chance if loss > 0 else 0.0,
        max(0.0, loss),
        graded,
        worths,
        worth,
        before,
        max(utilities) - min(utilities),
    )


def _worths(evaluation: Evaluation, view: SeatView, target: int) -> dict[int, Worth]:
    """Each action's expected points and change of the chance to win, from the worlds'
    outcomes (the hand's points for us and for them)."""
    assert view.seat is not None
    team = view.seat & 1
    need_m, need_t = target - view.score[team], target - view.score[1 - team]
    before = match_value(need_m, need_t)
    out = {}
    for action, outcomes in zip(evaluation.actions, evaluation.outcomes, strict=True):
        n = len(outcomes)
        points = sum(min(m, need_m) - min(t, need_t) for m, t in outcomes) / n
        after = sum(match_value(need_m - m, need_t - t) for m, t in outcomes) / n
        out[action] = Worth(points, after - before)
    return out


def _student_worths(
    model: StudentModel, view: SeatView, candidates: Sequence[int]
) -> dict[int, Worth]:
    """Each action's expected points and change of the chance to win as the student
    predicts them (bounded by what the hand can move, :func:`predict`)."""
    return {
        action: Worth(points, chance)
        for action, (points, chance) in zip(
            candidates, predict(model, view, candidates), strict=True
        )
    }


def _bot_move(bot: SearchBot, view: SeatView, evaluation: Evaluation) -> int:
    """The top bot's move among the evaluated actions, its bluffs left out: a bluff is
    a move it mixes in at random, never the one to recommend."""
    weak = bluffs(view, evaluation.actions, bot.method.bluff_tanto)
    keep = [i for i, a in enumerate(evaluation.actions) if a not in weak] if weak else []
    if not weak or not keep:
        return bot.cautious_choice(evaluation)
    pick = evaluation.samples
    honest = Evaluation(
        tuple(evaluation.actions[i] for i in keep),
        tuple(evaluation.values[i] for i in keep),
        tuple(evaluation.errors[i] for i in keep),
        evaluation.worlds,
        tuple(pick[i] for i in keep),
        evaluation.split,
        tuple(evaluation.outcomes[i] for i in keep),
    )
    return bot.cautious_choice(honest)


def _win_chance(score: Sequence[int], team: int, target: int) -> float:
    return match_value(target - score[team], target - score[1 - team])


def _graph_point(decision: Decision, view: SeatView, game: Game) -> GraphPoint:
    team = decision.seat & 1
    top = decision.values[decision.best]
    win = decision.win_before + top.chance
    margin = game.score[team] - game.score[1 - team] + top.points
    if team == 1:
        win, margin = 1.0 - win, -margin
    return GraphPoint(decision.hand, decision.step, win, margin)


__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MISTAKE",
    "TOP_BOT",
    "Analysis",
    "Decision",
    "Worth",
    "analyze",
    "grade",
    "hand_worth",
    "weigh",
]
