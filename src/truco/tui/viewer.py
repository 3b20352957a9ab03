"""The record viewer: a saved ``truco-record/1`` stepped through, action by action.

A record is public to whoever reads it, so every seat's cards are shown. The steps are
snapshots of the engine replaying the record: the start of each hand, then one per
action. A record that stops at an illegal action is shown up to it, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions import action_token
from ..deal import SeededDealer
from ..game import Game, IllegalAction
from ..locale import _
from ..record import Record, RecordError
from ..refusals import Refusal
from ..view import SeatView, seat_view
from .reasons import refusal_text
from .session import SessionDefaults, numbered_teams


class RecordViewer(SessionDefaults):
    """A :class:`~truco.tui.session.TableSession` over the steps of a record."""

    mode = "show"
    seat: int | None = None  # a record is read as a spectator, every hand open

    def __init__(self, record: Record, marks: Mapping[tuple[int, int], str] | None = None) -> None:
        self.rules = record.rules
        #: notes on some actions, by (hand, action number): ``truco analyze --show``'s grades
        self.marks: Mapping[tuple[int, int], str] = marks or {}
        seats = record.headers.get("seats")
        n = record.rules.players
        if isinstance(seats, list) and len(seats) == n and all(isinstance(x, str) for x in seats):
            self.seat_notes: tuple[str, ...] = tuple(seats)
        else:
            self.seat_notes = ("",) * n
        # seats and teams counted from 1, as people count them (and as watch does)
        self.names: tuple[str, ...] = tuple(_("Seat {seat}").format(seat=s + 1) for s in range(n))
        self.team_names = numbered_teams()
        self.error: str | None = None
        #: (game after the step, hand number, action number within the hand or -1)
        self.steps: list[tuple[Game, int, int]] = []
        self._replay(record)
        self.index = 0

    def _replay(self, record: Record) -> None:
        game = Game(record.rules, first_mano=record.first_mano, manual_deal=True)
        dealer = SeededDealer(record.seed) if record.seed is not None else None
        for h, hand in enumerate(record.hands):
            if game.is_over:
                raise RecordError(f"hand {h} is listed after the match was decided")
            deal = hand.deal if hand.deal is not None else dealer.deal(game.n, h)  # type: ignore[union-attr]
            game.deal(deal)
            self.steps.append((game.clone(), h, -1))
            for i, (seat, action) in enumerate(hand.actions):
                try:
                    if game.needs_deal:
                        raise IllegalAction(seat, action, Refusal.of("hand_over"))
                    game.apply(seat, action)
                except IllegalAction as exc:
                    self.error = _(
                        "hand {hand}, action {number}: {name} may not {action}: {reason}"
                    ).format(
                        hand=h + 1,
                        number=i + 1,
                        name=self.names[seat],
                        action=repr(action_token(action)),
                        reason=refusal_text(exc.refusal),
                    )
                    return
                self.steps.append((game.clone(), h, i))

    # -- moving
    def _go(self, index: int) -> bool:
        index = max(0, min(index, len(self.steps) - 1))
        moved = index != self.index
        self.index = index
        return moved

    def forward(self) -> bool:
        return self._go(self.index + 1)

    def back(self) -> bool:
        return self._go(self.index - 1)

    def first(self) -> bool:
        return self._go(0)

    def last(self) -> bool:
        return self._go(len(self.steps) - 1)

    def next_hand(self) -> bool:
        hand = self.steps[self.index][1]
        for i in range(self.index + 1, len(self.steps)):
            if self.steps[i][1] > hand:
                return self._go(i)
        return self.last()

    def previous_hand(self) -> bool:
        hand = self.steps[self.index][1]
        start = next(i for i, step in enumerate(self.steps) if step[1] == hand)
        if start < self.index:
            return self._go(start)
        for i, step in enumerate(self.steps):
            if step[1] == hand - 1:
                return self._go(i)
        return self.first()

    # -- what the screen reads
    @property
    def game(self) -> Game:
        return self.steps[self.index][0]

    def at_end(self) -> bool:
        return self.index == len(self.steps) - 1

    def caption(self) -> str:
        _game, hand, action = self.steps[self.index]
        where = _("deal") if action < 0 else _("action {number}").format(number=action + 1)
        text = _("step {step}/{steps} · hand {hand}, {where}").format(
            step=self.index + 1, steps=len(self.steps), hand=hand + 1, where=where
        )
        if self.error and self.at_end():
            text += " · " + _("the record stops here (see below)")
        return text

    def mark(self) -> str:
        """``truco analyze``'s sentence on the action of this step, if it graded it (shown
        on a line of its own: it does not fit the title beside the rules and the step)."""
        _game, hand, action = self.steps[self.index]
        return self.marks.get((hand, action), "")

    def hand_shown(self) -> tuple[int, int]:
        """The number of the hand the step belongs to, and its mano."""
        game, hand, _action = self.steps[self.index]
        if game.needs_deal and game.history:
            return hand, game.history[-1].mano
        return hand, game.mano

    def score_before(self, hand_index: int) -> tuple[int, int] | None:
        """The score when the hand was dealt: its first step's."""
        for game, hand, action in self.steps:
            if hand == hand_index and action < 0:
                return game.score
        return None

    def hand_log(self) -> tuple[tuple[int, int], ...]:
        """Every action of the hand shown (a record hides nothing), even once it closed."""
        game = self.game
        if game.needs_deal and game.history:
            return game.history[-1].actions
        return tuple(game.actions)

    def view(self) -> SeatView:
        return seat_view(self.game, None)

    def open_hands(self) -> Mapping[int, tuple[int, ...]]:
        game = self.game
        if game.needs_deal:
            return {}
        return {s: game.hand_cards(s) for s in range(game.n)}

    def act(self, action: int) -> Refusal | None:
        return Refusal.of("record_only")

    def record(self) -> dict[str, Any] | None:
        from ..record import game_to_record

        final = self.steps[-1][0]
        return game_to_record(final)
