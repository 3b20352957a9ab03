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
>>> game.play(0, "play 1e"); game.play(1, "play 2o"); game.play(0, "play 3c"); game.play(1, "play 5c")
>>> game.last_hand.why, game.score
(((1, 'envido', 2), (0, 'truco', 1)), (1, 2))

Cards and actions are small integers (see :mod:`truco.cards`, :mod:`truco.actions`);
the state is a handful of flat lists, so :meth:`Game.clone` is a shallow copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from . import scoring
from .actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO,
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
    action_token,
    parse_action,
)
from .cards import STRENGTH, flor_value, hand_tanto, has_flor, tanto_cards
from .deal import Deal, Dealer, SecureDealer, SeededDealer
from .rules import Rules

PARDA = -1

# Kinds of pending call: (kind, team that must answer, truco level)
P_TRUCO, P_ENVIDO, P_FLOR, P_CONTRAFLOR, P_AL_RESTO = range(5)
PENDING_NAMES = ("truco", "envido", "flor", "contraflor", "contraflor-al-resto")

# envido_state / flor_state
OPEN, CALLED, DONE = 0, 1, 2

_ENVIDO_CALLS = [ENVIDO, REAL_ENVIDO, FALTA_ENVIDO]
_SAYS = list(SAY_ACTIONS)

# _ORDER[n][s]: the other seats after s, in playing order
_ORDER = {n: tuple(tuple((s + k) % n for k in range(1, n)) for s in range(n)) for n in (2, 4, 6)}
# _FROM[n][s]: all seats in playing order starting at s
_FROM = {n: tuple(tuple((s + k) % n for k in range(n)) for s in range(n)) for n in (2, 4, 6)}
_TEAM_SEATS = {n: (tuple(range(0, n, 2)), tuple(range(1, n, 2))) for n in (2, 4, 6)}
_ALONE = tuple((s,) for s in range(6))

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


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the state is unchanged."""

    def __init__(self, seat: int, action: int | str, reason: str) -> None:
        if isinstance(action, str):
            token = action
        elif isinstance(action, int) and not isinstance(action, bool) and 0 <= action < NUM_ACTIONS:
            token = action_token(action)
        else:
            token = f"action {action!r}"
        super().__init__(f"seat {seat} may not {token!r}: {reason}")
        self.seat = seat
        self.token = token
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Declaration:
    """One seat's word in the envido showdown: its tanto, or ``None`` for "son buenas"."""

    seat: int
    tanto: int | None


