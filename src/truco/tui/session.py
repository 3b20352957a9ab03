"""Where a table's actions come from: the session the screen talks to.

The screen only ever sees a :class:`~truco.view.SeatView` (plus, when nobody's cards
are secret — watching bots, reading a record — the cards every seat holds) and hands
the human's chosen action back. :class:`LocalSession` runs a game in this process:
one human seat (or none, to watch) and bots in the others.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..actions import is_say
from ..bots import BOTS, Bot, make_bot
from ..bots.names import BOT_NAMES
from ..game import Game, IllegalAction
from ..locale import _
from ..record import game_to_record
from ..refusals import Refusal
from ..rules import Rules
from ..view import SeatView, seat_view

#: The bot a seat gets when the command line names none: the strongest one installed
#: (bots think on a thread, so a slow one never freezes the table).
PREFERRED_BOTS = ("search:medium", "simple", "random")


def bot_level(spec: str) -> str:
    """A bot's level in a word, as the page words it ("principiante" for ``simple``,
    "difícil" for ``search:hard``); a bot without a word (a trained policy) keeps its
    spec. ``spec``: the server's (``search:hard``) or a bot's ``repr`` (``simple:default``).

    >>> bot_level("linear:p.npz")
    'linear:p.npz'
    """
    name, _sep, level = spec.partition(":")
    key = name if level in ("", "default") or name == "mirror" else spec
    words = {
        "random": _("random"),
        "simple": _("beginner"),
        "search:easy": _("easy"),
        "search:medium": _("intermediate"),
        "search:hard": _("hard"),
        "search:expert": _("expert"),
        "mirror": _("mirror"),
        "tight": _("tight"),
        "loose": _("loose"),
        "station": _("calling station"),
        "scared": _("scared"),
        "falta": _("falta lover"),
        "beginner": _("beginner"),
        "amateur": _("amateur"),
        "club": _("club player"),
        "student:club": _("club player"),
        "master": _("master"),
        "student:master": _("master"),
        "search:expert-2026": _("expert 2026"),
    }
    return words.get(key, spec)


class SessionError(ValueError):
    """A session that cannot start as asked (a bad bot list, an unreachable server)."""


class TableSession(Protocol):
    """What the screen needs from wherever the game is played (sessions take the
    defaults of what they do not do from :class:`SessionDefaults`)."""

    @property
    def mode(self) -> str:
        """ "play" (a person at the table), "watch" (bots only), "show" (a record), "remote"."""
        ...

    @property
    def rules(self) -> Rules: ...

    @property
    def seat(self) -> int | None:
        """The seat whose view is drawn (the person's), or ``None`` for a spectator."""
        ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def team_names(self) -> tuple[str, str]: ...

    @property
    def seat_notes(self) -> tuple[str, ...]:
        """A word on each seat (the bot's level, "you", "away"), or empty strings."""
        ...

    def view(self) -> SeatView: ...

    def open_hands(self) -> Mapping[int, tuple[int, ...]]:
        """Cards of the other seats the screen may show (only when nothing is secret)."""
        ...

    def act(self, action: int) -> Refusal | None:
        """Take the person's action; return why it was refused, or ``None``."""
        ...

    def bot_turn(self) -> BotTurn | None:
        """The bot about to act and what it sees, or ``None`` (the screen paces bots)."""
        ...

    def play_bot(self, turn: BotTurn, action: int) -> bool:
        """Apply the bot's chosen action unless the table moved on meanwhile."""
        ...

    def record(self) -> dict[str, Any] | None:
        """The match's record (``truco-record/1``) once it may be saved, else ``None``."""
        ...

    def record_so_far(self) -> dict[str, Any] | None:
        """The record of the match up to now, even unfinished (to keep it when quitting
        mid-match), or ``None`` if this session cannot give one."""
        ...

    def score_before(self, hand_index: int) -> tuple[int, int] | None:
        """The score when hand ``hand_index`` was dealt, if the session knows it."""
        ...

    def caption(self) -> str:
        """A word for the title bar (the table's code, a record's step)."""
        ...

    def pop_notice(self) -> str | None:
        """The oldest message for the person that has not been shown yet."""
        ...

    def away(self) -> bool:
        """A bot covers the person's seat (a server's table)."""
        ...

    def come_back(self) -> None:
        """Take the seat back from the bot that covers it."""
        ...

    async def listen(self, changed: Callable[[], None]) -> None:
        """Call ``changed`` whenever the table changes by itself (a server's frames)
        until :meth:`close`; a session that only changes when asked returns at once."""
        ...

    def close(self) -> None:
        """Stop listening: the screen is closing."""
        ...


class SessionDefaults:
    """What a session that does not do something answers: no bots to pace, no record
    so far, no caption, no notices, nobody covering a seat, nothing to listen to."""

    def bot_turn(self) -> BotTurn | None:
        return None

    def play_bot(self, turn: BotTurn, action: int) -> bool:
        return False

    def record_so_far(self) -> dict[str, Any] | None:
        return None

    def score_before(self, hand_index: int) -> tuple[int, int] | None:
        return None

    def caption(self) -> str:
        return ""

    def pop_notice(self) -> str | None:
        return None

    def away(self) -> bool:
        return False

    def come_back(self) -> None:
        return None

    async def listen(self, changed: Callable[[], None]) -> None:
        return None

    def close(self) -> None:
        return None


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


def numbered_teams() -> tuple[str, str]:
    """The teams as people count them: "Team 1" (the first mano's) and "Team 2"."""
    return (_("Team {number}").format(number=1), _("Team {number}").format(number=2))


def team_names(seat: int | None) -> tuple[str, str]:
    """The teams' names for the person at ``seat``: "us" and "them" (in the client's
    language), or "team 1" and "team 2" for a spectator."""
    if seat is None:
        return numbered_teams()
    return (_("Us"), _("Them")) if seat % 2 == 0 else (_("Them"), _("Us"))


def default_bot() -> str:
    for spec in PREFERRED_BOTS:
        if spec.partition(":")[0] in BOTS:
            return spec
    return min(BOTS)


def bot_specs(players: int, human: int | None, specs: Sequence[str]) -> dict[int, str]:
    """Which bot (``name[:level]``) sits at each seat the person does not take. The list
    is dealt to the bot seats in seat order and starts again from its first bot when it
    is shorter (``random`` alone fills every seat; ``a,b`` at four bot seats is
    ``a,b,a,b``); an empty list seats the default bot everywhere; a list longer than the
    bot seats is refused with a :class:`SessionError`.

    >>> bot_specs(4, None, ["search:hard", "random"])
    {0: 'search:hard', 1: 'random', 2: 'search:hard', 3: 'random'}
    """
    seats = [s for s in range(players) if s != human]
    given = [spec.strip() for spec in specs if spec.strip()] or [default_bot()]
    if len(given) > len(seats):
        raise SessionError(
            f"--bots names {len(given)} bots but there are only {len(seats)} bot seats"
        )
    return {seat: given[i % len(given)] for i, seat in enumerate(seats)}


def seat_bots(
    players: int, human: int | None, bots: Sequence[str | Bot], seed: int | None = None
) -> dict[int, Bot]:
    """The bot of each seat not taken by the person: specs as :func:`bot_specs` deals
    them, or one ready bot object per bot seat. Raise :class:`SessionError` naming what
    is wrong."""
    objects = [b for b in bots if isinstance(b, Bot)]
    if objects:
        seats = [s for s in range(players) if s != human]
        if len(objects) != len(bots) or len(objects) != len(seats):
            raise SessionError("give one bot object per bot seat, or specs as name[:level]")
        return dict(zip(seats, objects, strict=True))
    result: dict[int, Bot] = {}
    for seat, spec in bot_specs(players, human, [str(b) for b in bots]).items():
        try:
            result[seat] = make_bot(spec, None if seed is None else seed * 100 + seat)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
    return result


class LocalSession(SessionDefaults):
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
        # the person's bots named in seat order as the server names them ("Rosa", "Tito"...);
        # bots watched are seats, counted from 1 as a record's ("Lugar 1")
        bot_seats = [s for s in range(rules.players) if s != human]
        self.names = tuple(
            _("You")
            if s == human
            else _("Seat {seat}").format(seat=s + 1)
            if human is None
            else BOT_NAMES[bot_seats.index(s) % len(BOT_NAMES)]
            for s in range(rules.players)
        )
        #: What plays each seat, shown beside its name: the bot's level in a word.
        self.seat_notes = tuple(
            "" if s == human else bot_level(repr(self.bots[s])) for s in range(rules.players)
        )
        self.team_names = team_names(human)
        self._spoke: set[int] = set()  # bots that used the megaphone since the last move

    # -- what the screen reads
    def view(self) -> SeatView:
        return seat_view(self.game, self.seat)

    def open_hands(self) -> Mapping[int, tuple[int, ...]]:
        if self.seat is not None:
            return {}  # a person plays: the bots' cards are secret
        return {s: self.game.hand_cards(s) for s in range(self.rules.players)}

    # -- the person
    def act(self, action: int) -> Refusal | None:
        if self.seat is None:
            return Refusal.of("watching_bots")
        try:
            self.game.apply(self.seat, action)
        except IllegalAction as exc:
            return exc.refusal
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

    # -- the record
    def record(self) -> dict[str, Any] | None:
        if self.seat is not None and not self.game.is_over:
            return None  # it holds every deal: the bots' cards stay secret until the end
        return self._record()

    def _record(self) -> dict[str, Any]:
        headers: dict[str, Any] = {
            "event": "Truco Argento terminal game",
            "date": _dt.date.today().isoformat(),
            "seats": [  # the bots by name and spec ("Rosa (search:hard)"), for every tool
                name if s == self.seat else f"{name} ({self.bots[s]!r})"
                for s, name in enumerate(self.names)
            ],
        }
        if self.game.is_over:
            headers["result"] = "-".join(str(c) for c in self.game.chicos)
        return game_to_record(self.game, headers)

    def record_so_far(self) -> dict[str, Any] | None:
        """The record up to now: every hand dealt so far with its actions (an unfinished
        last hand is legal in a record and scores nothing yet)."""
        return self._record()
