"""The match as a state machine: the single source of truth for the rules.

A :class:`Game` holds a whole match (chicos, hands, rounds of pica-pica, bazas, calls).
Ask it who may act (:meth:`Game.actors`), what a seat may do
(:meth:`Game.legal_actions`), and apply an action (:meth:`Game.apply`); an illegal
action raises :class:`IllegalAction` naming the reason and leaves the state untouched.

>>> from truco.cards import parse_card as c
>>> game = Game(Rules(), manual_deal=True)
>>> game.deal(((c("1e"), c("3c"), c("4b")), (c("2o"), c("5c"), c("6e"))))
>>> game.actors()
(0,)
>>> game.play(0, "envido"); game.play(1, "quiero")
>>> for seat, card in [(0, "1e"), (1, "2o"), (0, "3c"), (1, "5c")]:
...     game.play(seat, f"play {card}")
>>> game.last_hand.why, game.score
(((1, 'envido', 2), (0, 'truco', 1)), (1, 2))

Cards and actions are small integers (see :mod:`truco.cards`, :mod:`truco.actions`);
the state is a handful of flat lists, so :meth:`Game.clone` is a shallow copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from . import scoring
from .actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    NO_QUIERO,
    NUM_ACTIONS,
    QUIERO,
    REAL_ENVIDO,
    SAY_ACTIONS,
    SAY_FIRST,
    TRUCO,
    TRUCO_CALLS,
    action_token,
    is_say,
    parse_action,
)
from .cards import STRENGTH, card_name, flor_value, hand_tanto, has_flor, tanto, tanto_cards
from .deal import Deal, Dealer, SecureDealer, SeededDealer
from .refusals import Refusal
from .rules import Rules
from .vocabulary import PARDA, Action, Call, CallKind, Card, Seat, Stage, Team

__all__ = [
    "PARDA",
    "Declaration",
    "Game",
    "HandResult",
    "IllegalAction",
    "MatchPosition",
    "Outcome",
    "round_winner",
    "short_round_winner",
]

# The call kinds and stages as module globals: the hot path reads a global about ten
# times faster than an enum member. ``P_TRUCO is CallKind.TRUCO``.
P_TRUCO, P_ENVIDO, P_FLOR, P_CONTRAFLOR, P_AL_RESTO = CallKind
OPEN, CALLED, DONE = Stage

# _CALLS[kind][team][level]: every pending call there can be, made once (a call is made
# on most hands' hot path; a Call is immutable, so games share them).
_CALLS = tuple(
    tuple(tuple(Call(kind, team, level) for level in range(4)) for team in (0, 1))
    for kind in CallKind
)
#: The call kinds' names, indexed by kind (``PENDING_NAMES[P_FLOR] == "flor"``).
PENDING_NAMES = tuple(kind.token for kind in CallKind)

_ENVIDO_CALLS = [ENVIDO, REAL_ENVIDO, FALTA_ENVIDO]
_SAYS = list(SAY_ACTIONS)

# _ORDER[n][s]: the other seats after s, in playing order
_ORDER = {n: tuple(tuple((s + k) % n for k in range(1, n)) for s in range(n)) for n in (2, 4, 6)}
# _FROM[n][s]: all seats in playing order starting at s
_FROM = {n: tuple(tuple((s + k) % n for k in range(n)) for s in range(n)) for n in (2, 4, 6)}
_TEAM_SEATS = {n: (tuple(range(0, n, 2)), tuple(range(1, n, 2))) for n in (2, 4, 6)}
_ALONE = tuple((s,) for s in range(6))

# The stakes of a round, read on every hand: scoring.py's, by truco level (accepted, refused)
_TRUCO_VALUE = tuple(scoring.truco_value(level) for level in range(4))
_TRUCO_REFUSED = (0, *(scoring.truco_refused(level) for level in range(1, 4)))

# The calls after the cards on a seat's turn: [envido open][truco level, 3 = may not raise]
_TURN_CALLS = tuple(
    tuple(
        (_ENVIDO_CALLS if envido_open else []) + ([TRUCO + level] if level < 3 else []) + [MAZO]
        for level in range(4)
    )
    for envido_open in (False, True)
)
# The answers to a truco call: [el envido está primero][level called]
_TRUCO_ANSWERS = tuple(
    tuple(
        [QUIERO, NO_QUIERO]
        + ([TRUCO + level] if 0 < level < 3 else [])
        + (_ENVIDO_CALLS if primero else [])
        + [MAZO]
        for level in range(4)
    )
    for primero in (False, True)
)


# The refusals without parameters, made once (see truco.refusals)
_MATCH_OVER = Refusal.of("match_over")
_HAND_OVER = Refusal.of("hand_over")
_PICA_PICA_OTHER_PAIR = Refusal.of("pica_pica_other_pair")
_GONE_TO_MAZO = Refusal.of("gone_to_mazo")
_MEGAPHONE_TEAMS_ONLY = Refusal.of("megaphone_teams_only")
_MEGAPHONE_PICA_PICA = Refusal.of("megaphone_pica_pica")
_MUST_SING_FLOR = Refusal.of("must_sing_flor")
_FLOR_HOLDERS_ANSWER = Refusal.of("flor_holders_answer")
_SIN_FLOR = Refusal.of("sin_flor")
_FLOR_WAS_SUNG = Refusal.of("flor_was_sung")
_FALTA_ENVIDO_ENDS_CHAIN = Refusal.of("falta_envido_ends_chain")
_REAL_ENVIDO_ONCE = Refusal.of("real_envido_once")
_ENVIDO_REPEATS_ONCE = Refusal.of("envido_repeats_once")
_ENVIDO_ONCE = Refusal.of("envido_once")
_ENVIDO_PRIMERO_ONLY = Refusal.of("envido_primero_only")
_NO_CALL_TO_ANSWER = Refusal.of("no_call_to_answer")
_ENVIDO_FIRST_BAZA_ONLY = Refusal.of("envido_first_baza_only")
_ENVIDO_AFTER_TRUCO_ACCEPTED = Refusal.of("envido_after_truco_accepted")
_ENVIDO_DEALER_PLAYED = Refusal.of("envido_dealer_played")
_ENVIDO_PIE_ONLY = Refusal.of("envido_pie_only")
_VALE_CUATRO_IS_TOP = Refusal.of("vale_cuatro_is_top")
_RAISE_BY_ACCEPTORS = Refusal.of("raise_by_acceptors")
_TRUCO_FIRST = Refusal.of("truco_first")
_NO_FLOR_HELD = Refusal.of("no_flor_held")
_FLOR_ALREADY_SUNG = Refusal.of("flor_already_sung")
_NOT_NOW = Refusal.of("not_now")
_FLOR_WORDS = (FLOR, CONTRAFLOR, CONTRAFLOR_AL_RESTO, CON_FLOR_ME_ACHICO)


def round_winner(results: Sequence[Team], mano_team: Team) -> Team | None:
    """The team that the bazas ``results`` (each a team or :data:`PARDA`) give the round
    to, or ``None`` while they decide nothing yet: two bazas of one team; a parda goes to
    whoever took the first baza, and after a first parda the next baza decides; three
    pardas go to the mano's team.

    >>> round_winner([0, PARDA], mano_team=1), round_winner([PARDA, PARDA], 1)
    (0, None)
    >>> round_winner([1, 0, PARDA], 0), round_winner([PARDA, PARDA, PARDA], 1)
    (1, 1)
    """
    if len(results) == 2:
        first, second = results
        if first == PARDA:
            return None if second == PARDA else second  # two pardas: the third decides
        if second in (PARDA, first):
            return first
    elif len(results) == 3:
        first, _, third = results
        if third != PARDA:
            return third
        return first if first != PARDA else mano_team
    return None


def short_round_winner(results: Sequence[Team], mano_team: Team) -> Team:
    """Who takes a mini-truco round (``Rules.hand_size`` 1 or 2) that its last baza left
    undecided by :func:`round_winner`: one baza, its winner or, parda, the mano's team;
    two bazas split one each, the first baza's winner; two pardas, the mano's team.

    >>> short_round_winner([1], 0), short_round_winner([PARDA], 1), short_round_winner([0, 1], 1)
    (1, 1, 0)
    """
    first = results[0]
    if len(results) == 1 or first != PARDA:
        return mano_team if first == PARDA else first
    return mano_team


def _why_no_raise(level: int, accepted_by_us: bool) -> Refusal | None:
    """Why a seat may not call the next truco level on its turn, or ``None``: vale cuatro
    is the top, and once a call is accepted only the accepting team raises."""
    if level == 3:
        return _VALE_CUATRO_IS_TOP
    if level and not accepted_by_us:
        return _RAISE_BY_ACCEPTORS
    return None


# _RAISE_COLUMN[truco level][the seat's team accepted it]: the column of _TURN_CALLS,
# 3 where the seat may not raise; a table of _why_no_raise, read on every turn.
_RAISE_COLUMN = tuple(
    tuple(level if _why_no_raise(level, ours) is None else 3 for ours in (False, True))
    for level in range(4)
)


def _why_not_after(envido_calls: list[Action], call: Action) -> Refusal:
    """Why ``call`` may not follow the envido chain (see :func:`scoring.envido_raises`)."""
    if envido_calls[-1] == FALTA_ENVIDO:
        return _FALTA_ENVIDO_ENDS_CHAIN
    if call == REAL_ENVIDO:
        return _REAL_ENVIDO_ONCE
    return _ENVIDO_REPEATS_ONCE


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the state is unchanged. ``refusal``
    is the rule it broke (a code and its parameters, see :mod:`truco.refusals`);
    ``reason`` its English sentence."""

    def __init__(self, seat: Seat, action: Action | str, refusal: Refusal) -> None:
        if isinstance(action, str):
            token = action
        elif isinstance(action, int) and not isinstance(action, bool) and 0 <= action < NUM_ACTIONS:
            token = action_token(action)
        else:
            token = f"action {action!r}"
        reason = refusal.reason
        super().__init__(f"seat {seat} may not {token!r}: {reason}")
        self.seat = seat
        self.token = token
        self.refusal = refusal
        self.reason = reason

    @property
    def code(self) -> str:
        """The refusal's code (``"envido_first_baza_only"``)."""
        return self.refusal.code


