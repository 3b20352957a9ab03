"""Where a table's actions come from: the session the screen talks to.

The screen only ever sees a :class:`~truco.view.SeatView` (plus, when nobody's cards
are secret — watching bots, reading a record — the cards every seat holds) and hands
the human's chosen action back. :class:`LocalSession` runs a game in this process:
one human seat (or none, to watch) and bots in the others.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..actions import is_say
from ..bots import BOTS, Bot, make_bot
from ..game import Game, IllegalAction
from ..record import game_to_record
from ..rules import Rules
from ..view import SeatView, seat_view

#: The bot a seat gets when the command line names none: the strongest one installed
#: (bots think on a thread, so a slow one never freezes the table).
PREFERRED_BOTS = ("search:medium", "simple", "random")


class SessionError(ValueError):
    """A session that cannot start as asked (a bad bot list, an unreachable server)."""


class TableSession(Protocol):
    """What the screen needs from wherever the game is played."""

    #: "play" (a person at the table), "watch" (bots only), "show" (a record), "remote".
    mode: str
    rules: Rules
    #: The seat whose view is drawn (the person's), or ``None`` for a spectator.
    seat: int | None
    names: tuple[str, ...]
    team_names: tuple[str, str]
    #: A word on each seat (the bot's level, "you", "away"), or empty strings.
    seat_notes: tuple[str, ...]

    def view(self) -> SeatView: ...

    def open_hands(self) -> Mapping[int, tuple[int, ...]]:
        """Cards of the other seats the screen may show (only when nothing is secret)."""
        ...

    def act(self, action: int) -> str | None:
        """Take the person's action; return why it was refused, or ``None``."""
        ...

    def bot_turn(self) -> BotTurn | None:
        """The bot about to act and what it sees, or ``None`` (the screen paces bots)."""
        ...

    def play_bot(self, turn: BotTurn, action: int) -> bool:
        """Apply the bot's chosen action unless the table moved on meanwhile."""
        ...

    def record(self) -> dict[str, Any] | None:
        """The match's record (``truco-record/1``), or ``None`` if it may not be saved yet."""
        ...


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot's turn to think: it sees only its seat's view, so the thinking may run on
    another thread while the table waits. ``moment`` tells whether the table has moved
    on since."""

    seat: int
    bot: Bot
    view: SeatView
    legal: tuple[int, ...]
    moment: tuple[int, int]

    def think(self) -> int:
        return self.bot.choose(self.view, self.legal, self.view.rules)


def default_bot() -> str:
    for spec in PREFERRED_BOTS:
        if spec.partition(":")[0] in BOTS:
            return spec
    return min(BOTS)


def seat_bots(
    players: int, human: int | None, bots: Sequence[str | Bot], seed: int | None = None
) -> dict[int, Bot]:
    """The bot of each seat not taken by the person: one spec (``name[:level]``) or bot
    for all, or one per bot seat in seat order. Raise :class:`SessionError` naming what
    is wrong."""
    seats = [s for s in range(players) if s != human]
    given = [b.strip() if isinstance(b, str) else b for b in bots]
    given = [b for b in given if b != ""] or [default_bot()]
    if len(given) == 1 and len(seats) > 1:
        if not isinstance(given[0], str):
            raise SessionError("one bot object cannot sit at several seats; give one per seat")
        given = given * len(seats)
    if len(given) != len(seats):
        raise SessionError(
            f"--bots needs one level for all bots or one per bot seat ({len(seats)}), "
            f"got {len(given)}"
        )
    result: dict[int, Bot] = {}
    for seat, spec in zip(seats, given):
        if isinstance(spec, Bot):
            result[seat] = spec
            continue
        try:
            result[seat] = make_bot(spec, None if seed is None else seed * 100 + seat)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
    return result


class LocalSession:
    """A game in this process: the person at ``human`` (``None``: everybody is a bot)
    and a bot at every other seat."""

    def __init__(
        self,
        rules: Rules,
        *,
        human: int | None = 0,
        bots: Sequence[str | Bot] = (),
        seed: int | None = None,
        first_mano: int = 0,
        game: Game | None = None,
    ) -> None:
        if human is not None and not 0 <= human < rules.players:
            raise SessionError(f"there is no seat {human} at a {rules.players}-player table")
        self.mode = "play" if human is not None else "watch"
        self.rules = rules
        self.seat = human
        self.game = game or Game(rules, first_mano=first_mano, seed=seed)
        self.bots = seat_bots(rules.players, human, bots, seed)
        who = "Bot" if human is not None else "Seat"
        self.names = tuple("Vos" if s == human else f"{who} {s}" for s in range(rules.players))
        #: What plays each seat, shown beside its name.
        self.seat_notes = tuple(
            "you" if s == human else repr(self.bots[s]) for s in range(rules.players)
        )
        if human is None:
            self.team_names: tuple[str, str] = ("Equipo 0", "Equipo 1")
        else:
            ours = human % 2
            self.team_names = ("Nosotros", "Ellos") if ours == 0 else ("Ellos", "Nosotros")
        self._spoke: set[int] = set()  # bots that used the megaphone since the last move

    # -- what the screen reads
    def view(self) -> SeatView:
        return seat_view(self.game, self.seat)

    def open_hands(self) -> Mapping[int, tuple[int, ...]]:
        if self.seat is not None:
            return {}  # a person plays: the bots' cards are secret
        return {s: self.game.hand_cards(s) for s in range(self.rules.players)}

    # -- the person
    def act(self, action: int) -> str | None:
        if self.seat is None:
            return "you are watching: the bots play this match"
        try:
            self.game.apply(self.seat, action)
        except IllegalAction as exc:
            return exc.reason
        if not is_say(action):
            self._spoke.clear()
        return None

    def waits_for_person(self) -> bool:
        """The person may act now (bots of the person's team let the person answer)."""
        seat = self.seat
        if seat is None or seat not in self.game.actors():
            return False
        return any(not is_say(a) for a in self.game.legal_actions(seat))

    # -- the bots
    def _next_bot(self) -> int | None:
        if self.game.is_over or self.waits_for_person():
            return None
        for s in self.game.actors():
            if s in self.bots and any(not is_say(a) for a in self.game.legal_actions(s)):
                return s
        return None

    def _moment(self) -> tuple[int, int]:
        return (len(self.game.history), len(self.game.actions))

    def bot_turn(self) -> BotTurn | None:
        seat = self._next_bot()
        if seat is None:
            return None
        view = seat_view(self.game, seat)
        legal = tuple(a for a in view.legal if not (is_say(a) and seat in self._spoke))
        return BotTurn(seat, self.bots[seat], view, legal, self._moment())

    def play_bot(self, turn: BotTurn, action: int) -> bool:
        if turn.moment != self._moment():
            return False  # somebody acted while the bot thought: it thinks again
        if action not in turn.legal:  # a bot's bug must not stop the match
            action = next(a for a in turn.legal if not is_say(a))
        self.game.apply(turn.seat, action)
        if is_say(action):
            self._spoke.add(turn.seat)
        else:
            self._spoke.clear()
        return True

    def step_bot(self) -> bool:
        """Let one bot think and act, here and now; ``False`` if no bot is to act."""
        turn = self.bot_turn()
        return turn is not None and self.play_bot(turn, turn.think())

    # -- the record
    def record(self) -> dict[str, Any] | None:
        if self.seat is not None and not self.game.is_over:
            return None  # it holds every deal: the bots' cards stay secret until the end
        headers: dict[str, Any] = {
            "event": "Truco Argento terminal game",
            "date": _dt.date.today().isoformat(),
            "seats": [
                name if s == self.seat else f"{name} ({note})"
                for s, (name, note) in enumerate(zip(self.names, self.seat_notes))
            ],
        }
        if self.game.is_over:
            headers["result"] = "-".join(str(c) for c in self.game.chicos)
        return game_to_record(self.game, headers)
