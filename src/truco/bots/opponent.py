"""A model of the rivals fitted to what they have been seen doing in this match.

The search bot plays its rollouts with a model of how the rivals call and answer
(:class:`~.rollout.PlayerModel`: shifts of the rollout policy's thresholds). A fixed
model exploits itself rather than the rival: a rival that accepts envido only with 30
is not the loose acceptor the default policy is. :class:`RivalTracker` reads the seat's
views as the match goes (nothing hidden: the public log of each hand, the tantos
declared) and fits the two shifts:

* **answers**: how often the rivals accepted our envido calls, and apart, our truco
  calls (a search bot answers an envido about as the policy does and accepts a truco
  with far weaker cards: one shift for both would get both wrong). An acceptance rate
  ``r`` means "accepts with the best ``r`` of hands"; the tanto (or hand strength) that
  has a share ``r`` of hands above it, against the policy's own threshold, is the shift.
* **calls**: the tantos the rivals declared after calling envido themselves. A rival
  that calls with 24 calls looser than the policy's 28.
* **envido bluffs**: how often the rivals open the envido when they could, against the
  share of hands strong enough for the fitted calls: a rival that opens at most hands
  bluffs, and its call no longer says "strong tanto" (the shown tantos cannot tell:
  a refused bluff shows nothing).
* **bluffs after our pass**: the same, counted only where we played a card without
  opening the envido: a rival that reads our pass as weakness opens there on anything.
* **truco bluffs** (with a prior that reads them): the cards a rival's truco showed by
  the hand's end (played or revealed) tell the hand it called with; the share of weak
  ones becomes the bluff chance that makes the worlds' weights give that share.

* **the table read** (with a prior that reads it): whether the rivals judge a truco late
  in a hand by the cards on the table (:func:`~.judgement.table_power`, a search does)
  or by the first baza's rough score (:func:`~.judgement.hand_power`, ``simple`` and the
  styles do, a won baza counted as strength whatever is left). Each answer of theirs to
  our truco once a card was down is scored under both reads, over the hands it could
  have held given every card the hand showed; the read that explains the answers better
  (past the prior's lean) is the one the rollouts play.

Each estimate is shrunk towards a prior model (worth :data:`PRIOR` observations; by
default the policy itself, :data:`SEARCH_LIKE` for the expert), so a few hands move the
model only a little, and it is clamped to :data:`LIMIT`.

>>> tracker = RivalTracker(seat=0)
>>> tracker.model()  # doctest: +NORMALIZE_WHITESPACE
PlayerModel(calls=0.0, envido_accepts=0.0, truco_accepts=0.0, envido_bluffs=0.0,
            passed_bluffs=0.0, truco_bluffs=0.0, table=False)
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from functools import lru_cache
from itertools import combinations

from ..actions import (
    ENVIDO,
    ENVIDO_CALLS,
    MAZO,
    NO_QUIERO,
    QUIERO,
    SAY_FIRST,
    TRUCO,
    TRUCO_CALLS,
)
from ..cards import DECK, tanto
from ..game import Declaration
from ..view import PublicHand, SeatView
from .judgement import CARD_POWER, hand_power, table_power
from .rollout import JITTERS, LIKELIHOOD_FLOOR, NEUTRAL, PlayerModel, truco_answer

#: Observations the prior model is worth.
PRIOR = 3.0
#: The largest shift the fit may reach.
LIMIT = 0.3
#: The largest share of weak hands a rival is fitted as opening the envido with.
BLUFFS_LIMIT = 0.9
#: How a search bot plays, the prior of the expert (measured against ``mirror:loose``,
#: our search: it accepted 70% of the expert's trucos and 18% of its envidos): envidos
#: answered about as the policy does (its worlds believe the caller's tanto), trucos far
#: wider (refused, one point is lost; accepted, two are at risk: a search accepts when
#: it wins a third of its worlds), and calls a little looser than the policy's.
SEARCH_LIKE = PlayerModel(calls=0.1, truco_accepts=0.2)
#: The rollout policy's thresholds: accepts envido with 27, calls it with 28, accepts
#: a truco with a hand power of 0.4 (at the start of a hand).
ENVIDO_ACCEPT, ENVIDO_CALL, TRUCO_ACCEPT = 27, 28, 0.4
#: A truco opened with a hand power under this (less the fitted calls' shift) is a
#: bluff: the policy opens from 0.6, from 0.5 at its loosest.
TRUCO_BLUFF_POWER = 0.5
#: A card's mean share of the hand power, for a shown truco's one card never seen.
MEAN_CARD_POWER = sum(CARD_POWER) / len(CARD_POWER)
#: The prior's lean towards its own table read, in log-odds: about what one answer that
#: only one read explains (a likelihood ratio of 1.08 to 0.08) is worth, a third of it.
TABLE_LEAN = 0.8
#: Hands a rival could have held that score one of its answers (a sample, when more).
TABLE_HOLDINGS = 120


@lru_cache(maxsize=1)
def _distributions() -> tuple[list[int], list[float]]:
    """The sorted tantos and hand powers of every three-card hand."""
    hands = list(combinations(DECK, 3))
    return sorted(tanto(h) for h in hands), sorted(hand_power(h, (), 0) for h in hands)


def _share_above(values: list[int] | list[float], threshold: float) -> float:
    return 1.0 - bisect_left(values, threshold) / len(values)


def _quantile_from_top(values: list[int] | list[float], share: float) -> float:
    """The value with ``share`` of the hands at or above it."""
    share = min(max(share, 0.01), 0.99)
    return float(values[int((1.0 - share) * (len(values) - 1))])


class RivalTracker:
    """Reads one seat's views through a match and fits the rivals' model."""

    def __init__(
        self,
        seat: int,
        prior: PlayerModel = NEUTRAL,
        read_trucos: bool = False,
        read_table: bool = False,
    ) -> None:
        self.team = seat & 1
        self.prior = prior
        self.read_trucos = read_trucos  # fit the truco bluffs (else the prior's, 0)
        self.logs: dict[int, tuple[tuple[int, int], ...]] = {}  # hand -> last log seen
        self.showdowns: dict[int, tuple[tuple[Declaration, ...], ...]] = {}
        self.closed: set[int] = set()
        self.envido_answers: list[bool] = []  # rivals accepted our envido calls?
        self.truco_answers: list[bool] = []
        self.called_tantos: list[int] = []  # tantos rivals declared after calling envido
        self.envido_chances = 0  # hands where the rivals could open the envido first
        self.envido_opened = 0  # ... and did
        self.passed_chances = 0  # hands where a rival could open after we played a card
        self.passed_opened = 0  # ... and did
        self.trucos_shown = 0  # rivals' opening trucos whose cards the hand showed
        self.trucos_weak = 0  # ... of which were weak (bluffs)
        self.read_table = read_table  # fit the table read (else the prior's)
        self.dealt: dict[int, tuple[int, ...]] = {}  # hand -> our cards
        #: log-likelihood ratio of the rivals' late truco answers, table read over rough
        self.table_evidence = 0.0
        self.table_answers = 0  # answers scored

    def observe(self, view: SeatView) -> None:
        """Take in a view of this seat (call it at every decision)."""
        if view.seat is None:
            return
        last = view.last_hand
        for hand in [h for h in self.logs if h < view.hand_index and h not in self.closed]:
            public = last if last is not None and last.index == hand else None
            final = public.showdowns if public is not None else ()
            self._close(hand, final or self.showdowns.get(hand, ()))
            if public is not None and self.read_trucos:
                self._read_trucos(public)
            if public is not None and self.read_table:
                self._read_table(public, self.dealt.get(hand, ()))
            self.dealt.pop(hand, None)
        if view.dealt:
            self.logs[view.hand_index] = view.log
            self.dealt[view.hand_index] = view.dealt
            self.showdowns[view.hand_index] = view.showdowns

    def newer_than(self, view: SeatView) -> bool:
        """Has this tracker seen a later hand than ``view``'s (a new match began)?"""
        latest = max([*self.logs, *self.closed], default=-1)
        return latest > view.hand_index

    def own_action(self, view: SeatView, action: int) -> None:
        """Our seat's choice at ``view`` (the next view may come in another hand)."""
        if view.seat is not None and view.dealt:
            self.logs[view.hand_index] = (*view.log, (view.seat, action))

    def _close(self, hand: int, showdowns: tuple[tuple[Declaration, ...], ...]) -> None:
        """Count the rivals' answers and declared tantos of a finished hand."""
        self.closed.add(hand)
        log = [(s, a) for s, a in self.logs.pop(hand) if a < SAY_FIRST]
        self.showdowns.pop(hand, None)
        for i, (seat, action) in enumerate(log):
            if seat & 1 != self.team or not (action in ENVIDO_CALLS or action in TRUCO_CALLS):
                continue
            answer = next((a for s, a in log[i + 1 :] if s & 1 != self.team and a >= ENVIDO), None)
            if answer is None and i == len(log) - 1:
                answer = NO_QUIERO  # the hand closed on our call: it was refused
            if answer is None:
                continue
            accepted = answer not in (NO_QUIERO, MAZO)
            if action in ENVIDO_CALLS:
                if answer not in TRUCO_CALLS:
                    self.envido_answers.append(accepted)
            elif answer not in ENVIDO_CALLS:
                self.truco_answers.append(accepted)
        callers = {s for s, a in log if s & 1 != self.team and a in ENVIDO_CALLS}
        first = next((i for i, (_, a) in enumerate(log) if a in ENVIDO_CALLS), len(log))
        if any(s & 1 != self.team for s, _ in log[: first + 1]):
            # a rival acted before the envido was opened, or opened it
            self.envido_chances += 1
            self.envido_opened += first < len(log) and log[first][0] & 1 != self.team
        ours = next((i for i, (s, a) in enumerate(log) if s & 1 == self.team and a < 40), None)
        if ours is not None and ours < first:
            # we passed the envido: the rivals' next action opens it or passes too
            reply = next((a for s, a in log[ours + 1 :] if s & 1 != self.team), None)
            if reply is not None:
                self.passed_chances += 1
                self.passed_opened += reply in ENVIDO_CALLS
        opened = next((s for s, a in log if a in ENVIDO_CALLS), None)
        if opened is None or opened & 1 == self.team:
            return  # only the tantos of a rival who opened the envido tell its calls
        for showdown in showdowns:
            for word in showdown:
                if word.seat in callers and word.tanto is not None:
                    self.called_tantos.append(word.tanto)
                    callers.discard(word.seat)

    def _read_trucos(self, hand: PublicHand) -> None:
        """Count the rivals' opening trucos of a closed hand whose calling hand its
        cards (played or revealed) show, all of them or all but one, and the weak ones."""
        actions = hand.actions
        results = [(after, data[1]) for after, kind, data in hand.notes if kind == "baza"]
        calls = self.model().calls
        for i, (seat, action) in enumerate(actions):
            if seat & 1 == self.team or action != TRUCO:
                continue
            if any(a in TRUCO_CALLS and a != TRUCO for _, a in actions[:i]):
                continue  # not an opening truco
            known = {a for s, a in actions if s == seat and a < 40}
            known.update(c for s, cards in hand.revealed if s == seat for c in cards)
            gone = {a for s, a in actions[:i] if s == seat and a < 40}
            held = [c for c in known if c not in gone]
            unseen = 3 - len(gone) - len(held)
            if unseen > 1:
                continue
            settled = [r for after, r in results if after <= i]
            power = hand_power(held, settled, seat & 1) + unseen * MEAN_CARD_POWER
            self.trucos_shown += 1
            self.trucos_weak += power < TRUCO_BLUFF_POWER - calls

    def _read_table(self, hand: PublicHand, ours: tuple[int, ...]) -> None:
        """Score the rivals' answers to our trucos made once a card was down under both
        reads of their hand: the chance of the answer given by the policy's thresholds
        (its jitters, the fitted shifts), averaged over the hands the rival could have
        held (its cards shown later, the rest drawn from the cards nobody showed)."""
        actions = hand.actions
        settled_at = [(after, data[1]) for after, kind, data in hand.notes if kind == "baza"]
        shown = {a for _, a in actions if a < 40}
        shown.update(c for _, cards in hand.revealed for c in cards)
        unseen = [c for c in DECK if c not in shown and c not in ours]
        fitted = self.model()
        rng = random.Random(hand.index)
        for i, (seat, action) in enumerate(actions):
            if seat & 1 == self.team or action not in (QUIERO, NO_QUIERO, MAZO, *TRUCO_CALLS):
                continue
            caller, call = next(
                ((s, a) for s, a in reversed(actions[:i]) if ENVIDO <= a < SAY_FIRST), (0, 0)
            )
            if call not in TRUCO_CALLS or caller & 1 != self.team:
                continue  # not an answer to our truco
            if not any(a < 40 for _, a in actions[:i]):
                continue  # no card down yet: both reads are the rough score
            level = TRUCO_CALLS.index(call) + 1
            settled = [r for after, r in settled_at if after <= i]
            start = max((after for after, _ in settled_at if after <= i), default=0)
            table = [(s, a) for s, a in actions[start:i] if a < 40]
            gone = {a for s, a in actions[:i] if s == seat and a < 40}
            held = {a for s, a in actions[i:] if s == seat and a < 40}
            held.update(c for s, cards in hand.revealed if s == seat for c in cards)
            held -= gone
            missing = 3 - len(gone) - len(held)
            if missing < 0:
                continue
            options = [c for c in unseen if c not in held]
            holdings: list[tuple[int, ...]]
            if math.comb(len(options), missing) <= TABLE_HOLDINGS:
                holdings = [(*held, *extra) for extra in combinations(options, missing)]
            else:
                holdings = [(*held, *rng.sample(options, missing)) for _ in range(TABLE_HOLDINGS)]
            observed = action if action in (QUIERO, *TRUCO_CALLS) else NO_QUIERO
            partners = len({s for s, _ in actions if s & 1 == seat & 1}) - 1
            team, mano = seat & 1, hand.mano & 1
            rough = read = 0.0
            for cards in holdings:
                rough += _answer_share(
                    hand_power(cards, settled, team), level, partners, fitted, observed
                )
                read += _answer_share(
                    table_power(cards, settled, table, team, mano),
                    level,
                    partners,
                    fitted,
                    observed,
                )
            n = len(holdings)
            floor = LIKELIHOOD_FLOOR
            self.table_evidence += math.log((floor + read / n) / (floor + rough / n))
            self.table_answers += 1

    def reads_table(self) -> bool:
        """Do the rivals read the table late in a hand (the prior's read, until their
        answers lean the other way past :data:`TABLE_LEAN`)?"""
        if not self.read_table:
            return self.prior.table
        lean = TABLE_LEAN if self.prior.table else -TABLE_LEAN
        return self.table_evidence + lean > 0.0

    def model(self) -> PlayerModel:
        """The fitted model of the rivals (the prior before any evidence)."""
        tantos, powers = _distributions()
        prior = self.prior
        envido = _fit_answers(
            self.envido_answers, tantos, ENVIDO_ACCEPT, 10.0, prior.envido_accepts
        )
        truco = _fit_answers(self.truco_answers, powers, TRUCO_ACCEPT, 1.0, prior.truco_accepts)
        calls = prior.calls
        if self.called_tantos:
            n = len(self.called_tantos)
            low = sorted(self.called_tantos)[n // 4]  # about their lowest calling tanto
            seen = (ENVIDO_CALL - low) / 10.0
            calls = (seen * n + prior.calls * PRIOR) / (n + PRIOR)
        calls = _clamp(calls)
        return PlayerModel(
            calls=calls,
            envido_accepts=_clamp(envido),
            truco_accepts=_clamp(truco),
            envido_bluffs=self._envido_bluffs(tantos, calls),
            passed_bluffs=self._passed_bluffs(tantos, calls),
            truco_bluffs=self._truco_bluffs(powers, calls),
            table=self.reads_table(),
        )

    def _truco_bluffs(self, powers: list[float], calls: float) -> float:
        """The bluff chance of a weak hand's opening truco that gives the weak worlds,
        weighed by the rivals' truco (``floor + bluffs`` against ``floor + 1``), the
        share of weak hands their shown trucos had (shrunk towards the share the
        prior's chance gives)."""
        prior = self.prior.truco_bluffs
        if not self.read_trucos:
            return prior
        floor = LIKELIHOOD_FLOOR
        weak = 1.0 - _share_above(powers, TRUCO_BLUFF_POWER - calls)
        odds = weak / (1.0 - weak)  # weak against strong hands before any call
        prior_odds = odds * (floor + prior) / (floor + 1.0)
        prior_rate = prior_odds / (1.0 + prior_odds)
        rate = (self.trucos_weak + PRIOR * prior_rate) / (self.trucos_shown + PRIOR)
        bluffs = rate / (1.0 - rate) / odds * (floor + 1.0) - floor
        return round(min(max(bluffs, 0.0), BLUFFS_LIMIT), 3)

    def _envido_bluffs(self, tantos: list[int], calls: float) -> float:
        """The share of weak hands on which the rivals open the envido: their opening
        rate (shrunk towards the share of hands the fitted calls open with, which means
        no bluff) past that share."""
        strong = _share_above(tantos, ENVIDO_CALL - 10.0 * calls)
        rate = (self.envido_opened + PRIOR * strong) / (self.envido_chances + PRIOR)
        return round(min(max((rate - strong) / (1.0 - strong), 0.0), BLUFFS_LIMIT), 3)

    def _passed_bluffs(self, tantos: list[int], calls: float) -> float:
        """The share of weak hands on which the rivals open the envido after we passed
        it: their opening rate there, shrunk towards the prior's bluffs (0: off)."""
        if not self.prior.passed_bluffs:
            return 0.0
        strong = _share_above(tantos, ENVIDO_CALL - 10.0 * calls)
        prior_rate = strong + (1.0 - strong) * self.prior.passed_bluffs
        rate = (self.passed_opened + PRIOR * prior_rate) / (self.passed_chances + PRIOR)
        return round(min(max((rate - strong) / (1.0 - strong), 0.0), BLUFFS_LIMIT), 3)


def _fit_answers(
    answers: list[bool],
    values: list[int] | list[float],
    threshold: float,
    scale: float,
    prior: float,
) -> float:
    """The acceptance shift that explains ``answers`` (shrunk towards ``prior``): the
    rate of acceptances, each prior observation counted at the rate ``prior`` implies."""
    if not answers:
        return prior
    prior_rate = _share_above(values, threshold - prior * scale)
    rate = (sum(answers) + PRIOR * prior_rate) / (len(answers) + PRIOR)
    return (threshold - _quantile_from_top(values, rate)) / scale


def _answer_share(
    power: float, level: int, partners: int, model: PlayerModel, observed: int
) -> float:
    """The share of the policy's jitters whose answer from ``power`` is ``observed``
    (a raise, :data:`~truco.actions.QUIERO` or :data:`~truco.actions.NO_QUIERO`)."""
    hits = 0
    for jitter in JITTERS:
        answer = truco_answer(
            power, level, partners, jitter + model.truco_accepts, jitter + model.calls
        )
        hits += answer == observed
    return hits / len(JITTERS)


def _clamp(x: float) -> float:
    return round(min(max(x, -LIMIT), LIMIT), 3)