class HandResult(NamedTuple):
    """A closed hand: what each team scored and why, and the match after it."""

    index: int  # type: ignore[assignment]  # the hand number; shadows tuple.index on purpose
    mano: int
    deal: Deal
    actions: tuple[tuple[int, int], ...]
    why: tuple[tuple[int, str, int], ...]
    points: tuple[int, int]
    score: tuple[int, int]
    chicos: tuple[int, int]
    pica_pica: bool
    revealed: tuple[tuple[int, tuple[int, ...]], ...]
    showdowns: tuple[tuple[Declaration, ...], ...] = ()
    notes: tuple[tuple[int, str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchPosition:
    """Where a match stands at the start of a hand: all that the next hands depend
    on besides the cards. Public: every seat knows it."""

    rules: Rules
    first_mano: int
    hand_index: int
    score: tuple[int, int]
    chicos: tuple[int, int]
    pica_started: bool = False
    pica_now: bool = False

    @property
    def mano(self) -> int:
        return (self.first_mano + self.hand_index) % self.rules.players


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a match: the winning team and the chicos."""

    winner: int
    chicos: tuple[int, int]


class Game:
    """A whole match of truco under one :class:`~truco.rules.Rules`.

    By default hands are dealt by a cryptographically secure shuffle; pass ``seed`` for
    a reproducible match, ``dealer`` for your own source, or ``manual_deal=True`` to
    give each hand's cards with :meth:`deal` (replays, tests).
    """

    __slots__ = (
        "_chicos",
        "_score",
        "actions",
        "baza",
        "baza_played",
        "cards",
        "chain",
        "chico_over",
        "dealer",
        "dealt",
        "envido_state",
        "first_mano",
        "flor_holder",
        "flor_state",
        "flor_sung",
        "flor_team",
        "hand_index",
        "history",
        "in_hand",
        "leader",
        "mano",
        "n",
        "needs_deal",
        "notes",
        "participants",
        "pending",
        "pica_now",
        "pica_started",
        "played_any",
        "rdealer",
        "results",
        "reveal",
        "rmano",
        "rounds",
        "rules",
        "seed",
        "showdowns",
        "table",
        "target",
        "truco_level",
        "truco_owner",
        "turn",
        "why_envido",
        "why_flor",
        "why_truco",
        "winner",
    )  # fmt: skip

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        first_mano: int = 0,
        seed: int | str | None = None,
        dealer: Dealer | None = None,
        manual_deal: bool = False,
    ) -> None:
        self.rules = rules = rules or Rules()
        self.n = rules.players
        if not isinstance(first_mano, int) or not 0 <= first_mano < self.n:
            raise ValueError(f"first_mano must be a seat from 0 to {self.n - 1}")
        self.target = rules.target
        self.seed = seed
        if manual_deal:
            self.dealer: Dealer | None = None
        elif dealer is not None:
            self.dealer = dealer
        elif seed is not None:
            self.dealer = SeededDealer(seed)
        else:
            self.dealer = SecureDealer()
        self.first_mano = first_mano
        self._score = [0, 0]
        self._chicos = [0, 0]
        self.winner = -1
        self.hand_index = 0
        self.mano = first_mano
        self.chico_over = False
        self.history: list[HandResult] = []
        self.pica_started = False
        self.pica_now = False
        self.needs_deal = True
        self.cards: list[list[int]] = [[] for _ in range(self.n)]
        self.dealt: Deal = ()
        self.actions: list[tuple[int, int]] = []
        self.why_flor: list[tuple[int, str, int]] = []
        self.why_envido: list[tuple[int, str, int]] = []
        self.why_truco: list[tuple[int, str, int]] = []
        self.reveal: list[tuple[int, tuple[int, ...]]] = []
        # What happened besides the actions, each after how many actions of the hand:
        # ("baza", (number, team or PARDA, best seat)), ("envido", (winning seat, points)),
        # ("flor", (team, points)), ("round", (team, truco points))
        self.notes: list[tuple[int, str, tuple[int, ...]]] = []
        self.showdowns: list[tuple[Declaration, ...]] = []
        self.rounds: list[tuple[int, ...]] = []
        self._reset_round_state(())
        if self.dealer is not None:
            self._start_hand(self.dealer.deal(self.n, 0))

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
            game._start_hand(game.dealer.deal(game.n, game.hand_index))
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
        return self.winner >= 0

    @property
    def outcome(self) -> Outcome | None:
        """The end of the match as data, or ``None`` while it goes on."""
        return Outcome(self.winner, self.chicos) if self.winner >= 0 else None

    @property
    def dealer_seat(self) -> int:
        """The seat before the hand's mano."""
        return (self.mano - 1) % self.n

    @property
    def last_hand(self) -> HandResult | None:
        return self.history[-1] if self.history else None

    def hand_cards(self, seat: int) -> tuple[int, ...]:
        """The cards a seat still holds (engine-side; seats see them through views)."""
        return tuple(self.cards[seat])

    def on_turn(self, seat: int) -> bool:
        """It is ``seat``'s turn to play a card and no call waits for an answer."""
        return not self.needs_deal and self.winner < 0 and not self.pending and self.turn == seat

    def holds(self, seat: int, card: int) -> bool:
        """``seat`` is in the hand and still holds ``card`` (engine-side knowledge)."""
        return self.in_hand[seat] and card in self.cards[seat]

    def deal_from(self, dealer: Dealer) -> None:
        """Deal the coming hands with ``dealer`` (and the waiting hand at once): how a
        match rebuilt from its record goes on, e.g. with a :class:`SecureDealer`."""
        self.dealer = dealer
        if self.needs_deal and self.winner < 0:
            self._start_hand(dealer.deal(self.n, self.hand_index))

    def actors(self) -> tuple[int, ...]:
        """The seats that may act now (megaphone words aside): the turn's seat, or
        the players who may answer a pending call. Empty between hands and at the end."""
        if self.needs_deal or self.winner >= 0:
            return ()
        pending = self.pending
        if not pending:
            return _ALONE[self.turn]
        kind, team, _ = pending[-1]
        in_hand = self.in_hand
        if kind == P_FLOR:
            holder = self.flor_holder
            return tuple(s for s in _TEAM_SEATS[self.n][team] if in_hand[s] and holder[s])
        return tuple(s for s in _TEAM_SEATS[self.n][team] if in_hand[s])

    def legal_actions(self, seat: int, megaphone: bool = True) -> list[int]:
        """The actions ``seat`` may take now, cards first, then calls, answers, ``mazo``
        and (with ``megaphone``, on 2v2/3v3 tables) the megaphone words."""
        if self.needs_deal or self.winner >= 0 or not self.in_hand[seat]:
            return []
        pending = self.pending
        if pending:
            kind, team, level = pending[-1]
            acts = self._answers(seat, kind, level) if seat & 1 == team else []
        elif seat == self.turn:
            acts = self._turn_actions(seat)
        else:
            acts = []
        if megaphone and self.n > 2 and not self.pica_now:
            return acts + _SAYS
        return acts

    def _flor_obliged(self, seat: int) -> bool:
        """A flor holder who has not sung it must sing it before anything else."""
        return self.flor_holder[seat] and not self.flor_sung[seat]

    def _turn_actions(self, seat: int) -> list[int]:
        if self.flor_holder[seat] and not self.flor_sung[seat]:
            return [FLOR, MAZO]
        level = self.truco_level
        envido_open = (
            self.envido_state == OPEN
            and self.baza == 0
            and level == 0
            and not self.played_any[self.rdealer]
            and self._is_pie(seat)
        )
        if level and self.truco_owner != seat & 1:
            level = 3  # only the team that accepted the last call may raise
        return self.cards[seat] + _TURN_CALLS[envido_open][level]

    def _answers(self, seat: int, kind: int, level: int) -> list[int]:
        if kind == P_TRUCO:
            if self.flor_holder[seat] and not self.flor_sung[seat]:
                return [FLOR, MAZO]
            envido_primero = (
                level == 1
                and self.envido_state == OPEN
                and self.baza == 0
                and not self.played_any[self.rdealer]
            )
            return _TRUCO_ANSWERS[envido_primero][level][:]
        if kind == P_ENVIDO:
            if self.flor_holder[seat] and not self.flor_sung[seat]:
                return [FLOR, MAZO]
            return [QUIERO, NO_QUIERO, *scoring.envido_raises(self.chain), MAZO]
        if kind == P_FLOR:
            if not self.flor_holder[seat]:
                return []
            if self.rules.con_flor_quiero:
                return [CON_FLOR_ME_ACHICO, QUIERO, CONTRAFLOR, CONTRAFLOR_AL_RESTO, MAZO]
            return [CON_FLOR_ME_ACHICO, CONTRAFLOR, CONTRAFLOR_AL_RESTO, MAZO]
        if kind == P_CONTRAFLOR:
            return [QUIERO, NO_QUIERO, CONTRAFLOR_AL_RESTO, MAZO]
        return [QUIERO, NO_QUIERO, MAZO]  # P_AL_RESTO

    def _is_pie(self, seat: int) -> bool:
        """The last player of the seat's team in the playing order of this baza."""
        if self.n == 2 or self.pica_now:
            return True
        team = seat & 1
        in_hand = self.in_hand
        for s in reversed(_FROM[self.n][self.leader]):
            if in_hand[s] and s & 1 == team:
                return s == seat
        return False

    def is_legal(self, seat: int, action: int) -> bool:
        return 0 <= seat < self.n and action in self.legal_actions(seat)

    # ------------------------------------------------------------------ acting
    def apply(self, seat: int, action: int) -> None:
        """Apply an action of ``seat``; raise :class:`IllegalAction` (state unchanged)
        if the rules do not allow it now."""
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.n):
            raise IllegalAction(
                seat, action, f"there is no seat {seat!r} at a {self.n}-player table"
            )
        if isinstance(action, bool) or not (isinstance(action, int) and 0 <= action < NUM_ACTIONS):
            raise IllegalAction(
                seat, action, f"there is no action {action!r} (0 to {NUM_ACTIONS - 1})"
            )
        if action not in self.legal_actions(seat):
            from .explain import why_illegal

            raise IllegalAction(seat, action, why_illegal(self, seat, action))
        self._apply(seat, action)

    def play(self, seat: int, token: str) -> None:
        """Apply an action written in the record notation (``"play 1e"``, ``"truco"``)."""
        self.apply(seat, parse_action(token))

    def deal(self, cards: Deal) -> None:
        """Deal the hand that is waiting for its cards (with ``manual_deal``)."""
        if not self.needs_deal or self.winner >= 0:
            raise ValueError("no hand is waiting to be dealt")
        n = self.n
        if len(cards) != n or any(len(h) != 3 for h in cards):
            raise ValueError(f"a deal gives 3 cards to each of the {n} seats")
        flat = [c for h in cards for c in h]
        if any(not (isinstance(c, int) and 0 <= c < 40) for c in flat) or len(set(flat)) != len(
            flat
        ):
            raise ValueError("a deal must give distinct cards of the deck")
        self._start_hand(tuple(tuple(h) for h in cards))

    def _start_hand(self, cards: Deal) -> None:
        n = self.n
        self.dealt = cards
        self.cards = [list(h) for h in cards]
        self.actions = []
        self.why_flor = []
        self.why_envido = []
        self.why_truco = []
        self.reveal = []
        self.notes = []
        self.showdowns = []
        self.needs_deal = False
        if self.chico_over:
            self._score = [0, 0]
            self.chico_over = False
            self.pica_started = False
        if self.pica_now:
            mano = self.mano
            first = mano % 3
            pairs: list[tuple[int, ...]] = []
            for k in range(3):
                a = (first + k) % 3
                b = a + 3
                pairs.append((a, b) if (a - mano) % 6 < (b - mano) % 6 else (b, a))
            self.rounds = pairs[1:]
            self._reset_round_state(pairs[0])
        else:
            self.rounds = []
            self._reset_round_state(_FROM[n][self.mano])

    def _reset_round_state(self, seats: tuple[int, ...]) -> None:
        n = self.n
        self.participants = seats
        self.in_hand = [False] * n
        for s in seats:
            self.in_hand[s] = True
        self.rmano = seats[0] if seats else self.mano
        self.rdealer = seats[-1] if seats else self.mano
        self.played_any = [False] * n
        self.baza = 0
        self.leader = self.rmano
        self.table: list[list[tuple[int, int]]] = [[]]
        self.baza_played = [False] * n
        self.results: list[int] = []
        self.turn = self.rmano
        self.truco_level = 0
        self.truco_owner = -1
        self.pending: list[tuple[int, int, int]] = []
        self.envido_state = OPEN
        self.chain: list[int] = []
        self.flor_state = OPEN
        self.flor_team = -1
        self.flor_sung = [False] * n
        if self.rules.flor and seats:
            cards = self.cards
            self.flor_holder = [s in seats and has_flor(cards[s]) for s in range(n)]
        else:
            self.flor_holder = [False] * n

    def _apply(self, seat: int, action: int) -> None:
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
            self.why_flor.append((self.flor_team, "flor", 3))
            self._show_flores(self.flor_team, sung_only=True)
            self._flor_settled()
        else:  # contraflor, contraflor al resto
            if self.flor_holder[seat]:
                self.flor_sung[seat] = True
            kind = P_CONTRAFLOR if action == CONTRAFLOR else P_AL_RESTO
            self.pending[-1] = (kind, 1 - (seat & 1), 0)

    push = _apply
    """Apply an action known to be legal (taken from :meth:`legal_actions`) without
    checking it again: the fast path for search and simulations."""

    # -- cards and bazas
    def _play_card(self, seat: int, card: int) -> None:
        self.cards[seat].remove(card)
        self.played_any[seat] = True
        self.baza_played[seat] = True
        self.table[-1].append((seat, card))
        self.turn = self._next_turn(seat)
        if self.turn < 0:
            self._settle_baza()

    def _next_turn(self, seat: int) -> int:
        in_hand, played = self.in_hand, self.baza_played
        for s in _ORDER[self.n][seat]:
            if in_hand[s] and not played[s]:
                return s
        return -1

    def _first_in_hand(self, seat: int) -> int:
        in_hand = self.in_hand
        for s in _FROM[self.n][seat]:
            if in_hand[s]:
                return s
        return seat

    def _settle_baza(self) -> None:
        best = -1
        winner = -1
        teams = 0
        for seat, card in self.table[-1]:
            strength = STRENGTH[card]
            if strength > best:
                best, winner, teams = strength, seat, 1 << (seat & 1)
            elif strength == best:
                teams |= 1 << (seat & 1)
        result = PARDA if teams == 3 else winner & 1
        results = self.results
        results.append(result)
        self.notes.append((len(self.actions), "baza", (len(results) - 1, result, winner)))
        decided = -1
        if len(results) == 2:
            first, second = results
            if first == PARDA:
                decided = second
            elif second == PARDA or second == first:
                decided = first
        elif len(results) == 3:
            first, second, third = results
            if third != PARDA:
                decided = third
            elif first != PARDA:
                decided = first
            else:
                decided = self.rmano & 1
        if decided >= 0:
            self._end_round(decided, scoring.truco_value(self.truco_level))
            return
        self.baza += 1
        self.leader = self._first_in_hand(self.rmano if result == PARDA else winner)
        self.turn = self.leader
        self.table.append([])
        self.baza_played = [False] * self.n

    # -- calls
    def _truco_call(self, seat: int, level: int) -> None:
        pending = self.pending
        if pending and pending[-1][0] == P_TRUCO:  # a raise as an answer accepts the call below
            self.truco_level = level - 1
            self.truco_owner = seat & 1
            pending[-1] = (P_TRUCO, 1 - (seat & 1), level)
        else:
            pending.append((P_TRUCO, 1 - (seat & 1), level))

    def _envido_call(self, seat: int, call: int) -> None:
        pending = self.pending
        if pending and pending[-1][0] == P_ENVIDO:
            self.chain.append(call)
            pending[-1] = (P_ENVIDO, 1 - (seat & 1), 0)
        else:
            self.chain = [call]
            self.envido_state = CALLED
            pending.append((P_ENVIDO, 1 - (seat & 1), 0))

    def _flor(self, seat: int) -> None:
        self.flor_sung[seat] = True
        if self.flor_state != OPEN:
            return  # a later flor adds to its team's total; the hand has one flor prize
        team = seat & 1
        self.flor_team = team
        if self.envido_state == CALLED:  # singing flor annuls an envido not yet settled
            self.pending = [p for p in self.pending if p[0] != P_ENVIDO]
            self.chain = []
        self.envido_state = DONE
        rivals = _TEAM_SEATS[self.n][1 - team]
        if any(self.in_hand[s] and self.flor_holder[s] for s in rivals):
            self.flor_state = CALLED
            self.pending.append((P_FLOR, 1 - team, 0))
        else:
            self.flor_state = DONE
            self.why_flor.append((team, "flor", 3))
            self._show_flores(team, sung_only=True)
            self._resume()

    def _flor_settled(self) -> None:
        self.flor_state = DONE
        self.pending.pop()
        self._resume()

    def _compare_flores(self, stake: int) -> None:
        totals = [0, 0]
        in_hand, holder, cards = self.in_hand, self.flor_holder, self.dealt
        for s in range(self.n):
            if in_hand[s] and holder[s]:
                totals[s & 1] += flor_value(cards[s])
        if totals[0] == totals[1]:
            winner = self.rmano & 1
        else:
            winner = 0 if totals[0] > totals[1] else 1
        self.why_flor.append((winner, "flor", stake))
        self.notes.append((len(self.actions), "flor", (winner, stake)))
        self._show_flores(winner, sung_only=False)
        self._flor_settled()

    def _show_flores(self, team: int, sung_only: bool) -> None:
        """The flores a team collects with are shown when the hand closes."""
        in_hand, holder, sung = self.in_hand, self.flor_holder, self.flor_sung
        for s in _TEAM_SEATS[self.n][team]:
            if in_hand[s] and holder[s] and (sung[s] or not sung_only):
                self.reveal.append((s, self.dealt[s]))

    def _showdown(self) -> int:
        """Declare tantos in order from the mano; return the winning seat."""
        in_hand, cards = self.in_hand, self.dealt
        best = [-1, -1]  # best declared tanto of each team
        best_seat = -1
        words = []
        for s in _FROM[self.n][self.rmano]:
            if not in_hand[s]:
                continue
            value = hand_tanto(cards[s])
            team = s & 1
            if value > best[1 - team] and value > best[team]:
                words.append(Declaration(s, value))
                best[team] = value
                best_seat = s  # a declaration beats everything declared before it
            else:
                words.append(Declaration(s, None))
        self.showdowns.append(tuple(words))
        self.reveal.append((best_seat, tanto_cards(cards[best_seat])))
        return best_seat

    def _quiero(self, seat: int) -> None:
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
                self.chain, winner, self._score, self.target, self.rules.falta_envido
            )
            self.notes.append((len(self.actions), "envido", (best_seat, points)))
            self.why_envido.append((winner, "envido", points))
            self.envido_state = DONE
            self.pending.pop()
            self._resume()
        else:
            if kind == P_FLOR:  # con flor quiero (variant)
                self.flor_sung[seat] = True
                stake = 4
            elif kind == P_CONTRAFLOR:
                stake = 6
            else:
                stake = scoring.al_resto(self._score, self.target)
            self._compare_flores(stake)

    def _no_quiero(self, seat: int) -> None:
        kind, _, level = self.pending[-1]
        caller = 1 - (seat & 1)
        if kind == P_TRUCO:
            self.pending.pop()
            self._end_round(caller, level)
        elif kind == P_ENVIDO:
            self.why_envido.append((caller, "envido", scoring.envido_refused(self.chain)))
            self.envido_state = DONE
            self.pending.pop()
            self._resume()
        else:
            refused = 6 if kind == P_AL_RESTO else (4 if self.rules.con_flor_quiero else 3)
            self.why_flor.append((caller, "flor", refused))
            self._flor_settled()

    def _mazo(self, seat: int) -> None:
        self.in_hand[seat] = False
        team = seat & 1
        if not any(self.in_hand[s] for s in _TEAM_SEATS[self.n][team]):
            self._team_left(team)
            return
        pending = self.pending
        if (
            pending
            and pending[-1][0] == P_FLOR
            and pending[-1][1] == team
            and not any(self.in_hand[s] and self.flor_holder[s] for s in _TEAM_SEATS[self.n][team])
        ):  # nobody left to answer the flor: it stands uncontested
            self.why_flor.append((self.flor_team, "flor", 3))
            self._show_flores(self.flor_team, sung_only=True)
            self.flor_state = DONE
            pending.pop()
        if seat == self.turn:
            self.turn = self._next_turn(seat)
        self._resume()

    def _team_left(self, team: int) -> None:
        rival = 1 - team
        truco_points = scoring.truco_value(self.truco_level)
        for kind, called, level in reversed(self.pending):
            if called != team:
                continue  # a call of the leaving team lapses
            if kind == P_TRUCO:
                truco_points = level
            elif kind == P_ENVIDO:
                self.why_envido.append((rival, "envido", scoring.envido_refused(self.chain)))
                self.envido_state = DONE
            elif kind == P_FLOR:
                self.why_flor.append((rival, "flor", 3))
            elif kind == P_CONTRAFLOR:
                self.why_flor.append((rival, "flor", 4 if self.rules.con_flor_quiero else 3))
            else:
                self.why_flor.append((rival, "flor", 6))
        self.pending.clear()
        self._end_round(rival, truco_points)

    def _resume(self) -> None:
        """After a call is settled: a baza whose cards are all down is settled now."""
        if not self.pending and self.turn < 0:
            self._settle_baza()

    # -- rounds, hands, chicos
    def _end_round(self, team: int, points: int) -> None:
        self.why_truco.append((team, "truco", points))
        self.notes.append((len(self.actions), "round", (team, points)))
        if self.rounds:
            self._reset_round_state(self.rounds.pop(0))
            return
        self._close_hand()

    def _close_hand(self) -> None:
        why = tuple(self.why_flor + self.why_envido + self.why_truco)
        points = [0, 0]
        for team, _, pts in why:
            points[team] += pts
        score = self._score
        target = self.target
        chico_winner = -1
        for team, _, pts in why:
            score[team] += pts
            if score[team] >= target:
                score[team] = target
                chico_winner = team
                break
        if chico_winner >= 0:
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
                revealed=tuple(self.reveal),
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
        if self.winner >= 0:
            return
        self.hand_index += 1
        self.mano = (self.first_mano + self.hand_index) % self.n
        if self.dealer is not None:
            self._start_hand(self.dealer.deal(self.n, self.hand_index))

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
        new.rounds = self.rounds[:]
        new.in_hand = self.in_hand[:]
        new.played_any = self.played_any[:]
        new.table = [b[:] for b in self.table]
        new.baza_played = self.baza_played[:]
        new.results = self.results[:]
        new.pending = self.pending[:]
        new.chain = self.chain[:]
        new.showdowns = self.showdowns[:]
        new.flor_holder = self.flor_holder[:]
        new.flor_sung = self.flor_sung[:]
        new.why_flor = self.why_flor[:]
        new.why_envido = self.why_envido[:]
        new.why_truco = self.why_truco[:]
        new.reveal = self.reveal[:]
        new.notes = self.notes[:]
        return new

    def __copy__(self) -> Game:
        return self.clone()


_SCALARS = (
    "rules", "n", "target", "dealer", "seed", "first_mano", "winner", "hand_index", "mano",
    "chico_over", "pica_started", "pica_now", "dealt", "participants", "needs_deal", "rmano", "rdealer",
    "baza", "leader", "turn", "truco_level", "truco_owner", "envido_state", "flor_state",
    "flor_team",
)  # fmt: skip
