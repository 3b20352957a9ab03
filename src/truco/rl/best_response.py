"""A best-response learner: a competent base policy that learns where to deviate.

Exploitability is measured by how much a learner gains against a fixed bot. A learner
that starts from nothing (a linear softmax over the observation tensor) loses to every
sensible bot and learns too slowly to show anything; this one starts from the project's
beginner (``simple``: sensible cards and calls) and learns only the call and answer
decisions, where a bot's leaks are (refusing too much, accepting too much, calling on
air). Card play stays the base policy's.

**The abstraction.** A decision with at least two *options* (the legal calls and
answers, plus "play a card", the base policy's card; never the mazo unless forced) is
summed up by :func:`situation`: whose call is pending (or the seat's own turn), the
options, the seat's tanto bucket (in mini-truco its tanto), its hand-power bucket
(:func:`~truco.bots.judgement.hand_power`; with ``read_table``, once a card of the hand
is down, :func:`~truco.bots.judgement.table_power`), the bazas won and lost, whether its
best card beats the rival's card on the table, and whether it is mano. Everything comes
from the seat's own view.

**The learning.** Monte Carlo with every option tried at the same point: at each such
decision of a training match, the environment (:class:`~truco.rl.env.BotOpponentEnv`,
bots and random generators included) is copied once per option, the option is played in
the copy and the hand is played out with the current policy; each option is worth the
points the hand then brings the learner's team. The same hidden cards and the same bot
randomness serve every option (common random numbers), so the comparison is sharp where
one return per decision would drown in the deal's noise. The copies use the true hidden
state only as a simulator does; the policy decides from the seat's view alone. The
learner's team then acts in the real match with its current policy (trying a random
option now and then, ``explore``) so that it also reaches the situations its deviations
lead to.

A situation evaluated ``saturation`` times is not evaluated again (its values are known
well enough; the budget goes to the rarer ones).

**The policy** (:meth:`BestResponse.choose`): the option with the best mean value in the
situation, once the situation was evaluated ``min_visits`` times and that option beats
the base policy's own option by more than ``caution`` standard errors of the paired
difference (``stake_visits`` times and ``stake_caution`` errors when a falta envido is an
option or being answered, :func:`high_stakes`: a handful of outcomes worth up to the
whole match says little); otherwise the base policy. Without any training it *is* the base policy:
that is the baseline a measured gain is counted from.

**The measure** (:func:`paired_hands`): matches of the trained learner against the bot,
in duplicate; at every hand, from the first decision where the learner departs from the
base policy, a copy of the match plays the rest of the hand with the base policy. The
gain of a hand is the trained points minus the base's from the same position (same
deal, score, hidden cards, bots' memory and random state): exactly 0 where the learner
did not depart, so only the departures carry noise.

>>> from truco import Game, Rules
>>> from truco.view import seat_view
>>> learner = BestResponse(Rules(), seed=1)
>>> game = Game(Rules(), seed=2)
>>> seat = game.actors()[0]
>>> legal = game.legal_actions(seat)
>>> learner.choose(seat_view(game, seat), legal) in legal
True
"""

from __future__ import annotations

import copy
import math
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..actions import CONTRAFLOR_AL_RESTO, FALTA_ENVIDO, MAZO, SAY_FIRST, action_token, is_say
from ..bots import Bot, make_bot
from ..bots.judgement import follow, hand_tanto, view_power
from ..cards import STRENGTH
from ..rules import Rules
from ..view import SeatView, seat_view
from .env import BotOpponentEnv

#: The option "play a card": the base policy's card (or the cheapest sensible one).
PLAY = -1
#: Tanto buckets: below 20, 20-23, 24-25, 26-27, 28-29, 30-31, 32-33.
TANTO_EDGES = (20, 24, 26, 28, 30, 32)
#: Hand-power buckets (:func:`~truco.bots.judgement.hand_power` is in [0, 1]).
POWER_EDGES = (0.2, 0.4, 0.6, 0.8)

Key = tuple[object, ...]


def options(legal: Sequence[int]) -> tuple[int, ...]:
    """The options of a decision: its calls and answers, and :data:`PLAY` when a card may
    be played. The mazo is left out (a card never costs more) unless nothing else is
    legal; megaphone words are never said."""
    calls = tuple(a for a in legal if 40 <= a < SAY_FIRST and a != MAZO)
    cards = any(a < 40 for a in legal)
    return calls + ((PLAY,) if cards else ())


