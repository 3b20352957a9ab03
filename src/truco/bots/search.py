"""The search bot: determinized Monte Carlo over the rest of the hand.

For a decision it samples worlds consistent with its view (:mod:`truco.determinize`),
tries every candidate action in each world and plays the hand out with the rollout
policy (:mod:`.rollout`); each action is worth the mean change of the bot team's
match value (the hand's points, what they mean so near the target). The same worlds and
the same rollout randomness serve every candidate (common random numbers), so the
comparison is sharp. Levels are budgets of worlds, never peeks at hidden cards.

The rivals' calls weigh the worlds by family: a falta envido shows (at least) the
tanto the policy would call envido with, though the policy itself never calls falta.

A *cautious* method (every level but the custom ``WORLDSxOVERSAMPLE`` budgets) guards
against the winner's curse of the risky calls: a call of envido, real envido, falta
envido or truco is made only when its advantage over the best quiet action (a card, an
answer) is larger than ``cautious`` standard errors of that paired difference. A falta
that wins one point when refused and loses the match in the few worlds where the rival
holds 29 or more looks free in a small sample; it no longer gets called on luck.

The *wary* share (the expert: half its worlds) plays those worlds against a rival looser
than the policy whatever the fitted model says (:func:`wary`): calls from weaker hands,
answers with weaker hands, and the worlds weighted by that looser reading of the rivals'
calls. A bluff must then pay against a rival who calls it too, and a fold against a
rival who may be bluffing: the fitted model alone, after a few refusals, made a truco on
a worthless hand look free, which issue 11's best response learnt to punish.

A pass is read too (the expert's ``passed_bluffs`` and ``trap``): a search rival takes
our card played without an envido as a capped tanto and opens on anything after it. The
rate at which a
rival opens after our passes is fitted (:class:`~.opponent.RivalTracker`); the worlds
weigh its call by it, and the rollouts' rivals bluff at it, so a big tanto may pass to
invite the bluff instead of calling.

A rival's opening truco is read the same way (the expert's ``truco_bluffs``): before any
evidence, a weak hand opens it 4 times in 10, and the rate is then fitted to the hands
the rival's trucos showed: worlds that believe every truco refuse a bluffer's trucos with
hands that would win them often enough.

Late in a hand the expert reads the table (``table_power``): once a card is down, every
seat of its rollouts, and the rivals whose calls weigh its worlds, judge a truco by the
chance of taking the bazas left (:func:`~.judgement.table_power`: the current baza by
the cards on it, each later one by how much of the deck the next card beats). The first
baza's rough score counted a won baza as strength with only a 4 left to play, and a lost
one as weakness with a 2 and a 12 in hand, so a rival who said retruco over our led card
folded to our vale cuatro in the rollouts where a real one would not.
Whether the rivals read the table too is fitted (``fit_table``: their answers to our late
trucos, :meth:`~.opponent.RivalTracker.reads_table`): ``simple`` and the styles count a
won baza as strength, and played as readers of the table they seemed to fold where they
call.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field

from ..actions import ENVIDO_CALLS, TRUCO_CALLS, is_say
from ..determinize import Determinizer
from ..game import Game
from ..rules import Rules
from ..view import SeatView
from .base import Bot
from .judgement import hand_power, hand_tanto
from .opponent import SEARCH_LIKE, RivalTracker
from .rollout import NEUTRAL, PlayerModel, action_likelihood, play_out_hand

#: Calls whose value hinges on rare worlds (the rival's few strong hands).
RISKY = frozenset(ENVIDO_CALLS + TRUCO_CALLS)


#: An envido-family call with a tanto below this is a bluff (the policy accepts from 27).
BLUFF_TANTO = 27


@dataclass(frozen=True)
class Method:
    """A level: ``worlds`` played out per decision, ``oversample`` worlds drawn per
    world kept (above one, the kept worlds are chosen by how well they explain the
    rivals' calls and plays), and ``cautious`` (see the module doc; 0: off)."""

    worlds: int
    oversample: int
    cautious: float = 0.0
    adaptive: bool = False  # fit the rivals' model to their play (:mod:`.opponent`)
    prior: PlayerModel = NEUTRAL  # the adaptive fit's starting model of the rivals
    team_worlds: int | None = None  # worlds on 2v2 and 3v3 tables (default: ``worlds``)
    families: bool = True  # a rival's falta shows what its envido would (rollout.action_likelihood)
    #: share of the worlds whose rivals are the :func:`wary` model (bluffs and wide
    #: answers): the calls must pay against a rival who is not the fitted one (0: off)
    wary: float = 0.0
    #: with a ``wary`` share, a risky call must gain on its own in the fitted worlds
    #: and in the wary ones (not only on their mean): a bluff that pays only against a
    #: rival fitted as folding is not made
    robust: bool = False
    #: the share of weak hands (see :func:`bluffs`) on which a call may be made at all:
    #: the search's own rivals never bluff, so it bluffs a call with any weak hand that
    #: folds them, which a rival who answers wider than the policy punishes (None: off)
    bluff_rate: float | None = None
    #: the tanto from which an envido-family call is no bluff for ``bluff_rate``
    bluff_tanto: int = BLUFF_TANTO
    #: the prior share of weak hands on which a rival opens the envido after we passed
    #: it (:attr:`~.rollout.PlayerModel.passed_bluffs`), fitted to the rival's openings
    #: there: a rival who reads our pass as a capped tanto calls on anything, which
    #: worlds that believe every call always refuse (None: off, a call after our pass
    #: reads like any other)
    passed_bluffs: float | None = None
    #: the rollouts' rivals bluff after our pass as fitted (``passed_bluffs``), so a
    #: pass with a strong tanto that invites the bluff is valued as such (False: the
    #: fitted bluffs weigh the worlds only)
    trap: bool = False
    #: the prior chance that a rival opens the truco with a weak hand
    #: (:attr:`~.rollout.PlayerModel.truco_bluffs`), fitted to the hands its trucos
    #: showed (:class:`~.opponent.RivalTracker`) (None: off, the worlds believe its
    #: trucos)
    truco_bluffs: float | None = None
    #: the rollouts and the worlds' weights judge a hand late in it by its chance of
    #: taking the bazas left, reading the cards on the table
    #: (:attr:`~.rollout.PlayerModel.table`): a rival who raises after seeing our led
    #: card holds what beats it, and a baza won with nothing left to take another is no
    #: strength (False: the first baza's rough score throughout)
    table_power: bool = False
    #: with ``table_power``, whether the rivals read the table is fitted to their
    #: answers to our late trucos (:meth:`~.opponent.RivalTracker.reads_table`, the
    #: prior: they do): ``simple``, the styles and a learner built on them count a won
    #: baza as strength, and a bluff they would call must not look free
    fit_table: bool = False


#: The expert as it played on 2026-12-04 (issue 29's baseline), frozen under the name
#: ``search:expert-2026`` so that every comparison with it can be rerun; ``search:expert``
#: is the same method.
EXPERT_2026 = Method(
    240,
    4,
    cautious=1.0,
    adaptive=True,
    team_worlds=180,
    prior=SEARCH_LIKE,
    wary=0.5,
    robust=True,
    bluff_rate=0.1,
    passed_bluffs=0.3,
    trap=True,
    truco_bluffs=0.4,
    table_power=True,
    fit_table=True,
)

LEVELS = {
    "easy": Method(8, 3, cautious=1.0),
    "medium": Method(40, 3, cautious=1.0),
    "hard": Method(120, 4, cautious=1.0),
    "expert": EXPERT_2026,
    "expert-2026": EXPERT_2026,
}
ALIASES = {"default": "medium", "normal": "medium"}

#: The rollout policy as it is, reading the table late in a hand (``table_power``).
TABLE_READER = PlayerModel(table=True)

#: The mirror bots' models of their rivals (``mirror:tight`` ...): our search, at the
#: medium budget, sure that its rivals play tighter or looser than its own policy.
MIRROR_MODELS = {
    "tight": PlayerModel(calls=-0.1, envido_accepts=-0.15, truco_accepts=-0.15),
    "loose": PlayerModel(calls=0.1, envido_accepts=0.15, truco_accepts=0.15),
}


#: How far past the policy the :func:`wary` rival goes: it calls and answers as if its
#: hand were this much stronger (0.3: a truco accepted from a hand power of 0.0, an
#: envido from a tanto of 24, a truco called from 0.3).
WARY_SHIFT = 0.3


#: A truco-family call before the first baza is settled with a hand power below this is
#: a bluff (the policy would not even accept a truco with it).
BLUFF_POWER = 0.3


def bluffs(
    view: SeatView,
    candidates: Sequence[int],
    tanto_floor: int = BLUFF_TANTO,
) -> frozenset[int]:
    """The calls among ``candidates`` that would be bluffs from this seat's own cards:
    envido, real envido and falta envido with a tanto under ``tanto_floor``, and a
    truco, retruco or vale cuatro before any baza is settled with a hand power under
    :data:`BLUFF_POWER` (later the table, which the power ignores, decides), a raise
    answering the rival's truco too."""
    assert view.seat is not None
    out: set[int] = set()
    if any(a in ENVIDO_CALLS for a in candidates) and hand_tanto(view.dealt) < tanto_floor:
        out.update(a for a in candidates if a in ENVIDO_CALLS)
    if (
        any(a in TRUCO_CALLS for a in candidates)
        and not view.baza_results
        and hand_power(view.hand, (), view.seat & 1) < BLUFF_POWER
    ):
        out.update(a for a in candidates if a in TRUCO_CALLS)
    return frozenset(out)


def bluff_draw(seed: int | None, view: SeatView, family: str) -> float:
    """A uniform draw fixed by the bot's seed, the hand and its cards: whether this hand
    may bluff a ``family`` call is decided once, the same at each of its decisions."""
    key = f"{seed}:{family}:{view.hand_index}:{sorted(view.dealt)}"
    return random.Random(key).random()


def wary(model: PlayerModel) -> PlayerModel:
    """The rival a call must also pay against: at least as loose as the policy, whatever
    the fit says, and :data:`WARY_SHIFT` looser (calls with weaker hands, accepts with
    weaker hands). A model fitted on a few answers of a rival who folded makes every
    bluff look free, and one that believes every call makes folding look right: a best
    response plays into both (issue 11's exploitability check found the expert's
    truco calls and answers read that way)."""
    return PlayerModel(
        calls=max(model.calls, 0.0) + WARY_SHIFT,
        envido_accepts=max(model.envido_accepts, 0.0) + WARY_SHIFT,
        truco_accepts=max(model.truco_accepts, 0.0) + WARY_SHIFT,
        envido_bluffs=model.envido_bluffs,
        passed_bluffs=model.passed_bluffs,
        truco_bluffs=model.truco_bluffs,
        table=model.table,
    )


@dataclass(frozen=True)
class Evaluation:
    """The search's verdict on one decision: per candidate action, its mean value (in
    points of the hand, see :func:`hand_utility`) and the standard error of its
    difference to the best one (paired over the same worlds)."""

    actions: tuple[int, ...]
    values: tuple[float, ...]
    errors: tuple[float, ...]
    worlds: int
    #: per action, its value in each world
    samples: tuple[tuple[float, ...], ...] = field(default=(), repr=False)
    #: the worlds from this index on played the :func:`wary` rival (``worlds``: none)
    split: int | None = None
    #: per action, the hand's points ``(ours, theirs)`` in each world (what the values
    #: are made of: the analysis tells points and the match's chance apart)
    outcomes: tuple[tuple[tuple[int, int], ...], ...] = field(default=(), repr=False)

    @property
    def fitted(self) -> int:
        """How many worlds (the first ones) played the fitted rival, not the wary one."""
        return self.worlds if self.split is None else self.split

    def best(self) -> int:
        return self.actions[max(range(len(self.actions)), key=self.values.__getitem__)]

    def value_of(self, action: int) -> float:
        return self.values[self.actions.index(action)]


#: The spread of :func:`match_value`: the lead in points that moves the chance of winning
#: the chico by one standard deviation is this times the root of the points still to play
#: (about 1.6 points change hands per hand).
MATCH_SPREAD = 2.2
#: What the whole chico is worth in a hand's points, in :func:`hand_utility`: a change
#: ``d`` in the chance of winning it counts as ``WIN_WORTH * d`` points.
WIN_WORTH = 12.0


def match_value(need_mine: int, need_theirs: int) -> float:
    """A smooth estimate of the chance of winning the chico needing ``need_mine`` points
    against rivals needing ``need_theirs`` (see :data:`MATCH_SPREAD`)."""
    if need_mine <= 0:
        return 1.0
    if need_theirs <= 0:
        return 0.0
    return 0.5 * (
        1.0
        + math.erf((need_theirs - need_mine) / (MATCH_SPREAD * math.sqrt(need_mine + need_theirs)))
    )


def hand_utility(points: Sequence[int], score: Sequence[int], team: int, target: int) -> float:
    """What a hand's ``points`` are worth to ``team`` from ``score``: the points that
    count (extra points past the target are lost) plus the change in match value."""
    need_m, need_t = target - score[team], target - score[1 - team]
    mine, theirs = points[team], points[1 - team]
    before = match_value(need_m, need_t)
    after = match_value(need_m - mine, need_t - theirs)
    return min(mine, need_m) - min(theirs, need_t) + WIN_WORTH * (after - before)


def _custom_budget(level: str) -> Method | None:
    """A level written as ``WORLDSxOVERSAMPLE`` (``"40x3"``; the plain search, not
    cautious: ``120x4`` is the ``hard`` level as it was before the cautious calls)."""
    worlds, x, oversample = level.partition("x")
    if x and worlds.isdigit() and oversample.isdigit() and int(worlds) > 0 and int(oversample) > 0:
        return Method(int(worlds), int(oversample), families=False)
    return None


class SearchBot(Bot):
    """Determinized flat Monte Carlo search with a rule-based rollout policy."""

    name = "search"

    def __init__(
        self,
        level: str = "default",
        seed: int | None = None,
        rivals: PlayerModel = NEUTRAL,
        method: Method | None = None,
    ) -> None:
        level = ALIASES.get(level, level)
        method = method or LEVELS.get(level) or _custom_budget(level)
        if method is None:
            raise ValueError(
                f"unknown level {level!r} for search "
                f"(one of {', '.join(LEVELS)}, or WORLDSxOVERSAMPLE)"
            )
        super().__init__(level, seed)
        self.method = method
        self.worlds, self.oversample = method.worlds, method.oversample
        #: how the rivals are assumed to play, in the rollouts and the world weights
        self.rivals = rivals
        self.tracker: RivalTracker | None = None

    def track(self, view: SeatView) -> None:
        """Fit the rivals' model to the match so far (adaptive levels)."""
        assert view.seat is not None
        tracker = self.tracker
        if tracker is None or tracker.team != view.seat & 1 or tracker.newer_than(view):
            # a new match, or a new seat
            self.tracker = tracker = self._new_tracker(view.seat)
        tracker.observe(view)
        self.rivals = tracker.model()

    def _new_tracker(self, seat: int) -> RivalTracker:
        read_trucos = self.method.truco_bluffs is not None
        prior = dataclasses.replace(
            self.method.prior,
            passed_bluffs=self.method.passed_bluffs or 0.0,
            truco_bluffs=self.method.truco_bluffs or 0.0,
        )
        read_table = self.method.table_power and self.method.fit_table
        if read_table:
            prior = dataclasses.replace(prior, table=True)
        return RivalTracker(seat, prior, read_trucos, read_table)

    def prior_rivals(self) -> PlayerModel:
        """The rivals' model of an adaptive level before any evidence (what it assumes
        of a rival it has not seen play; the analysis judges moves against it)."""
        if not self.method.adaptive:
            return self.rivals
        return self._new_tracker(0).model()

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        return self.tracked(view, lambda: self.decide(view, legal, rules))

    def tracked(self, view: SeatView, decide: Callable[[], int]) -> int:
        """The action ``decide`` returns, the rivals' model fitted to ``view`` before
        (adaptive levels) and the action told to the tracker after: how a bot that asks
        this search for values (:mod:`.guided`) keeps its fit of the rivals."""
        if self.method.adaptive and view.seat is not None:
            self.track(view)
        action = decide()
        if self.tracker is not None:
            self.tracker.own_action(view, action)
        return action

    def decide(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        """The search's move in ``view``, its rivals read as last fitted (the fit is
        :meth:`choose`'s: another bot that shares this search's read calls this)."""
        candidates = self.bounded_bluffs(view, [a for a in legal if not is_say(a)])
        if len(candidates) == 1:
            return candidates[0]
        evaluation = self.evaluate(view, candidates, rules)
        if not self.method.cautious:
            return evaluation.best()
        return self.cautious_choice(evaluation)

    def bounded_bluffs(
        self, view: SeatView, candidates: list[int], calls: Container[int] = RISKY
    ) -> list[int]:
        """``candidates`` without the bluffs this hand may not make: with a
        :attr:`Method.bluff_rate`, a call of ``calls`` (by default all) from a weak hand
        (:func:`bluffs`) is kept in that share of the hands (:func:`bluff_draw`, drawn
        once a hand)."""
        rate = self.method.bluff_rate
        if rate is None or view.seat is None:
            return candidates
        weak = [a for a in bluffs(view, candidates, self.method.bluff_tanto) if a in calls]
        if not weak:
            return candidates
        envido = bluff_draw(self.seed, view, "envido") < rate
        truco = bluff_draw(self.seed, view, "truco") < rate
        return [a for a in candidates if a not in weak or (envido if a in ENVIDO_CALLS else truco)]

    def evaluate(self, view: SeatView, candidates: Sequence[int], rules: Rules) -> Evaluation:
        """Every action of ``candidates`` (at least one) played out in the same sampled
        worlds; only ``view`` is read (no hidden card)."""
        assert view.seat is not None
        seat, team = view.seat, view.seat & 1
        rng = self.rng
        samples: list[list[float]] = [[] for _ in candidates]
        outcomes: list[list[tuple[int, int]]] = [[] for _ in candidates]
        score, target = view.score, rules.target
        worlds = self.worlds
        if view.rules.players > 2 and self.method.team_worlds is not None:
            worlds = self.method.team_worlds
        wary_worlds = round(worlds * self.method.wary)
        determinizer = Determinizer(view)
        model = self._rival_model()
        fitted = self._worlds(determinizer, team, worlds - wary_worlds, model)
        guarded = self._worlds(determinizer, team, wary_worlds, wary(model))
        played = model
        if not self.method.trap and played.passed_bluffs:
            played = dataclasses.replace(played, passed_bluffs=0.0)
        guard_played = wary(played)
        ours = TABLE_READER if self.method.table_power else NEUTRAL
        for k, world in enumerate((*fitted, *guarded)):
            rivals = played if k < len(fitted) else guard_played
            models = (ours, rivals) if team == 0 else (rivals, ours)
            world.dealer = None  # only this hand is played out
            closed = len(world.history)
            rollout_seed = rng.random()
            for i, action in enumerate(candidates):
                game = world.clone()
                game.push(seat, action)
                play_out_hand(game, random.Random(rollout_seed), models)
                points = game.history[closed].points
                samples[i].append(hand_utility(points, score, team, target))
                outcomes[i].append((points[team], points[1 - team]))
        n = len(samples[0])
        values = [sum(v) / n for v in samples]
        top = max(range(len(candidates)), key=values.__getitem__)
        errors = [paired_error(samples[i], samples[top]) for i in range(len(candidates))]
        return Evaluation(
            tuple(candidates),
            tuple(values),
            tuple(errors),
            n,
            tuple(map(tuple, samples)),
            split=len(fitted),
            outcomes=tuple(map(tuple, outcomes)),
        )

    def _rival_model(self) -> PlayerModel:
        """The rivals' model the rollouts play and the worlds' weights read."""
        if self.method.fit_table and self.tracker is not None:
            return self.rivals  # the tracker's read
        if self.method.table_power and not self.rivals.table:
            return dataclasses.replace(self.rivals, table=True)
        return self.rivals

    def cautious_choice(self, evaluation: Evaluation) -> int:
        """The best quiet action, unless a risky call beats it by ``cautious`` errors."""
        samples = evaluation.samples

        def error(i: int, base: int) -> float:
            return paired_error(samples[i], samples[base])

        def pays(i: int, base: int) -> bool:
            return not self.method.robust or pays_in_both(evaluation, i, base)

        actions = evaluation.actions
        return actions[
            cautious_index(actions, evaluation.values, error, self.method.cautious, pays)
        ]

    def _worlds(
        self,
        determinizer: Determinizer,
        team: int,
        count: int | None = None,
        model: PlayerModel | None = None,
    ) -> list[Game]:
        """The worlds to play out: uniform among the consistent deals, or (oversampling)
        resampled by the likelihood of the rivals' logged actions under the rollout policy
        (the rivals played as ``model``, by default the bot's model of them)."""
        rng, families = self.rng, self.method.families
        model = self.rivals if model is None else model
        count = self.worlds if count is None else count
        if count <= 0:
            return []
        if self.oversample <= 1:
            return [determinizer.sample(rng) for _ in range(count)]

        def rivals(game: Game, seat: int, action: int) -> float:
            if seat & 1 == team:
                return 1.0
            return action_likelihood(game, seat, action, model, families)

        drawn = [determinizer.sample_weighted(rng, rivals) for _ in range(count * self.oversample)]
        worlds = [w for w, _ in drawn]
        weights = [weight for _, weight in drawn]
        return rng.choices(worlds, weights=weights, k=count)


class MirrorBot(SearchBot):
    """The search bot (medium budget) with another model of its rivals
    (:data:`MIRROR_MODELS`): a gauntlet opponent that plays like us but reads the table
    differently."""

    name = "mirror"

    def __init__(self, level: str = "default", seed: int | None = None) -> None:
        model = MIRROR_MODELS.get(level)
        if model is None:
            raise ValueError(
                f"unknown level {level!r} for mirror (one of {', '.join(MIRROR_MODELS)})"
            )
        super().__init__("medium", seed, rivals=model)
        self.level = level


def pays_in_both(evaluation: Evaluation, i: int, base: int) -> bool:
    """Does action ``i`` beat action ``base`` on the mean of the fitted worlds and on the
    mean of the wary ones, apart (each part that has worlds)?"""
    a, b = evaluation.samples[i], evaluation.samples[base]
    split = evaluation.fitted
    for lo, hi in ((0, split), (split, len(a))):
        if hi > lo and sum(a[lo:hi]) <= sum(b[lo:hi]):
            return False
    return True


def best_quiet(actions: Sequence[int], values: Sequence[float]) -> int | None:
    """The index of the best of ``actions`` that is not a risky call (:data:`RISKY`), the
    move a call must beat; ``None`` when every one is."""
    quiet = [i for i, a in enumerate(actions) if a not in RISKY]
    return max(quiet, key=values.__getitem__) if quiet else None


def cautious_index(
    actions: Sequence[int],
    values: Sequence[float],
    error: Callable[[int, int], float],
    cautious: float,
    allowed: Callable[[int, int], bool] = lambda i, base: True,
) -> int:
    """Which of ``actions`` to play by ``values``: the best quiet one, unless a risky call
    (:data:`RISKY`) beats it by more than ``cautious`` times ``error(call, quiet)``, the
    standard error of their difference (and ``allowed`` lets it); with no quiet action,
    the best."""
    base = best_quiet(actions, values)
    if base is None:
        return max(range(len(actions)), key=values.__getitem__)
    choice, margin = base, 0.0
    for i, action in enumerate(actions):
        if action in RISKY:
            gain = values[i] - values[base]
            if gain > margin and gain > cautious * error(i, base) and allowed(i, base):
                choice, margin = i, gain
    return choice


def paired_error(a: Sequence[float], b: Sequence[float]) -> float:
    """The standard error of ``mean(a) - mean(b)`` over paired samples."""
    n = len(a)
    if n < 2:
        return 0.0
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    return math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
