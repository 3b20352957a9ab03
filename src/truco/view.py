"""What one seat (or a spectator) is allowed to see.

A :class:`SeatView` is built from the game for one seat and simply does not contain
another seat's unrevealed cards, nor the rival team's megaphone words: bots, clients
and the terminal game get this object, so they cannot peek by mistake.

>>> from truco import Game, Rules
>>> game = Game(Rules(players=4), seed=3)
>>> v = seat_view(game, 1)
>>> len(v.hand), v.seat, v.team
(3, 1, 1)
>>> spectator = seat_view(game, None)
>>> spectator.hand
()
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import action_token, is_say
from .cards import card_name
from .game import Declaration, Game, HandResult, MatchPosition
from .rules import Rules
from .vocabulary import CallKind


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call waiting for its answer: ``kind`` one of truco, envido, flor, contraflor,
    contraflor-al-resto; ``team`` the team that must answer; ``level`` the truco level
    (1 truco, 2 retruco, 3 vale cuatro) or the envido chain."""

    kind: str
    team: int
    level: int
    chain: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PublicHand:
    """A closed hand as everyone may see it: the points and the cards shown."""

    index: int
    mano: int
    why: tuple[tuple[int, str, int], ...]
    points: tuple[int, int]
    score: tuple[int, int]
    chicos: tuple[int, int]
    played: tuple[tuple[int, int], ...]
    revealed: tuple[tuple[int, tuple[int, ...]], ...]
    showdowns: tuple[tuple[Declaration, ...], ...] = ()
    #: how the hand was settled, step by step (see :attr:`SeatView.notes`)
    notes: tuple[tuple[int, str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat knows now. ``seat`` is ``None`` for a spectator."""

    seat: int | None
    rules: Rules
    position: MatchPosition
    hand_index: int
    mano: int
    dealer: int
    score: tuple[int, int]
    chicos: tuple[int, int]
    winner: int | None
    hand: tuple[int, ...]
    dealt: tuple[int, ...]
    played: tuple[tuple[int, int], ...]
    bazas: tuple[tuple[tuple[int, int], ...], ...]
    baza_results: tuple[int, ...]
    turn: int | None
    actors: tuple[int, ...]
    legal: tuple[int, ...]
    pending: PendingCall | None
    truco_level: int
    truco_owner: int | None
    envido_open: bool
    """The envido may still be opened in this round (:meth:`Game.why_envido_closed`):
    by a pie on their turn, or as "el envido está primero" against a first truco."""
    showdowns: tuple[tuple[Declaration, ...], ...]
    flor_sung: tuple[int, ...]
    in_hand: tuple[bool, ...]
    pica_pica: bool
    round_seats: tuple[int, ...]
    log: tuple[tuple[int, int], ...]
    last_hand: PublicHand | None
    #: the hand's settlements so far, all public: ``(after, kind, data)`` with kind
    #: ``baza`` (number, result, winning seat), ``envido`` (winning seat, points),
    #: ``flor`` (team, points) or ``round`` (team, points); ``after`` counts actions
    notes: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
    #: points won in this hand so far, ``(team, source, points)``: they reach the
    #: score when the hand closes
    scored: tuple[tuple[int, str, int], ...] = ()

    @property
    def team(self) -> int | None:
        return None if self.seat is None else self.seat & 1

    def log_tokens(self) -> list[tuple[int, str]]:
        return [(seat, action_token(a)) for seat, a in self.log]

    def describe(self) -> str:
        """A short text of the view, for logs and debugging."""
        cards = " ".join(card_name(c) for c in self.hand) or "-"
        return (
            f"hand {self.hand_index} mano {self.mano} score {self.score[0]}-{self.score[1]} "
            f"seat {self.seat} cards {cards} turn {self.turn}"
        )


def _visible_log(
    actions: tuple[tuple[int, int], ...] | list[tuple[int, int]], seat: int | None
) -> tuple[tuple[int, int], ...]:
    if seat is None:
        return tuple(a for a in actions if not is_say(a[1]))
    team = seat & 1
    return tuple(a for a in actions if not is_say(a[1]) or a[0] & 1 == team)


def public_hand(result: HandResult) -> PublicHand:
    """The public face of a closed hand (no unplayed card except those revealed)."""
    played = tuple((s, a) for s, a in result.actions if a < 40)
    return PublicHand(
        index=result.index,
        mano=result.mano,
        why=result.why,
        points=result.points,
        score=result.score,
        chicos=result.chicos,
        played=played,
        revealed=result.revealed,
        showdowns=result.showdowns,
        notes=result.notes,
    )


def seat_view(game: Game, seat: int | None) -> SeatView:
    """The view of ``seat`` (``None``: a spectator, who sees no hand)."""
    waiting = game.needs_deal or game.winner is not None
    own = seat is not None and not waiting
    pending = None
    if game.pending and not waiting:
        kind, team, level = game.pending[-1]
        chain = tuple(action_token(c) for c in game.envido_calls) if kind == CallKind.ENVIDO else ()
        pending = PendingCall(kind.token, team, level, chain)
    actions = () if waiting else tuple(game.actions)
    return SeatView(
        seat=seat,
        rules=game.rules,
        position=game.position(),
        hand_index=game.hand_index,
        mano=game.mano,
        dealer=game.dealer_seat,
        score=game.score,
        chicos=game.chicos,
        winner=game.winner,
        hand=tuple(game.cards[seat]) if own and seat is not None else (),
        dealt=tuple(game.dealt[seat]) if own and seat is not None else (),
        played=tuple((s, a) for s, a in actions if a < 40),
        bazas=() if waiting else tuple(tuple(b) for b in game.bazas),
        baza_results=() if waiting else tuple(game.baza_results),
        turn=None if waiting or game.pending else game.turn,
        actors=game.actors(),
        legal=tuple(game.legal_actions(seat)) if seat is not None else (),
        pending=pending,
        truco_level=0 if waiting else game.truco_level,
        truco_owner=None if waiting else game.truco_owner,
        envido_open=not waiting and game.why_envido_closed() is None,
        showdowns=() if waiting else tuple(game.showdowns),
        flor_sung=() if waiting else tuple(s for s in range(game.players) if game.flor_sung[s]),
        in_hand=(False,) * game.players if waiting else tuple(game.in_hand),
        pica_pica=game.pica_now,
        round_seats=() if waiting else game.round_seats,
        log=_visible_log(actions, seat),
        last_hand=public_hand(game.history[-1]) if game.history else None,
        notes=() if waiting else tuple(game.notes),
        scored=() if waiting else tuple(game.why_flor + game.why_envido + game.why_truco),
    )