def option_name(option: int) -> str:
    return "play" if option == PLAY else action_token(option)


def situation(view: SeatView, opts: Sequence[int], read_table: bool = False) -> Key:
    """The abstraction of a decision: what the learner's table is keyed by (see the
    module doc). Only the seat's view is read. With ``read_table`` the power bucket is
    :func:`~truco.bots.judgement.table_power` once a card of the hand is down (a won
    baza without the cards to take another is weak), else the rough
    :func:`~truco.bots.judgement.hand_power`."""
    assert view.seat is not None
    team = view.seat & 1
    pending = view.pending
    if pending is not None and pending.team == team:
        kind: tuple[object, ...] = (pending.kind, pending.level, pending.chain)
    else:
        kind = ("turn", view.truco_level, view.truco_owner == team)
    bazas = "".join("p" if r < 0 else "w" if r == team else "l" for r in view.baza_results)
    table = view.bazas[-1] if view.bazas and len(view.bazas[-1]) < view.rules.players else ()
    rival = max((STRENGTH[c] for s, c in table if s & 1 != team), default=-1)
    beats = None if rival < 0 else max((STRENGTH[c] for c in view.hand), default=-1) > rival
    power = view_power(view, team, read_table)
    envido = view.envido_open or (pending is not None and pending.kind == "envido")
    return (
        *kind,
        tuple(opts),
        _tanto_bucket(view) if envido else -1,
        bisect_right(POWER_EDGES, power),
        bazas,
        beats,
        view.mano == view.seat,
    )


def _tanto_bucket(view: SeatView) -> int:
    """The seat's tanto bucket (:data:`TANTO_EDGES`); in mini-truco (one or two cards,
    whose tantos are mostly 0-7, all below the first edge) the tanto itself."""
    value = hand_tanto(tuple(sorted(view.dealt)))
    return bisect_right(TANTO_EDGES, value) if view.rules.hand_size == 3 else value


def high_stakes(key: Key) -> bool:
    """Whether a situation may put the match's rest at stake: a falta envido (or
    contraflor al resto) among its options or in the chain being answered. Its outcomes
    are worth up to the whole match, so its option values need far more trials."""
    opts: tuple[int, ...] = key[-6]  # type: ignore[assignment]
    if FALTA_ENVIDO in opts or CONTRAFLOR_AL_RESTO in opts:
        return True
    return key[0] != "turn" and any(
        "falta" in word or "resto" in word
        for word in key[2]  # type: ignore[attr-defined]
    )


def coarse(key: Key) -> Key:
    """A situation with less detail (without the card on the table and who is mano), to
    fall back on while the detailed one has been seen too few times."""
    return (*key[:-2], None, None)


@dataclass
class OptionStats:
    """The values seen for every option of one situation, all measured together."""

    n: int
    sums: np.ndarray  # per option
    products: np.ndarray  # per pair of options: sum of value_i * value_j

    @classmethod
    def empty(cls, k: int) -> OptionStats:
        return cls(0, np.zeros(k), np.zeros((k, k)))

    def add(self, values: Sequence[float]) -> None:
        v = np.asarray(values, dtype=np.float64)
        self.n += 1
        self.sums += v
        self.products += np.outer(v, v)

    def merge(self, other: OptionStats) -> None:
        """Count ``other``'s trials too (the same situation, learnt elsewhere)."""
        self.n += other.n
        self.sums += other.sums
        self.products += other.products

    def means(self) -> np.ndarray:
        means: np.ndarray = self.sums / max(1, self.n)
        return means

    def advantage(self, i: int, j: int) -> tuple[float, float]:
        """Option ``i``'s mean value over option ``j``'s, and its standard error."""
        n = self.n
        diff = (self.sums[i] - self.sums[j]) / n
        if n < 2:
            return diff, math.inf
        square = (self.products[i, i] + self.products[j, j] - 2 * self.products[i, j]) / n
        var = max(0.0, square - diff * diff) * n / (n - 1)
        return diff, math.sqrt(var / n)


@dataclass
class Decision:
    """One decision as the learner sees it."""

    options: tuple[int, ...]
    key: Key | None  # None: nothing to choose (fewer than two options)
    base_action: int
    cards: tuple[int, ...] = field(default=())
    table: tuple[tuple[int, int], ...] = field(default=())
    team: int = 0