@dataclass(frozen=True, slots=True)
class Declaration:
    """One seat's word in the envido showdown: its tanto, or ``None`` for "son buenas"."""

    seat: Seat
    tanto: int | None


class HandResult(NamedTuple):
    """A closed hand: what each team scored and why, and the match after it."""

    index: int  # type: ignore[assignment]  # the hand number; shadows tuple.index on purpose
    mano: Seat
    deal: Deal
    actions: tuple[tuple[Seat, Action], ...]
    why: tuple[tuple[Team, str, int], ...]
    points: tuple[int, int]
    score: tuple[int, int]
    chicos: tuple[int, int]
    pica_pica: bool
    revealed: tuple[tuple[Seat, tuple[Card, ...]], ...]
    showdowns: tuple[tuple[Declaration, ...], ...] = ()
    notes: tuple[tuple[int, str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchPosition:
    """Where a match stands at the start of a hand: all that the next hands depend
    on besides the cards. Public: every seat knows it."""

    rules: Rules
    first_mano: Seat
    hand_index: int
    score: tuple[int, int]
    chicos: tuple[int, int]
    pica_started: bool = False
    pica_now: bool = False

    @property
    def mano(self) -> Seat:
        return (self.first_mano + self.hand_index) % self.rules.players


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a match: the winning team and the chicos."""

    winner: Team
    chicos: tuple[int, int]


class Game:
    """A whole match of truco under one :class:`~truco.rules.Rules`.

    By default hands are dealt by a cryptographically secure shuffle; pass ``seed`` for
    a reproducible match, ``dealer`` for your own source, or ``manual_deal=True`` to
    give each hand's cards with :meth:`deal` (replays, tests).

    The state is public and flat, as in python-chess's ``Board``: read it freely, change
    it only through :meth:`apply`, :meth:`push` and :meth:`deal`. A *round* is the whole
    hand, except in a pica-pica hand where each pair of rival seats plays its own round.
    """

    # -- the match
    rules: Rules
    """The table's options."""
    players: int
    """The number of seats: 2, 4 or 6."""
    target: int
    """The points of a chico (15 or 30)."""
    dealer: Dealer | None
    """Where each hand's cards come from; ``None`` when they are given with :meth:`deal`."""
    seed: int | str | None
    """The seed of a reproducible match (recorded in its record), else ``None``."""
    first_mano: Seat
    """The mano of the first hand; the mano moves one seat on every hand."""
    winner: Team | None
    """The team that won the match, or ``None`` while it goes on."""
    hand_index: int
    """The current hand (or the next one to deal), counted from 0 over the match."""
    mano: Seat
    """The mano of the current hand: the first to play."""
    chico_over: bool
    """The last hand closed a chico: the score starts again at the next deal."""
    history: list[HandResult]
    """Every closed hand, in order."""
    pica_started: bool
    """pica-pica: a team has reached 5 in this chico, so pica-pica hands alternate."""
    pica_now: bool
    """The current hand is a pica-pica hand (three 1v1 rounds)."""
    needs_deal: bool
    """The hand is over (or not dealt yet) and the next one waits for its cards."""
    _score: list[int]
    """The chico's score of each team (read it as :attr:`score`)."""
    _chicos: list[int]
    """The chicos won by each team (read them as :attr:`chicos`)."""
    # -- the hand
    dealt: Deal
    """Each seat's three cards as dealt."""
    cards: list[list[Card]]
    """The cards each seat still holds."""
    actions: list[tuple[Seat, Action]]
    """The hand's actions so far (megaphone words included)."""
    why_flor: list[tuple[Team, str, int]]
    """The hand's flor points so far: ``(team, "flor", points)``."""
    why_envido: list[tuple[Team, str, int]]
    """The hand's envido points so far: ``(team, "envido", points)``."""
    why_truco: list[tuple[Team, str, int]]
    """The points of each round closed so far: ``(team, "truco", points)``."""
    revealed: list[tuple[Seat, tuple[Card, ...]]]
    """Cards to show when the hand closes: winning tantos, flores that scored."""
    notes: list[tuple[int, str, tuple[int, ...]]]
    """What happened besides the actions, each after how many actions of the hand:
    ``("baza", (number, team or PARDA, best seat))``, ``("envido", (winning seat, points))``,
    ``("flor", (team, points))``, ``("round", (team, truco points))``."""
    showdowns: list[tuple[Declaration, ...]]
    """The envido showdowns of the hand, each seat's word in order."""
    rounds_to_play: list[tuple[Seat, ...]]
    """pica-pica: the seats of the rounds still to play after the current one."""
    # -- the round
    round_seats: tuple[Seat, ...]
    """The seats playing the current round, from its mano (every seat, or a pica-pica pair)."""
    in_hand: list[bool]
    """Each seat plays the current round and has not gone to the mazo."""
    round_mano: Seat
    """The mano of the current round: first to play, wins the ties."""
    round_dealer: Seat
    """The last seat of the round's first baza (the dealer, in a whole hand); the envido
    closes once it has played a card."""
    has_played: list[bool]
    """Each seat has played a card in the current round."""
    baza_index: int
    """The current baza of the round: 0, 1 or 2."""
    baza_leader: Seat
    """The seat that leads the current baza."""
    bazas: list[list[tuple[Seat, Card]]]
    """The cards played in each baza of the round, the current one last."""
    played_this_baza: list[bool]
    """Each seat has played its card in the current baza."""
    baza_results: list[Team]
    """The winning team of each finished baza of the round, or :data:`PARDA`."""
    turn: Seat | None
    """The seat whose turn it is to play a card; ``None`` between the last card of a baza
    and its settlement (a pending call delays it)."""
    truco_level: int
    """The accepted truco level: 0 none, 1 truco, 2 retruco, 3 vale cuatro."""
    truco_owner: Team | None
    """The team that accepted the last truco call: only it may raise; ``None`` before."""
    pending: list[Call]
    """Calls waiting for their answer, the one to answer last (a flor sung while a truco
    waits stacks on it)."""
    envido_stage: Stage
    """How far the round's envido has gone (flor closes it)."""
    envido_calls: list[Action]
    """The envido chain called so far (``ENVIDO``, ``REAL_ENVIDO``, ``FALTA_ENVIDO``)."""
    flor_stage: Stage
    """How far the round's flor exchange has gone."""
    flor_team: Team | None
    """The team that sang the first flor of the round, or ``None``."""
    flor_holder: list[bool]
    """Each seat of the round holds a flor (tables con flor)."""
    flor_sung: list[bool]
    """Each seat has sung its flor."""

    __slots__ = (
        "_chicos", "_score", "actions", "baza_index", "baza_leader", "baza_results", "bazas",
        "cards", "chico_over", "dealer", "dealt", "envido_calls", "envido_stage", "first_mano",
        "flor_holder", "flor_stage", "flor_sung", "flor_team", "hand_index", "has_played",
        "history", "in_hand", "mano", "needs_deal", "notes", "pending", "pica_now",
        "pica_started", "played_this_baza", "players", "revealed", "round_dealer", "round_mano",
        "round_seats", "rounds_to_play", "rules", "seed", "showdowns", "target", "truco_level",
        "truco_owner", "turn", "why_envido", "why_flor", "why_truco", "winner",
    )  # fmt: skip

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        first_mano: Seat = 0,
        seed: int | str | None = None,
        dealer: Dealer | None = None,
        manual_deal: bool = False,
    ) -> None:
        self.rules = rules = rules or Rules()
        self.players = rules.players
        if not isinstance(first_mano, int) or not 0 <= first_mano < self.players:
            raise ValueError(f"first_mano must be a seat from 0 to {self.players - 1}")
        self.target = rules.target
        self.seed = seed
        if manual_deal:
            self.dealer = None
        elif dealer is not None:
            self.dealer = dealer
        elif seed is not None:
            self.dealer = SeededDealer(seed)
        else:
            self.dealer = SecureDealer()
        self.first_mano = first_mano
        self._score = [0, 0]
        self._chicos = [0, 0]
        self.winner = None
        self.hand_index = 0
        self.mano = first_mano
        self.chico_over = False
        self.history = []
        self.pica_started = False
        self.pica_now = False
        self.needs_deal = True
        self._reset_hand_state(())
        self._reset_round_state(())
        if self.dealer is not None:
            self._start_hand(self.dealer.deal(self.players, 0))

    @classmethod
    def at_position(
        cls,
        position: MatchPosition,
        *,
        seed: int | str | None = None,
        dealer: Dealer | None = None,
        manual_deal: bool = False,
    ) -> Game:
        """A game that starts at ``position``, its hand not dealt yet (with
        ``manual_deal``) or dealt by ``dealer``/``seed``/the secure shuffle.
        Search bots use it to rebuild a hand from what a seat has seen."""
        game = cls(position.rules, first_mano=position.first_mano, manual_deal=True)
        game._score = list(position.score)
        game._chicos = list(position.chicos)
        game.hand_index = position.hand_index
        game.mano = position.mano
        game.pica_started = position.pica_started
        game.pica_now = position.pica_now
        game.seed = seed
        if not manual_deal:
            game.dealer = dealer or (SeededDealer(seed) if seed is not None else SecureDealer())
            game._start_hand(game.dealer.deal(game.players, game.hand_index))
        return game

    def position(self) -> MatchPosition:
        """The match position at the start of the current hand (or of the next hand
        to deal). Points of a hand are only added when it closes, so the score is the
        one the hand started with."""
        score = (0, 0) if self.chico_over else self.score
        return MatchPosition(
            self.rules,
            self.first_mano,
            self.hand_index,
            score,
            self.chicos,
            self.pica_started and not self.chico_over,
            self.pica_now,
        )

    # ------------------------------------------------------------------ queries
    @property
    def score(self) -> tuple[int, int]:
        """The chico's score (after a chico closes: its final score until the next deal)."""
        return (self._score[0], self._score[1])

    @property
    def chicos(self) -> tuple[int, int]:
        return (self._chicos[0], self._chicos[1])

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def outcome(self) -> Outcome | None:
        """The end of the match as data, or ``None`` while it goes on."""
        return Outcome(self.winner, self.chicos) if self.winner is not None else None

    @property
    def n(self) -> int:
        """Read-only alias of :attr:`players`, kept for older callers."""
        return self.players

    @property
    def dealer_seat(self) -> Seat:
        """The seat before the hand's mano."""
        return (self.mano - 1) % self.players

    @property
    def last_hand(self) -> HandResult | None:
        return self.history[-1] if self.history else None

    def hand_cards(self, seat: Seat) -> tuple[Card, ...]:
        """The cards a seat still holds (engine-side; seats see them through views)."""
        return tuple(self.cards[seat])

    def on_turn(self, seat: Seat) -> bool:
        """It is ``seat``'s turn to play a card and no call waits for an answer."""
        return (
            not self.needs_deal and self.winner is None and not self.pending and self.turn == seat
        )

    def holds(self, seat: Seat, card: Card) -> bool:
        """``seat`` is in the hand and still holds ``card`` (engine-side knowledge)."""
        return self.in_hand[seat] and card in self.cards[seat]

    def deal_from(self, dealer: Dealer) -> None:
        """Deal the coming hands with ``dealer`` (and the waiting hand at once): how a
        match rebuilt from its record goes on, e.g. with a :class:`SecureDealer`."""
        self.dealer = dealer
        if self.needs_deal and self.winner is None:
            self._start_hand(dealer.deal(self.players, self.hand_index))

    def actors(self) -> tuple[Seat, ...]:
        """The seats that may act now (megaphone words aside): the turn's seat, or
        the players who may answer a pending call. Empty between hands and at the end."""
        if self.needs_deal or self.winner is not None:
            return ()
        pending = self.pending
        if not pending:
            turn = self.turn
            return () if turn is None else _ALONE[turn]
        kind, team, _ = pending[-1]
        in_hand = self.in_hand
        if kind == P_FLOR:
            holder = self.flor_holder
            return tuple(s for s in _TEAM_SEATS[self.players][team] if in_hand[s] and holder[s])
        return tuple(filter(in_hand.__getitem__, _TEAM_SEATS[self.players][team]))

    def legal_actions(self, seat: Seat, megaphone: bool = True) -> list[Action]:
        """The actions ``seat`` may take now, cards first, then calls, answers, ``mazo``
        and (with ``megaphone``, on 2v2/3v3 tables) the megaphone words."""
        if self.needs_deal or self.winner is not None or not self.in_hand[seat]:
            return []
        pending = self.pending
        if pending:
            kind, team, level = pending[-1]
            acts = self._answers(seat, kind, level) if seat & 1 == team else []
        elif seat != self.turn:
            acts = []
        # The fast path reads the legality predicates below inlined, on every turn (each
        # is one condition, and tests/test_properties.py checks that both agree):
        # ``must_sing_flor(seat)``
        elif self.flor_holder[seat] and not self.flor_sung[seat]:
            acts = [FLOR, MAZO]
        else:  # on its turn: its cards, the envido if open to it, the next truco call, mazo
            level = self.truco_level
            # ``why_envido_closed() is None and is_pie(seat)``
            envido_open = (
                not level
                and self.envido_stage == OPEN
                and not self.baza_index
                and not self.has_played[self.round_dealer]
                and (self.players == 2 or self.pica_now or self.is_pie(seat))
            )
            # ``why_no_raise(seat) is None``, from its table
            raise_column = _RAISE_COLUMN[level][self.truco_owner == seat & 1] if level else 0
            acts = self.cards[seat] + _TURN_CALLS[envido_open][raise_column]
        # ``why_no_megaphone() is None``
        if megaphone and self.players != 2 and not self.pica_now:
            return acts + _SAYS
        return acts

    def _answers(self, seat: Seat, kind: CallKind, level: int) -> list[Action]:
        if kind == P_TRUCO:
            if self.flor_holder[seat] and not self.flor_sung[seat]:  # must_sing_flor, inlined
                return [FLOR, MAZO]
            # "el envido está primero": ``why_envido_closed() is None``, inlined (a truco
            # call waits, so no truco is accepted yet)
            envido_primero = (
                level == 1
                and not self.truco_level
                and self.envido_stage == OPEN
                and not self.baza_index
                and not self.has_played[self.round_dealer]
            )
            return _TRUCO_ANSWERS[envido_primero][level][:]
        if kind == P_ENVIDO:
            if self.flor_holder[seat] and not self.flor_sung[seat]:  # must_sing_flor, inlined
                return [FLOR, MAZO]
            return [QUIERO, NO_QUIERO, *scoring.envido_raises(self.envido_calls), MAZO]
        if kind == P_FLOR:
            if not self.flor_holder[seat]:
                return []
            if self.rules.con_flor_quiero:
                return [CON_FLOR_ME_ACHICO, QUIERO, CONTRAFLOR, CONTRAFLOR_AL_RESTO, MAZO]
            return [CON_FLOR_ME_ACHICO, CONTRAFLOR, CONTRAFLOR_AL_RESTO, MAZO]
        if kind == P_CONTRAFLOR:
            return [QUIERO, NO_QUIERO, CONTRAFLOR_AL_RESTO, MAZO]
        return [QUIERO, NO_QUIERO, MAZO]  # P_AL_RESTO

    def is_legal(self, seat: Seat, action: Action) -> bool:
        return 0 <= seat < self.players and action in self.legal_actions(seat)

    # ---------------------------------------------------------------- legality
    # Each condition of the rules is written once, here. A ``why_*`` predicate returns
    # ``None`` when its condition holds and otherwise the :class:`Refusal` that says why
    # not (a code and its parameters): :meth:`legal_actions` only asks ``is None``,
    # :meth:`why_illegal` gives the refusal.

    def must_sing_flor(self, seat: Seat) -> bool:
        """A flor holder who has not sung it must sing it (or go to the mazo) before
        playing, calling or answering a truco or an envido."""
        return self.flor_holder[seat] and not self.flor_sung[seat]

    def why_envido_closed(self) -> Refusal | None:
        """Why no envido may be opened in this round any more, or ``None`` while it may:
        no envido or flor yet, the first baza, no truco accepted, and the round's dealer
        has not played. On its turn only a pie opens it (:meth:`is_pie`); "el envido
        está primero" opens it as the answer to a first truco call."""
        if self.envido_stage != OPEN:
            if self.flor_stage != OPEN:
                return _FLOR_WAS_SUNG
            return _ENVIDO_ONCE
        if self.baza_index:
            return _ENVIDO_FIRST_BAZA_ONLY
        if self.truco_level:
            return _ENVIDO_AFTER_TRUCO_ACCEPTED
        if self.has_played[self.round_dealer]:
            return _ENVIDO_DEALER_PLAYED
        return None

    def is_pie(self, seat: Seat) -> bool:
        """The last player of the seat's team in the playing order of this baza: in
        teams, only the pies open the envido on their turn."""
        if self.players == 2 or self.pica_now:
            return True
        team = seat & 1
        in_hand = self.in_hand
        for s in reversed(_FROM[self.players][self.baza_leader]):
            if in_hand[s] and s & 1 == team:
                return s == seat
        return False

    def why_no_raise(self, seat: Seat) -> Refusal | None:
        """Why ``seat`` may not call the next truco level on its turn, or ``None``
        (see :func:`_why_no_raise`)."""
        return _why_no_raise(self.truco_level, self.truco_owner == seat & 1)

    def why_no_megaphone(self) -> Refusal | None:
        """Why nobody may use the team megaphone now, or ``None``: only 2v2 and 3v3
        tables have it, and not in a pica-pica hand."""
        if self.players == 2:
            return _MEGAPHONE_TEAMS_ONLY
        if self.pica_now:
            return _MEGAPHONE_PICA_PICA
        return None

    def why_illegal(self, seat: Seat, action: Action) -> Refusal:
        """Why ``seat`` may not take ``action`` now: the rule it breaks, a
        :class:`~truco.refusals.Refusal` (``str()`` of it is the English sentence;
        clients word its code). Only meaningful once :meth:`legal_actions` has said no."""
        if self.winner is not None:
            return _MATCH_OVER
        if self.needs_deal:
            return _HAND_OVER
        if not self.in_hand[seat]:
            if self.pica_now:
                return _PICA_PICA_OTHER_PAIR
            return _GONE_TO_MAZO
        if is_say(action):
            return self.why_no_megaphone() or _NOT_NOW
        if self.pending:
            return self._why_not_answer(seat, action, self.pending[-1])
        return self._why_not_on_turn(seat, action)

    def _why_not_answer(self, seat: Seat, action: Action, call: Call) -> Refusal:
        kind, called, _ = call
        name = PENDING_NAMES[kind]
        if called != seat & 1:
            return Refusal.of("waiting_for_rivals", call=name)
        if kind in (P_TRUCO, P_ENVIDO) and self.must_sing_flor(seat):
            return _MUST_SING_FLOR
        if kind == P_FLOR and not self.flor_holder[seat]:
            return _FLOR_HOLDERS_ANSWER
        if action < 40:
            return Refusal.of("no_card_while_call", call=name)
        if action in _FLOR_WORDS and not self.rules.flor:
            return _SIN_FLOR
        if action in ENVIDO_CALLS:
            if self.flor_stage != OPEN:
                return _FLOR_WAS_SUNG
            if kind == P_ENVIDO:
                return _why_not_after(self.envido_calls, action)
            if self.envido_stage != OPEN:
                return _ENVIDO_ONCE
            return _ENVIDO_PRIMERO_ONLY
        return Refusal.of("not_an_answer", action=action_token(action), call=name)

    def _why_not_on_turn(self, seat: Seat, action: Action) -> Refusal:
        turn = self.turn
        if seat != turn:
            return _NOT_NOW if turn is None else Refusal.of("not_your_turn", player=turn)
        if self.must_sing_flor(seat):
            return _MUST_SING_FLOR
        if action < 40:
            return Refusal.of("card_not_held", card=card_name(action))
        if action in (QUIERO, NO_QUIERO):
            return _NO_CALL_TO_ANSWER
        if action in ENVIDO_CALLS:
            return self.why_envido_closed() or _ENVIDO_PIE_ONLY
        if action in TRUCO_CALLS:
            refusal = self.why_no_raise(seat)
            if refusal is not None:
                return refusal
            if self.truco_level == 0:
                return _TRUCO_FIRST
            return Refusal.of("next_truco_call", action=action_token(TRUCO + self.truco_level))
        if action in _FLOR_WORDS:
            if not self.rules.flor:
                return _SIN_FLOR
            if action == FLOR:
                return _FLOR_ALREADY_SUNG if self.flor_sung[seat] else _NO_FLOR_HELD
            return Refusal.of("no_flor_waiting", action=action_token(action))
        return _NOT_NOW

    # ------------------------------------------------------------------ acting
    def apply(self, seat: Seat, action: Action) -> None:
        """Apply an action of ``seat``; raise :class:`IllegalAction` (state unchanged)
        if the rules do not allow it now."""
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.players):
            raise IllegalAction(
                seat, action, Refusal.of("no_such_seat", given=repr(seat), players=self.players)
            )
        if isinstance(action, bool) or not (isinstance(action, int) and 0 <= action < NUM_ACTIONS):
            raise IllegalAction(
                seat, action, Refusal.of("no_such_action", given=repr(action), last=NUM_ACTIONS - 1)
            )
        if action not in self.legal_actions(seat):
            raise IllegalAction(seat, action, self.why_illegal(seat, action))
        self._apply(seat, action)

    def play(self, seat: Seat, token: str) -> None:
        """Apply an action written in the record notation (``"play 1e"``, ``"truco"``)."""
        self.apply(seat, parse_action(token))

    def deal(self, cards: Deal) -> None:
        """Deal the hand that is waiting for its cards (with ``manual_deal``)."""
        if not self.needs_deal or self.winner is not None:
            raise ValueError("no hand is waiting to be dealt")
        n = self.players
        size = self.rules.hand_size
        if len(cards) != n or any(len(h) != size for h in cards):
            raise ValueError(f"a deal gives {size} cards to each of the {n} seats")
        flat = [c for h in cards for c in h]
        if any(not (isinstance(c, int) and 0 <= c < 40) for c in flat) or len(set(flat)) != len(
            flat
        ):
            raise ValueError("a deal must give distinct cards of the deck")
        self._start_hand(tuple(tuple(h) for h in cards))

    def _reset_hand_state(self, cards: Deal) -> None:
        """A hand with these cards (``()``: none dealt yet) and nothing said or scored."""
        self.dealt = cards
        self.cards = [list(h) for h in cards] if cards else [[] for _ in range(self.players)]
        self.actions = []
        self.why_flor = []
        self.why_envido = []
        self.why_truco = []
        self.revealed = []
        self.notes = []
        self.showdowns = []
        self.rounds_to_play = []

    def _start_hand(self, cards: Deal) -> None:
        n = self.players
        if len(cards[0]) != self.rules.hand_size:  # the dealers deal three cards
            raise ValueError("a mini-truco table (hand_size 1 or 2) is dealt with manual_deal")
        self._reset_hand_state(cards)
        self.needs_deal = False
        if self.chico_over:
            self._score = [0, 0]
            self.chico_over = False
            self.pica_started = False
        if self.pica_now:
            mano = self.mano
            first = mano % 3
            pairs: list[tuple[Seat, ...]] = []
            for k in range(3):
                a = (first + k) % 3
                b = a + 3
                pairs.append((a, b) if (a - mano) % 6 < (b - mano) % 6 else (b, a))
            self.rounds_to_play = pairs[1:]
            self._reset_round_state(pairs[0])
        else:
            self._reset_round_state(_FROM[n][self.mano])

    def _reset_round_state(self, seats: tuple[Seat, ...]) -> None:
        n = self.players
        self.round_seats = seats
        self.in_hand = [False] * n
        for s in seats:
            self.in_hand[s] = True
        self.round_mano = seats[0] if seats else self.mano
        self.round_dealer = seats[-1] if seats else self.mano
        self.has_played = [False] * n
        self.baza_index = 0
        self.baza_leader = self.round_mano
        self.bazas = [[]]
        self.played_this_baza = [False] * n
        self.baza_results = []
        self.turn = self.round_mano
        self.truco_level = 0
        self.truco_owner = None
        self.pending = []
        self.envido_stage = OPEN
        self.envido_calls = []
        self.flor_stage = OPEN
        self.flor_team = None
        self.flor_sung = [False] * n
        if self.rules.flor and seats:
            cards = self.cards
            self.flor_holder = [s in seats and has_flor(cards[s]) for s in range(n)]
        else:
            self.flor_holder = [False] * n

    def _apply(self, seat: Seat, action: Action) -> None:
        self.actions.append((seat, action))
        if action < 40:
            self._play_card(seat, action)
        elif action >= SAY_FIRST:
            pass
        elif action == QUIERO:
            self._quiero(seat)
        elif action == NO_QUIERO:
            self._no_quiero(seat)
        elif action >= TRUCO:
            if action == MAZO:
                self._mazo(seat)
            else:
                self._truco_call(seat, action - TRUCO + 1)
        elif action <= FALTA_ENVIDO:
            self._envido_call(seat, action)
        elif action == FLOR:
            self._flor(seat)
        elif action == CON_FLOR_ME_ACHICO:
            self.flor_sung[seat] = True
            self._flor_uncontested()
            self._flor_settled()
        else:  # contraflor, contraflor al resto
            if self.flor_holder[seat]:
                self.flor_sung[seat] = True
            kind = P_CONTRAFLOR if action == CONTRAFLOR else P_AL_RESTO
            self.pending[-1] = _CALLS[kind][1 - (seat & 1)][0]

    push = _apply
    """Apply an action known to be legal (taken from :meth:`legal_actions`) without
    checking it again: the fast path for search and simulations."""

    # -- cards and bazas
    def _play_card(self, seat: Seat, card: Card) -> None:
        self.cards[seat].remove(card)
        self.has_played[seat] = True
        in_hand, played = self.in_hand, self.played_this_baza
        played[seat] = True
        self.bazas[-1].append((seat, card))
        for s in _ORDER[self.players][seat]:  # :meth:`_next_turn`, inlined: every card
            if in_hand[s] and not played[s]:
                self.turn = s
                return
        self.turn = None
        self._settle_baza()

    def _next_turn(self, seat: Seat) -> Seat | None:
        in_hand, played = self.in_hand, self.played_this_baza
        for s in _ORDER[self.players][seat]:
            if in_hand[s] and not played[s]:
                return s
        return None

    def _first_in_hand(self, seat: Seat) -> Seat:
        in_hand = self.in_hand
        for s in _FROM[self.players][seat]:
            if in_hand[s]:
                return s
        return seat

    def _settle_baza(self) -> None:
        best = -1
        winner = -1
        teams = 0
        for seat, card in self.bazas[-1]:
            strength = STRENGTH[card]
            if strength > best:
                best, winner, teams = strength, seat, 1 << (seat & 1)
            elif strength == best:
                teams |= 1 << (seat & 1)
        result = PARDA if teams == 3 else winner & 1
        results = self.baza_results
        results.append(result)
        self.notes.append((len(self.actions), "baza", (len(results) - 1, result, winner)))
        decided = round_winner(results, self.round_mano & 1)
        if decided is None and len(results) == self.rules.hand_size:  # mini-truco's last baza
            decided = short_round_winner(results, self.round_mano & 1)
        if decided is not None:
            self._end_round(decided, _TRUCO_VALUE[self.truco_level])
            return
        self.baza_index += 1
        self.baza_leader = self._first_in_hand(self.round_mano if result == PARDA else winner)
        self.turn = self.baza_leader
        self.bazas.append([])
        self.played_this_baza = [False] * self.players

    # -- calls
    def _truco_call(self, seat: Seat, level: int) -> None:
        pending = self.pending
        if pending and pending[-1].kind == P_TRUCO:  # a raise as an answer accepts the call below
            self.truco_level = level - 1
            self.truco_owner = seat & 1
            pending[-1] = _CALLS[P_TRUCO][1 - (seat & 1)][level]
        else:
            pending.append(_CALLS[P_TRUCO][1 - (seat & 1)][level])

    def _envido_call(self, seat: Seat, call: Action) -> None:
        pending = self.pending
        if pending and pending[-1].kind == P_ENVIDO:
            self.envido_calls.append(call)
            pending[-1] = _CALLS[P_ENVIDO][1 - (seat & 1)][0]
        else:
            self.envido_calls = [call]
            self.envido_stage = CALLED
            pending.append(_CALLS[P_ENVIDO][1 - (seat & 1)][0])

    def _flor(self, seat: Seat) -> None:
        self.flor_sung[seat] = True
        if self.flor_stage != OPEN:
            return  # a later flor adds to its team's total; the hand has one flor prize
        team = seat & 1
        self.flor_team = team
        if self.envido_stage == CALLED:  # singing flor annuls an envido not yet settled
            self.pending = [call for call in self.pending if call.kind != P_ENVIDO]
            self.envido_calls = []
        self.envido_stage = DONE
        rivals = _TEAM_SEATS[self.players][1 - team]
        if any(self.in_hand[s] and self.flor_holder[s] for s in rivals):
            self.flor_stage = CALLED
            self.pending.append(_CALLS[P_FLOR][1 - team][0])
        else:
            self.flor_stage = DONE
            self._flor_uncontested()
            self._resume()

    def _flor_uncontested(self) -> None:
        """The first flor stands without a comparison: its team scores the flor's prize."""
        team = self.flor_team
        assert team is not None
        self.why_flor.append((team, "flor", scoring.FLOR))
        self._show_flores(team, sung_only=True)

    def _flor_settled(self) -> None:
        self.flor_stage = DONE
        self.pending.pop()
        self._resume()

    def _compare_flores(self, stake: int) -> None:
        totals = [0, 0]
        in_hand, holder, cards = self.in_hand, self.flor_holder, self.dealt
        for s in range(self.players):
            if in_hand[s] and holder[s]:
                totals[s & 1] += flor_value(cards[s])
        if totals[0] == totals[1]:
            winner = self.round_mano & 1
        else:
            winner = 0 if totals[0] > totals[1] else 1
        self.why_flor.append((winner, "flor", stake))
        self.notes.append((len(self.actions), "flor", (winner, stake)))
        self._show_flores(winner, sung_only=False)
        self._flor_settled()

    def _show_flores(self, team: Team, sung_only: bool) -> None:
        """The flores a team collects with are shown when the hand closes."""
        in_hand, holder, sung = self.in_hand, self.flor_holder, self.flor_sung
        for s in _TEAM_SEATS[self.players][team]:
            if in_hand[s] and holder[s] and (sung[s] or not sung_only):
                self.revealed.append((s, self.dealt[s]))

    def _showdown(self) -> Seat:
        """Declare tantos in order from the mano; return the winning seat."""
        in_hand, cards = self.in_hand, self.dealt
        best = [-1, -1]  # best declared tanto of each team
        best_seat = -1
        words = []
        for s in _FROM[self.players][self.round_mano]:
            if not in_hand[s]:
                continue
            value = hand_tanto(cards[s]) if len(cards[s]) == 3 else tanto(cards[s])
            team = s & 1
            if value > best[1 - team] and value > best[team]:
                words.append(Declaration(s, value))
                best[team] = value
                best_seat = s  # a declaration beats everything declared before it
            else:
                words.append(Declaration(s, None))
        self.showdowns.append(tuple(words))
        self.revealed.append((best_seat, tanto_cards(cards[best_seat])))
        return best_seat

    def _quiero(self, seat: Seat) -> None:
        kind, _, level = self.pending[-1]
        if kind == P_TRUCO:
            self.truco_level = level
            self.truco_owner = seat & 1
            self.pending.pop()
            self._resume()
        elif kind == P_ENVIDO:
            best_seat = self._showdown()
            winner = best_seat & 1
            points = scoring.envido_accepted(
                self.envido_calls, winner, self._score, self.target, self.rules.falta_envido
            )
            self.notes.append((len(self.actions), "envido", (best_seat, points)))
            self.why_envido.append((winner, "envido", points))
            self.envido_stage = DONE
            self.pending.pop()
            self._resume()
        else:
            if kind == P_FLOR:  # con flor quiero (variant)
                self.flor_sung[seat] = True
            self._compare_flores(scoring.flor_accepted(kind, self._score, self.target))

    def _no_quiero(self, seat: Seat) -> None:
        kind, _, level = self.pending[-1]
        caller = 1 - (seat & 1)
        if kind == P_TRUCO:
            self.pending.pop()
            self._end_round(caller, _TRUCO_REFUSED[level])
        elif kind == P_ENVIDO:
            self.why_envido.append((caller, "envido", scoring.envido_refused(self.envido_calls)))
            self.envido_stage = DONE
            self.pending.pop()
            self._resume()
        else:
            refused = scoring.flor_refused(kind, self.rules.con_flor_quiero)
            self.why_flor.append((caller, "flor", refused))
            self._flor_settled()

    def _mazo(self, seat: Seat) -> None:
        self.in_hand[seat] = False
        team = seat & 1
        if not any(self.in_hand[s] for s in _TEAM_SEATS[self.players][team]):
            self._team_left(team)
            return
        pending = self.pending
        if (
            pending
            and pending[-1].kind == P_FLOR
            and pending[-1].team == team
            and not any(
                self.in_hand[s] and self.flor_holder[s] for s in _TEAM_SEATS[self.players][team]
            )
        ):  # nobody left to answer the flor: it stands uncontested
            self._flor_uncontested()
            self.flor_stage = DONE
            pending.pop()
        if seat == self.turn:
            self.turn = self._next_turn(seat)
        self._resume()

    def _team_left(self, team: Team) -> None:
        rival = 1 - team
        truco_points = scoring.truco_value(self.truco_level)
        for kind, called, level in reversed(self.pending):
            if called != team:
                continue  # a call of the leaving team lapses
            if kind == P_TRUCO:
                truco_points = scoring.truco_refused(level)
            elif kind == P_ENVIDO:
                self.why_envido.append((rival, "envido", scoring.envido_refused(self.envido_calls)))
                self.envido_stage = DONE
            else:  # a flor call of any kind counts as refused
                refused = scoring.flor_refused(kind, self.rules.con_flor_quiero)
                self.why_flor.append((rival, "flor", refused))
        self.pending.clear()
        self._end_round(rival, truco_points)

    def _resume(self) -> None:
        """After a call is settled: a baza whose cards are all down is settled now."""
        if not self.pending and self.turn is None:
            self._settle_baza()

    # -- rounds, hands, chicos
    def _end_round(self, team: Team, points: int) -> None:
        self.why_truco.append((team, "truco", points))
        self.notes.append((len(self.actions), "round", (team, points)))
        if self.rounds_to_play:
            self._reset_round_state(self.rounds_to_play.pop(0))
            return
        self._close_hand()

    def _close_hand(self) -> None:
        why = tuple(self.why_flor + self.why_envido + self.why_truco)
        points = [0, 0]
        for team, _, pts in why:
            points[team] += pts
        score = self._score
        target = self.target
        chico_winner: Team | None = None
        for team, _, pts in why:
            score[team] += pts
            if score[team] >= target:
                score[team] = target
                chico_winner = team
                break
        if chico_winner is not None:
            self._chicos[chico_winner] += 1
            self.chico_over = True
            if self._chicos[chico_winner] >= self.rules.chicos_to_win:
                self.winner = chico_winner
        was_pica = self.pica_now
        self.history.append(
            HandResult(
                index=self.hand_index,
                mano=self.mano,
                deal=self.dealt,
                actions=tuple(self.actions),
                why=why,
                points=(points[0], points[1]),
                score=(score[0], score[1]),
                chicos=(self._chicos[0], self._chicos[1]),
                pica_pica=was_pica,
                revealed=tuple(self.revealed),
                showdowns=tuple(self.showdowns),
                notes=tuple(self.notes),
            )
        )
        # pica-pica: the hand after a team first reaches 5, then every other hand below 25
        self.pica_now = False
        if self.rules.pica_pica and not self.chico_over:
            if self.pica_started:
                self.pica_now = not was_pica and max(score) < 25
            elif max(score) >= 5:
                self.pica_started = True
                self.pica_now = max(score) < 25
        self.needs_deal = True
        if self.winner is not None:
            return
        self.hand_index += 1
        self.mano = (self.first_mano + self.hand_index) % self.players
        if self.dealer is not None:
            self._start_hand(self.dealer.deal(self.players, self.hand_index))

    # ------------------------------------------------------------------ copies
    def clone(self) -> Game:
        """An independent copy. It shares the immutable rules and the dealer, whose
        deal for a given hand does not depend on which game asks first."""
        new = Game.__new__(Game)
        for name in _SCALARS:
            setattr(new, name, getattr(self, name))
        new._score = self._score[:]
        new._chicos = self._chicos[:]
        new.history = self.history[:]
        new.cards = [h[:] for h in self.cards]
        new.actions = self.actions[:]
        new.rounds_to_play = self.rounds_to_play[:]
        new.in_hand = self.in_hand[:]
        new.has_played = self.has_played[:]
        new.bazas = [b[:] for b in self.bazas]
        new.played_this_baza = self.played_this_baza[:]
        new.baza_results = self.baza_results[:]
        new.pending = self.pending[:]
        new.envido_calls = self.envido_calls[:]
        new.showdowns = self.showdowns[:]
        new.flor_holder = self.flor_holder[:]
        new.flor_sung = self.flor_sung[:]
        new.why_flor = self.why_flor[:]
        new.why_envido = self.why_envido[:]
        new.why_truco = self.why_truco[:]
        new.revealed = self.revealed[:]
        new.notes = self.notes[:]
        return new

    def __copy__(self) -> Game:
        return self.clone()


_SCALARS = (
    "rules", "players", "target", "dealer", "seed", "first_mano", "winner", "hand_index", "mano",
    "chico_over", "pica_started", "pica_now", "dealt", "round_seats", "needs_deal", "round_mano",
    "round_dealer", "baza_index", "baza_leader", "turn", "truco_level", "truco_owner",
    "envido_stage", "flor_stage", "flor_team",
)  # fmt: skip