class BestResponse:
    """The learner (see the module doc): a table of option values per situation over a
    base policy (a bot spec of :func:`truco.bots.make_bot`, ``"simple"`` by default)."""

    def __init__(
        self,
        rules: Rules,
        base: str = "simple",
        min_visits: int = 3,
        caution: float = 1.0,
        explore: float = 0.1,
        seed: int | None = None,
        stake_visits: int = 10,
        saturation: int | None = 40,
        stake_caution: float = 2.0,
        read_table: bool = False,
        game: Mapping[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        #: the game's parameters besides the table's (``deck``, ``max_hands``: mini-truco)
        self.game = dict(game or {})
        self.read_table = read_table
        self.base_spec = base
        self.base: Bot = make_bot(base, seed)
        self.min_visits = min_visits
        self.caution = caution
        self.explore = explore
        self.stake_visits = stake_visits
        self.stake_caution = stake_caution
        self.saturation = saturation
        self.table: dict[Key, OptionStats] = {}
        self.rng = np.random.default_rng(seed)
        self.evaluated = 0  # decisions evaluated in training

    def reset_base(self, seed: int | None) -> None:
        """A fresh base bot (its own memory of the match forgotten), for a new match."""
        self.base = make_bot(self.base_spec, seed)

    # ------------------------------------------------------------------ policy
    def decide(self, view: SeatView, legal: Sequence[int], base: Bot | None = None) -> Decision:
        """The decision's options, situation and the base policy's action."""
        bot = self.base if base is None else base
        base_action = bot.choose(view, legal, self.rules)
        if is_say(base_action):  # the learner keeps quiet: a word is not an option
            base_action = next((a for a in legal if not is_say(a)), base_action)
        opts = options(legal)
        assert view.seat is not None
        team = view.seat & 1
        cards = tuple(a for a in legal if a < 40)
        table = view.bazas[-1] if view.bazas and len(view.bazas[-1]) < view.rules.players else ()
        key = situation(view, opts, self.read_table) if len(opts) >= 2 else None
        return Decision(opts, key, base_action, cards, tuple(table), team)

    def base_option(self, d: Decision) -> int:
        if d.base_action < 40:
            return PLAY
        return d.base_action if d.base_action in d.options else d.options[0]

    def best_option(self, d: Decision) -> int:
        """The learnt option of a decision, or the base policy's."""
        base = self.base_option(d)
        stats = self.stats(d.key)
        if stats is None:
            return base
        best = int(np.argmax(stats.means()))
        j = d.options.index(base)
        if best == j:
            return base
        diff, error = stats.advantage(best, j)
        stake = d.key is not None and high_stakes(d.key)
        caution = max(self.caution, self.stake_caution) if stake else self.caution
        return d.options[best] if diff > caution * error else base

    def stats(self, key: Key | None) -> OptionStats | None:
        """The values of a situation: its own once seen ``min_visits`` times, else its
        coarse form's (:func:`coarse`) once that was, else none."""
        if key is None:
            return None
        needed = max(self.min_visits, self.stake_visits) if high_stakes(key) else self.min_visits
        for k in (key, coarse(key)):
            stats = self.table.get(k)
            if stats is not None and stats.n >= needed:
                return stats
        return None

    def saturated(self, key: Key) -> bool:
        """Whether ``key`` was evaluated ``saturation`` times already."""
        stats = self.table.get(key)
        return self.saturation is not None and stats is not None and stats.n >= self.saturation

    def action(self, d: Decision, option: int) -> int:
        """The action that carries out ``option``."""
        if option != PLAY:
            return option
        if d.base_action < 40:
            return d.base_action
        if d.cards:
            return follow(d.cards, d.table, d.team)
        return d.base_action

    def choose(self, view: SeatView, legal: Sequence[int], base: Bot | None = None) -> int:
        """The greedy policy's action (see the module doc)."""
        d = self.decide(view, legal, base)
        return self.action(d, self.best_option(d))

    # ------------------------------------------------------------------ learning
    def _play_out(self, env: BotOpponentEnv, base: Bot, action: int, greedy: bool = True) -> float:
        """Play ``action`` in ``env`` then the rest of the hand greedily (or, with
        ``greedy=False``, by the base policy alone); the points it brought the learner's
        team."""
        hand = env.state.game.hand_index
        _, total, over, cut, _ = env.step(action)
        done = over or cut  # a ``max_hands`` cut is a truncation
        while not done and env.state.game.hand_index == hand:
            view = seat_view(env.state.game, env.seat)
            d = self.decide(view, env.state.legal_actions(env.seat), base)
            option = self.best_option(d) if greedy else self.base_option(d)
            _, reward, over, cut, _ = env.step(self.action(d, option))
            done = over or cut  # a ``max_hands`` cut is a truncation
            total += reward
        return float(total)

    def evaluate(self, env: BotOpponentEnv, d: Decision) -> list[float]:
        """Every option of ``d`` played out in its own copy of ``env``."""
        values = []
        for option in d.options:
            sim_env, sim_base = copy.deepcopy((env, self.base))
            values.append(self._play_out(sim_env, sim_base, self.action(d, option)))
        return values

    def train_match(self, env: BotOpponentEnv, seed: int) -> float:
        """One training match in ``env`` (reset with ``seed``): every decision with a
        choice is evaluated and learnt from; returns the learner's points margin."""
        env.reset(seed=seed)
        self.reset_base(seed)
        done, total = False, 0.0
        while not done:
            view = seat_view(env.state.game, env.seat)
            d = self.decide(view, env.state.legal_actions(env.seat))
            option = self.base_option(d)
            if d.key is not None:
                if not self.saturated(d.key):
                    values = self.evaluate(env, d)
                    for k in (d.key, coarse(d.key)):
                        self.table.setdefault(k, OptionStats.empty(len(d.options))).add(values)
                    self.evaluated += 1
                option = self.best_option(d)
                if self.rng.random() < self.explore:
                    option = d.options[int(self.rng.integers(len(d.options)))]
            _, reward, over, cut, _ = env.step(self.action(d, option))
            done = over or cut  # a ``max_hands`` cut is a truncation
            total += reward
        return total

    def merge(self, other: BestResponse) -> None:
        """Add what ``other`` learnt (its trials of every situation) to this table: the
        statistics are sums, so shards trained in parallel make one learner."""
        for key, stats in other.table.items():
            mine = self.table.get(key)
            if mine is None:
                self.table[key] = copy.deepcopy(stats)
            else:
                mine.merge(stats)
        self.evaluated += other.evaluated

    def deviations(self, top: int = 10) -> list[str]:
        """The most visited situations where the learnt option is not the base's usual
        one, in words (what was exploited)."""
        rows = []
        for key, stats in self.table.items():
            if self.stats(key) is not stats or key[-1] is None:
                continue
            opts: tuple[int, ...] = key[-6]  # type: ignore[assignment]
            means = stats.means()
            best = int(np.argmax(means))
            line = ", ".join(f"{option_name(o)} {m:+.2f}" for o, m in zip(opts, means, strict=True))
            rows.append(
                (
                    stats.n,
                    f"{key[:-6]} tanto {key[-5]} power {key[-4]} bazas "
                    f"{key[-3] or '-'} beats {key[-2]} mano {key[-1]}: n={stats.n} "
                    f"best {option_name(opts[best])} ({line})",
                )
            )
        rows.sort(key=lambda r: -r[0])
        return [text for _, text in rows[:top]]


# ---------------------------------------------------------------------- measuring
def match_env(
    bot: str | Bot, rules: Rules, team: int, game: Mapping[str, Any] | None = None
) -> BotOpponentEnv:
    """Whole matches against ``bot`` (a spec for :func:`truco.bots.make_bot`, or a bot
    such as a :class:`~truco.rl.policy_bot.PolicyBot` holding an in-memory policy), the
    learner's team ``team``, rewards per hand; ``game``: more parameters of the
    :class:`~truco.rl.game.TrucoGame` (mini-truco's ``deck``, ``max_hands=1``)."""
    return BotOpponentEnv(
        opponent=bot,
        learner=tuple(range(team, rules.players, 2)),
        rewards="hand",
        **rules.to_dict(),
        **(game or {}),
    )


Chooser = Callable[[SeatView, Sequence[int]], int]


def play_match(env: BotOpponentEnv, seed: int, choose: Chooser) -> tuple[float, int]:
    """One match of ``env`` (reset with ``seed``) with the learner acting by ``choose``:
    the learner's points margin and the hands played."""
    env.reset(seed=seed)
    done, total = False, 0.0
    while not done:
        view = seat_view(env.state.game, env.seat)
        _, reward, over, cut, _ = env.step(choose(view, env.state.legal_actions(env.seat)))
        done = over or cut  # a ``max_hands`` cut is a truncation
        total += reward
    return total, max(1, len(env.state.game.history))


def duplicate_margins(learner: BestResponse, bot: str | Bot, seeds: Sequence[int]) -> list[float]:
    """The learner's greedy points margin per hand on each seed, played in duplicate:
    the same deals with the learner on one team, then on the other (the margin of the
    pair: points over hands of both matches). The whole-match measure that
    :func:`paired_hands` replaced, kept to compare them (``exploitability.py --compare``)."""
    envs = [match_env(bot, learner.rules, team, learner.game) for team in (0, 1)]
    out = []
    for seed in seeds:
        points, hands = 0.0, 0
        for env in envs:
            learner.reset_base(seed)
            p, h = play_match(env, seed, learner.choose)
            points, hands = points + p, hands + h
        out.append(points / hands)
    return out


@dataclass(frozen=True)
class HandPair:
    """One hand of :func:`paired_hands`: the points it brought the learner's team as the
    trained learner played it, and as the base policy would have from the same position
    (the same when the learner never departed from the base in it)."""

    seed: int
    team: int
    trained: float
    base: float
    departed: bool

    @property
    def gain(self) -> float:
        return self.trained - self.base


def paired_match(learner: BestResponse, env: BotOpponentEnv, seed: int) -> list[HandPair]:
    """One match of ``env`` (reset with ``seed``) by the trained learner (greedy), hand by
    hand paired with the base policy: at the first decision of a hand where the learner's
    option is not the base's, a copy of the match (bots, random generators and hidden
    cards included) plays the base's option and the rest of the hand by the base policy.
    The learner's decisions read its seat's view only; the copy is the simulator's."""
    env.reset(seed=seed)
    learner.reset_base(seed)
    hands: list[HandPair] = []
    done = False
    while not done:
        hand = env.state.game.hand_index
        trained, base = 0.0, None
        while not done and env.state.game.hand_index == hand:
            view = seat_view(env.state.game, env.seat)
            d = learner.decide(view, env.state.legal_actions(env.seat))
            option, usual = learner.best_option(d), learner.base_option(d)
            if base is None and option != usual:
                sim_env, sim_base = copy.deepcopy((env, learner.base))
                base = learner._play_out(sim_env, sim_base, learner.action(d, usual), False)
            _, reward, over, cut, _ = env.step(learner.action(d, option))
            done = over or cut  # a ``max_hands`` cut is a truncation
            trained += reward
        departed = base is not None
        hands.append(HandPair(seed, env.team, trained, trained if base is None else base, departed))
    return hands


def paired_hands(
    learner: BestResponse,
    bot: str | Bot,
    seeds: Sequence[int],
    progress: Callable[[str], None] | None = None,
) -> list[HandPair]:
    """:func:`paired_match` on every seed in duplicate: the learner on one team, then on
    the other, with the same deals."""
    envs = [match_env(bot, learner.rules, team, learner.game) for team in (0, 1)]
    hands: list[HandPair] = []
    for i, seed in enumerate(seeds):
        for env in envs:
            hands += paired_match(learner, env, seed)
        if progress is not None:
            gain = sum(h.gain for h in hands) / len(hands)
            progress(f"evaluation seed {i + 1}/{len(seeds)}: {len(hands)} hands, gain {gain:+.3f}")
    return hands


def per_hand(
    hands: Sequence[HandPair],
    value: Callable[[HandPair], float],
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """The mean of ``value`` per hand, with a 95% bootstrap interval over seeds (a seed's
    hands, both seat orders, are resampled together: they share deals and the bots'
    memory, so they are not independent)."""
    seeds = sorted({h.seed for h in hands})
    index = {s: i for i, s in enumerate(seeds)}
    sums, counts = np.zeros(len(seeds)), np.zeros(len(seeds))
    for h in hands:
        sums[index[h.seed]] += value(h)
        counts[index[h.seed]] += 1
    if not seeds:
        return (0.0, 0.0, 0.0)
    mean = float(sums.sum() / counts.sum())
    picks = np.random.default_rng(seed).integers(len(seeds), size=(resamples, len(seeds)))
    ratios = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    return (mean, float(lo), float(hi))


def train(
    learner: BestResponse,
    bot: str | Bot,
    matches: int,
    seed: int,
    progress: Callable[[str], None] | None = None,
) -> None:
    """``matches`` training matches against ``bot``, the learner's team alternating."""
    envs = [match_env(bot, learner.rules, team, learner.game) for team in (0, 1)]
    rng = np.random.default_rng(seed)
    for m in range(matches):
        learner.train_match(envs[m % 2], int(rng.integers(2**31)))
        if progress is not None:
            progress(f"training match {m + 1}/{matches}: {learner.evaluated} decisions tried")
