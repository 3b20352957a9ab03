"""One live table: an asyncio actor that owns its :class:`~truco.game.Game`.

Everything that changes a table goes through its inbox and is handled one message at
a time by :meth:`Table.run`, so no locks are needed (the lichess model). Every change
is an event with a version number; each connection gets the events it may see and
its own seat's view, and a reconnecting client asks for the events after the last
version it saw.

Write-ahead, then broadcast: after each message (and those that arrived while the last
commit was in flight) the actor commits what changed (:mod:`truco.server.journal`) and only
then sends anything to its clients, so no client ever holds a version a restart forgets.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..actions import ActionError, action_token, is_play, is_say, parse_action
from ..bots import Bot, make_bot
from ..cards import card_name, parse_card
from ..deal import CommittedDealer
from ..fairness import KEY_BYTES, add_to_record
from ..game import Game, IllegalAction
from ..narrate import explain_last_hand
from ..record import game_to_record, record_from_json, replay
from ..rules import Rules
from ..view import public_hand, seat_view
from .bot_pool import BotPool, check_bot_spec
from .config import ServerConfig
from .journal import Journal, TableWrite, event_json
from .players import Player
from .protocol import (
    Act,
    AddBot,
    Back,
    ClientMessage,
    Ping,
    RemoveBot,
    Sit,
    Stand,
    Sync,
    error_message,
    public_hand_json,
    view_json,
)
from .store import MatchRow, Store

log = logging.getLogger("truco.server")

Status = Literal["waiting", "playing", "finished", "abandoned"]
#: who may see an event: everyone, one team, or one seat
Audience = tuple[Literal["all"], None] | tuple[Literal["team", "seat"], int]
EVERYONE: Audience = ("all", None)


@dataclass(slots=True)
class Seat:
    """Who sits in a seat. A person covered by a bot (clock ran out, disconnected)
    is ``away`` until they come back."""

    kind: Literal["empty", "human", "bot"] = "empty"
    player_id: str | None = None
    name: str = ""
    bot: str | None = None
    away: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "player_id": self.player_id,
            "name": self.name,
            "bot": self.bot,
            "away": self.away,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        return cls(
            data["kind"],
            data.get("player_id"),
            data.get("name", ""),
            data.get("bot"),
            bool(data.get("away")),
        )


def name_bots(seats: list[Seat]) -> None:
    """Number the bots in seat order, as every client, record and listing names them
    ("Bot 1 (simple)"); run whenever a bot sits or stands, before the match starts."""
    number = 0
    for seat in seats:
        if seat.kind == "bot":
            number += 1
            seat.name = f"Bot {number} ({seat.bot})"


def seat_names(seats: list[Seat]) -> list[str]:
    """The seats' names as the page shows them: two people of one name told apart by
    their seat number, a free seat by its number."""
    names = [seat.name for seat in seats]
    return [
        f"Seat {i + 1}"
        if seat.kind == "empty" or not seat.name
        else f"{seat.name} ({i + 1})"
        if names.count(seat.name) > 1
        else seat.name
        for i, seat in enumerate(seats)
    ]


class Client:
    """One WebSocket connection: what it may see and a bounded outbox of frames."""

    def __init__(self, player: Player | None, outbox_size: int = 512) -> None:
        self.player = player
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(outbox_size)
        self.sent_version = 0
        self.closed = False
        self.close_reason = ""

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else json.dumps(message)
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close("too slow: too many unread messages")

    def close(self, reason: str) -> None:
        """Ask the connection's sender to close with ``reason``."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        while True:  # make room for the closing sentinel
            try:
                self.outbox.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.outbox.get_nowait()


def resumed_dealer(data: Any, game: Game, table_id: str) -> CommittedDealer:
    """The dealer a restored match goes on with: its own key, so that every commitment it
    published holds (the hand in progress included); a match stored without one (or whose
    hand in progress does not come from it) gets a new key for the hands still to be dealt."""
    dealt = game.hand_index + (0 if game.needs_deal else 1)  # hands dealt so far
    try:
        key, first = bytes.fromhex(data["key"]), int(data["first_hand"])
    except (TypeError, KeyError, ValueError):
        return CommittedDealer(first_hand=dealt)
    dealer = CommittedDealer(key, first) if len(key) == KEY_BYTES else None
    sealed = None if dealer is None else dealer.sealed(game.hand_index)
    if dealer is not None and (
        game.needs_deal or sealed is None or sealed.deal(game.n) == game.dealt
    ):
        return dealer
    log.warning("table %s: its fair-deal key does not give the hand in progress", table_id)
    return CommittedDealer(first_hand=dealt)


# ------------------------------------------------------------------ inbox messages
@dataclass(slots=True)
class Join:
    client: Client
    since: int | None = None


@dataclass(slots=True)
class Leave:
    client: Client


@dataclass(slots=True)
class Command:
    client: Client
    message: ClientMessage


@dataclass(slots=True)
class BotMove:
    seat: int
    action: int
    move: int  # the move counter the bot thought about


@dataclass(slots=True)
class Stop:
    pass


#: messages handled together, at most, before their changes are committed
GROUP_LIMIT = 256


@dataclass(slots=True)
class TableEvent:
    version: int
    audience: Audience
    body: dict[str, Any]


class TableError(ValueError):
    """A request the table refuses; ``code`` is a stable short name."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class Table:
    """A table: its options, seats, the match, the connections, and the actor loop."""

    id: str
    name: str
    rules: Rules
    config: ServerConfig
    store: Store | None
    creator: str | None = None
    turn_seconds: float = 30.0
    rated: bool = False  # accounts only, no bots; the result moves ratings (ratings.py)
    seats: list[Seat] = field(default_factory=list)
    status: Status = "waiting"
    game: Game | None = None
    version: int = 0
    created_at: float = field(default_factory=time.time)
    inbox: asyncio.Queue[Join | Leave | Command | BotMove | Stop] = field(
        default_factory=asyncio.Queue
    )
    clients: set[Client] = field(default_factory=set)
    events: deque[TableEvent] = field(init=False)
    committed: dict[int, int] = field(default_factory=dict)
    moves: int = 0  # counts the actions that change whose turn it is
    clock_deadline: float | None = None
    idle_since: float | None = None  # a waiting table nobody is connected to
    clock_total: float = 0.0
    reconnect_deadlines: dict[int, float] = field(default_factory=dict)
    bots: dict[int, Bot] = field(default_factory=dict)
    thinking: int | None = None  # the move counter a bot is thinking about
    spoke: dict[int, int] = field(default_factory=dict)  # bot seat -> move counter it spoke at
    bot_pool: BotPool | None = None  # where search bots think (set by the lobby)
    bot_task: asyncio.Task[None] | None = None  # the bot thinking now
    task: asyncio.Task[None] | None = None
    on_finished: Callable[[Table], None] | None = None
    on_over: Callable[[Table], None] | None = None  # once, when the finished match is durable
    dealer: CommittedDealer = field(default_factory=CommittedDealer)  # commit-reveal deals
    _summary_cache: dict[str, Any] = field(default_factory=dict)
    _rules_json: dict[str, Any] = field(init=False, default_factory=dict)
    # write-ahead: what is durable, what waits for the commit to be sent
    journal: Journal = field(init=False)
    _persisting: bool = False
    _stopping: bool = False
    _resyncs: list[tuple[Client, int | None]] = field(default_factory=list)
    _replies: list[tuple[Client, dict[str, Any] | Callable[[], dict[str, Any]]]] = field(
        default_factory=list
    )
    _durable: asyncio.Condition | None = None
    _story: dict[str, Any] | None = None  # the last closed hand told in words

    def __post_init__(self) -> None:
        self._rules_json = self.rules.to_dict()
        if not self.seats:
            self.seats = [Seat() for _ in range(self.rules.players)]
        self.events = deque(maxlen=self.config.event_buffer)
        self.journal = Journal(event_buffer=self.config.event_buffer)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name=f"table-{self.id}")

    async def stop(self) -> None:
        if self.task is not None:
            self._stopping = True
            await self.inbox.put(Stop())
            await self.task
            self.task = None

    async def run(self) -> None:
        """The actor loop: one message at a time, then timers, bots, broadcast."""
        loop = asyncio.get_running_loop()
        if self.status == "waiting":
            self.idle_since = loop.time()
        self._settle()
        await self._publish()
        while True:
            deadline = self._next_deadline()
            stopping = False
            try:
                if deadline is None:
                    message = await self.inbox.get()
                else:
                    message = await asyncio.wait_for(
                        self.inbox.get(), max(0.0, deadline - loop.time())
                    )
            except TimeoutError:
                self._on_timers(loop.time())
                self._settle()
            else:
                stopping = self._take(message)
                # group commit: what arrived while the last commit was in flight goes with it
                for _ in range(GROUP_LIMIT):
                    if stopping or self.inbox.empty():
                        break
                    stopping = self._take(self.inbox.get_nowait())
            await self._publish()
            if self.journal.status == "finished" and self.on_over is not None:
                on_over, self.on_over = self.on_over, None
                on_over(self)
            if stopping:
                for client in list(self.clients):
                    client.close("the server is stopping")
                return
            if self.status in ("finished", "abandoned") and not self.clients and self.inbox.empty():
                # saved already; the table leaves memory (a finished one stays in the history)
                if self.on_finished is not None:
                    self.on_finished(self)
                return

    def _take(self, message: Join | Leave | Command | BotMove | Stop) -> bool:
        """Handle one message of the inbox; True for :class:`Stop`."""
        if isinstance(message, Stop):
            return True
        try:
            self._handle(message)
        except Exception:  # a bug must not take the table down
            log.exception("table %s: error handling %r", self.id, message)
        self._settle()
        return False

    # ------------------------------------------------------------------ handling
    def _handle(self, message: Join | Leave | Command | BotMove) -> None:
        if isinstance(message, Join):
            self._join(message.client, message.since)
        elif isinstance(message, Leave):
            self._leave(message.client)
        elif isinstance(message, BotMove):
            self._bot_move(message)
        else:
            client, msg = message.client, message.message
            try:
                self._command(client, msg)
            except TableError as exc:
                self._reply(client, error_message(exc.code, exc.reason))

    def _command(self, client: Client, msg: ClientMessage) -> None:
        if isinstance(msg, Ping):
            self._reply(client, lambda: {"type": "pong", "v": self.version})
        elif isinstance(msg, Sync):
            self._resyncs.append((client, msg.since))
        elif isinstance(msg, Act):
            self._act(client, msg.action)
        elif isinstance(msg, Back):
            seat = self._seat_of(client)
            if seat is None:
                raise TableError("not_seated", "you have no seat at this table")
            self._set_away(seat, False, "back")
        elif isinstance(msg, Sit):
            self._sit(client, msg.seat)
        elif isinstance(msg, Stand):
            self._stand(client)
        elif isinstance(msg, AddBot):
            self._add_bot(client, msg.seat, msg.level)
        elif isinstance(msg, RemoveBot):
            self._remove_bot(client, msg.seat)

    # ------------------------------------------------------------------ connections
    def _join(self, client: Client, since: int | None) -> None:
        self.clients.add(client)
        self.idle_since = None
        seat = self._seat_of(client)
        if seat is not None:
            self.reconnect_deadlines.pop(seat, None)
            if self.seats[seat].away:
                self._set_away(seat, False, "reconnected")
            self._emit({"kind": "presence", "seat": seat, "connected": True})
        self._resyncs.append((client, since))  # answered once what it shows is durable

    def _leave(self, client: Client) -> None:
        self.clients.discard(client)
        if self.status == "waiting" and not self.clients:
            self.idle_since = asyncio.get_running_loop().time()
        seat = self._seat_of(client)
        if seat is None or any(self._seat_of(c) == seat for c in self.clients):
            return
        self._emit({"kind": "presence", "seat": seat, "connected": False})
        if self.status == "playing":
            self.reconnect_deadlines[seat] = (
                asyncio.get_running_loop().time() + self.config.disconnect_grace
            )

    def _seat_of(self, client: Client) -> int | None:
        if client.player is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.kind == "human" and seat.player_id == client.player.id:
                return i
        return None

    def _connected(self, seat: int) -> bool:
        return any(self._seat_of(c) == seat for c in self.clients)

    # ------------------------------------------------------------------ seating
    def _require_waiting(self) -> None:
        if self.status != "waiting":
            raise TableError("started", "the match has started: seats cannot change now")

    def _sit(self, client: Client, seat: int) -> None:
        if client.player is None:
            raise TableError("no_player", "sitting needs a guest token (POST /api/guest)")
        if self.rated and not client.player.account:
            raise TableError("account_needed", "a rated table seats accounts only: log in first")
        self._require_waiting()
        self._require_empty(seat)
        old = self._seat_of(client)
        if old is not None:
            self.seats[old] = Seat()
        self.seats[seat] = Seat("human", client.player.id, client.player.name)
        self._emit({"kind": "seated", "seat": seat, "name": client.player.name, "from": old})
        self.start_if_full()

    def _require_empty(self, seat: int) -> None:
        if seat >= len(self.seats):
            raise TableError(
                "no_seat",
                f"there is no seat {seat} at a {len(self.seats)}-player table",
            )
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", f"seat {seat} is taken")

    def _stand(self, client: Client) -> None:
        self._require_waiting()
        seat = self._seat_of(client)
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table")
        self.seats[seat] = Seat()
        self._emit({"kind": "stood", "seat": seat})

    def _require_creator(self, client: Client) -> None:
        if client.player is None or client.player.id != self.creator:
            raise TableError("not_creator", "only the table's creator seats and removes bots")

    def _add_bot(self, client: Client, seat: int, level: str) -> None:
        self._require_creator(client)
        self._require_waiting()
        self._require_empty(seat)
        if self.rated:
            raise TableError("rated_no_bots", "a rated table has no bots: people only")
        try:
            self.bots[seat] = make_bot(check_bot_spec(level))
        except ValueError as exc:
            raise TableError("bad_bot", str(exc)) from None
        if self.bot_pool is not None:
            self.bot_pool.warm([self.bots[seat]])
        self.seats[seat] = Seat("bot", None, "", level)
        name_bots(self.seats)
        self._emit(
            {
                "kind": "seated",
                "seat": seat,
                "name": self.seats[seat].name,
                "bot": level,
            }
        )
        self.start_if_full()

    def _remove_bot(self, client: Client, seat: int) -> None:
        self._require_creator(client)
        self._require_waiting()
        if seat >= len(self.seats) or self.seats[seat].kind != "bot":
            raise TableError("no_bot", f"there is no bot in seat {seat}")
        self.seats[seat] = Seat()
        name_bots(self.seats)
        self.bots.pop(seat, None)
        self._emit({"kind": "stood", "seat": seat})

    def start_if_full(self) -> None:
        if any(seat.kind == "empty" for seat in self.seats):
            return
        first_mano = secrets.randbelow(self.rules.players)
        self.game = Game(self.rules, first_mano=first_mano, dealer=self.dealer)
        self.status = "playing"
        self._emit({"kind": "start", "first_mano": self.game.first_mano})
        self._publish_commitment()
        self._emit({"kind": "deal", "hand": self.game.hand_index, "mano": self.game.mano})
        self._after_move()

    # ------------------------------------------------------------------ playing
    def _act(self, client: Client, token: str) -> None:
        seat = self._seat_of(client)
        if seat is None:
            raise TableError("not_seated", "you have no seat at this table: spectators cannot act")
        game = self.game
        if game is None or self.status != "playing":
            raise TableError("not_playing", "the match is not being played")
        try:
            action = parse_action(token)
        except ActionError as exc:
            raise TableError("bad_action", str(exc)) from None
        if self.seats[seat].away:
            self._set_away(seat, False, "back")
        if is_play(action) and not self._on_turn(seat):
            self._commit(seat, action)
            return
        try:
            self._apply(seat, action, "player")
        except IllegalAction as exc:
            raise TableError("illegal", exc.reason) from None

    def _on_turn(self, seat: int) -> bool:
        game = self.game
        assert game is not None
        return game.on_turn(seat)

    def _commit(self, seat: int, card: int) -> None:
        """A card released before its turn: it goes down when the turn comes."""
        game = self.game
        assert game is not None
        if not game.holds(seat, card):
            raise TableError("illegal", f"{card_name(card)} is not in your hand")
        if seat in self.committed:
            raise TableError(
                "illegal",
                f"{card_name(self.committed[seat])} is already committed: a card released cannot be taken back",
            )
        self.committed[seat] = card
        self._emit({"kind": "committed", "seat": seat, "card": card_name(card)}, ("seat", seat))

    def _apply(self, seat: int, action: int, by: str) -> None:
        game = self.game
        assert game is not None
        hands = len(game.history)
        hand = game.hand_index
        game.apply(seat, action)
        audience: Audience = ("team", seat & 1) if is_say(action) else EVERYONE
        self._emit(
            {
                "kind": "action",
                "hand": hand,
                "seat": seat,
                "action": action_token(action),
                "by": by,
            },
            audience,
        )
        if is_say(action):
            return
        if self.committed.get(seat) == action:
            del self.committed[seat]
        if len(game.history) > hands:
            self.committed.clear()
            self._emit(
                {
                    "kind": "hand_closed",
                    **public_hand_json(public_hand(game.history[-1])),
                    "story": self._hand_story(),
                }
            )
            if game.is_over:
                self.status = "finished"
                self._emit({"kind": "over", "winner": game.winner, "chicos": list(game.chicos)})
                self._reveal_decks()
            else:
                self._publish_commitment()
                self._emit({"kind": "deal", "hand": game.hand_index, "mano": game.mano})
        self._after_move()

    def _after_move(self) -> None:
        self.moves += 1
        self.clock_deadline = None

    def _bot_move(self, move: BotMove) -> None:
        if self.thinking == move.move:
            self.thinking = None
        game = self.game
        if (
            game is None
            or self.status != "playing"
            or move.move != self.moves
            or not self._bot_controls(move.seat)
            or move.action not in self._bot_legal(move.seat)
        ):
            return
        if is_say(move.action):
            self.spoke[move.seat] = self.moves
        self._apply(move.seat, move.action, "bot")

    def _bot_controls(self, seat: int) -> bool:
        info = self.seats[seat]
        return info.kind == "bot" or (info.kind == "human" and info.away)

    def _set_away(self, seat: int, away: bool, why: str) -> None:
        if self.seats[seat].away == away:
            return
        self.seats[seat].away = away
        self._emit({"kind": "away", "seat": seat, "away": away, "why": why})
        if not away:
            self.clock_deadline = None  # the returning player gets a fresh clock

    # ------------------------------------------------------------------ fair deals
    def _publish_commitment(self) -> None:
        """The commitment of the hand just dealt, emitted before its ``deal`` event."""
        assert self.game is not None
        sealed = self.dealer.sealed(self.game.hand_index)
        if sealed is not None:
            self._emit({"kind": "commitment", "hand": sealed.hand, **sealed.public()})

    def _reveal_decks(self) -> None:
        """Every hand's deck and salt, to everyone, once the match is over (never before:
        a deck holds the cards a seat never showed, and those stay secret while the
        match is played, as the record does)."""
        assert self.game is not None
        for hand, sealed in self.dealer.sealed_decks(len(self.game.history)).items():
            self._emit({"kind": "deck_revealed", "hand": hand, **sealed.revealed()})

    def _fairness_summary(self) -> dict[str, Any] | None:
        game = self.game
        sealed = None if game is None or game.is_over else self.dealer.sealed(game.hand_index)
        return None if sealed is None else {"hand": sealed.hand, **sealed.public()}

    # ------------------------------------------------------------------ timers, bots
    def _next_deadline(self) -> float | None:
        times = list(self.reconnect_deadlines.values())
        if self.clock_deadline is not None:
            times.append(self.clock_deadline)
        if self.idle_since is not None and self.status == "waiting":
            times.append(self.idle_since + self.config.abandon_after)
        return min(times) if times else None

    def _on_timers(self, now: float) -> None:
        if (
            self.status == "waiting"
            and self.idle_since is not None
            and now >= self.idle_since + self.config.abandon_after
        ):
            self.status = "abandoned"  # nobody came: off the lobby, and not restored
            self._emit({"kind": "abandoned"})
        for seat, when in list(self.reconnect_deadlines.items()):
            if when <= now:
                del self.reconnect_deadlines[seat]
                self._set_away(seat, True, "disconnected")
        if self.clock_deadline is not None and self.clock_deadline <= now and self.game is not None:
            self.clock_deadline = None
            for seat in self.game.actors():
                if self.seats[seat].kind == "human":
                    self._set_away(seat, True, "clock")

    def _settle(self) -> None:
        """After each message: committed cards, the clock, bots."""
        game = self.game
        if game is not None and self.status == "playing":
            self._play_committed()
            self._run_clock()
            self._wake_bot()

    def _play_committed(self) -> None:
        game = self.game
        assert game is not None
        progress = True
        while progress and self.status == "playing":
            progress = False
            for seat, card in list(self.committed.items()):
                if not game.holds(seat, card):
                    del self.committed[seat]
                elif self._on_turn(seat) and card in game.legal_actions(seat, megaphone=False):
                    self._apply(seat, card, "committed")
                    progress = True
                    break

    def _human_actors(self) -> list[int]:
        assert self.game is not None
        return [
            s
            for s in self.game.actors()
            if self.seats[s].kind == "human" and not self.seats[s].away
        ]

    def _run_clock(self) -> None:
        if self.turn_seconds <= 0 or self.clock_deadline is not None:
            return
        if self._human_actors():
            self.clock_total = self.turn_seconds
            self.clock_deadline = asyncio.get_running_loop().time() + self.turn_seconds

    def _wake_bot(self) -> None:
        game = self.game
        assert game is not None
        if self.thinking == self.moves or self._human_actors():
            return
        seats = [s for s in game.actors() if self._bot_controls(s)]
        if not seats:
            return
        self.thinking = self.moves
        self.bot_task = asyncio.create_task(self._think(seats[0], self.moves))

    def _bot_legal(self, seat: int) -> list[int]:
        """What a bot may do: the engine's legal actions, megaphone words included, but
        at most one word between two moves (as in the terminal game)."""
        assert self.game is not None
        legal = self.game.legal_actions(seat)
        if self.spoke.get(seat) == self.moves:
            legal = [a for a in legal if not is_say(a)]
        return legal

    def _bot_of(self, seat: int) -> Bot:
        bot = self.bots.get(seat)
        if bot is None or self.seats[seat].kind == "human":
            bot = self.bots[seat] = make_bot(self.seats[seat].bot or self.config.cover_bot)
        return bot

    async def _think(self, seat: int, move: int) -> None:
        """Let the bot of ``seat`` decide (after the pacing delay, on the view of that
        moment: the partners' latest words included) and hand the move to the actor."""
        if self.config.bot_delay > 0:
            await asyncio.sleep(self.config.bot_delay)
        game = self.game
        action = -1  # nothing to do: the move only tells the actor the bot is done
        if (
            game is not None
            and self.status == "playing"
            and self.moves == move
            and self._bot_controls(seat)
        ):
            bot, view, legal = self._bot_of(seat), seat_view(game, seat), self._bot_legal(seat)
            try:
                if self.bot_pool is not None:
                    action = (await self.bot_pool.decide(bot, view, legal, self.rules)).action
                else:
                    action = await asyncio.to_thread(bot.choose, view, legal, self.rules)
            except Exception:  # a failing bot must not stall the table
                log.exception("table %s: bot %r failed; playing a random move", self.id, bot)
                action = secrets.choice([a for a in legal if not is_say(a)] or legal)
        await self.inbox.put(BotMove(seat, action, move))

    # ------------------------------------------------------------------ events, views
    def _emit(self, body: dict[str, Any], audience: Audience = EVERYONE) -> None:
        self.version += 1
        body["v"] = self.version
        self.events.append(TableEvent(self.version, audience, body))

    def _sees(self, client: Client, event: TableEvent) -> bool:
        kind, who = event.audience
        if kind == "all":
            return True
        seat = self._seat_of(client)
        if seat is None:
            return False
        return seat & 1 == who if kind == "team" else seat == who

    def summary(self) -> dict[str, Any]:
        """The table as the lobby and every client see it (no cards); while a commit is
        in flight, as it was at the last one."""
        if self._persisting and self._summary_cache:
            return self._summary_cache
        seats = []
        for i, seat in enumerate(self.seats):
            seats.append(
                {
                    "seat": i,
                    "team": i & 1,
                    "kind": seat.kind,
                    "name": seat.name,
                    "bot": seat.bot,
                    "away": seat.away,
                    "connected": seat.kind == "bot"
                    or (seat.kind == "human" and self._connected(i)),
                }
            )
        clock = None
        if self.clock_deadline is not None and self.game is not None:
            remaining = max(0.0, self.clock_deadline - asyncio.get_running_loop().time())
            clock = {
                "actors": self._human_actors(),
                "remaining": round(remaining, 2),
                "total": self.clock_total,
            }
        return {
            "id": self.id,
            "name": self.name,
            "rules": self._rules_json,
            "describe": self.rules.describe(),
            "status": self.status,
            "creator": self.creator,
            "turn_seconds": self.turn_seconds,
            "rated": self.rated,
            "seats": seats,
            "clock": clock,
            "version": self.version,
            "winner": self.game.winner if self.game is not None and self.game.is_over else None,
            "fairness": self._fairness_summary(),
        }

    def _state(
        self,
        client: Client,
        events: list[dict[str, Any]],
        full: bool,
        views: dict[int | None, Any],
    ) -> str:
        seat = self._seat_of(client)
        if seat not in views:
            views[seat] = None if self.game is None else view_json(seat_view(self.game, seat))
        committed = self.committed.get(seat) if seat is not None else None
        state: dict[str, Any] = {
            "type": "state",
            "v": self.version,
            "full": full,
            "events": events,
            "table": self._summary_cache,
            "view": views[seat],
            "you": {
                "seat": seat,
                "player": None
                if client.player is None
                else {"id": client.player.id, "name": client.player.name},
                "committed": None if committed is None else card_name(committed),
            },
        }
        if full:  # a page that comes in late reads the last hand's story here
            state["story"] = self._hand_story()
        return json.dumps(state)

    def _hand_story(self) -> dict[str, Any] | None:
        """The last closed hand explained in every language: told once per hand."""
        game = self.game
        if game is None or not game.history:
            return None
        if self._story is None or self._story["index"] != game.history[-1].index:
            self._story = explain_last_hand(game.history, seat_names(self.seats), self.rules.target)
        return self._story

    def _send_full(self, client: Client) -> None:
        self._summary_cache = self.summary()
        client.send(self._state(client, [], True, {}))
        client.sent_version = self.version

    def _send_since(self, client: Client, since: int) -> None:
        if (
            since > self.version
            or (self.events and since < self.events[0].version - 1)
            or (not self.events and since < self.version)
        ):
            self._send_full(client)
            return
        self._summary_cache = self.summary()
        events = [e.body for e in self.events if e.version > since and self._sees(client, e)]
        client.send(self._state(client, events, False, {}))
        client.sent_version = self.version

    def _broadcast(self) -> None:
        """Send each client the events it has not seen (those it may see) and its view."""
        if not self.clients:
            return
        self._summary_cache = self.summary()
        views: dict[int | None, Any] = {}
        for client in list(self.clients):
            if client.sent_version >= self.version:
                continue
            since = client.sent_version
            events = [e.body for e in self.events if e.version > since and self._sees(client, e)]
            if not events and self.events and self.events[0].version > since + 1:
                client.send(self._state(client, [], True, views))
            elif events:
                client.send(self._state(client, events, False, views))
            client.sent_version = self.version

    # ------------------------------------------------------------------ persistence
    def _reply(
        self, client: Client, message: dict[str, Any] | Callable[[], dict[str, Any]]
    ) -> None:
        """Answer ``client`` once this round's changes are durable (in order with its states)."""
        self._replies.append((client, message))

    async def _publish(self) -> None:
        """Commit what changed, then tell the clients: resyncs, new events, replies."""
        if self.store is not None and not await self._make_durable(self.store):
            return  # not durable: nobody hears of it (the next round writes it with its own)
        if self._durable is not None:
            async with self._durable:
                self._durable.notify_all()
        for client, since in self._resyncs:
            if client not in self.clients:
                continue
            if since is None:
                self._send_full(client)
            else:
                self._send_since(client, since)
        self._resyncs.clear()
        self._broadcast()
        if not self.clients:
            self._summary_cache = self.summary()
        for client, message in self._replies:
            client.send(message if isinstance(message, dict) else message())
        self._replies.clear()

    async def _make_durable(self, store: Store) -> bool:
        """Make the table durable at its version; retry while the database refuses, unless
        the server is stopping (then False)."""
        write = self._pending_write()
        if write is None:
            return True
        delay = 0.05
        self._persisting = True
        try:
            while True:
                try:
                    await store.commit(write)
                    break
                except Exception:
                    log.exception("table %s: cannot commit version %d", self.id, write.version)
                    if self._stopping:
                        return False
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
        finally:
            self._persisting = False
        self.journal.committed(write, self._table_json(), self.status)
        return True

    def _pending_write(self) -> TableWrite | None:
        journaled = self.journal.version
        events = []
        for event in reversed(self.events):
            if event.version <= journaled:
                break
            events.append(event_json(event.audience, event.body))
        events.reverse()
        write = self.journal.pending(
            self.id,
            self.version,
            events,
            self.game,
            self._table_json(),
            self.status,
            self.snapshot,
        )
        if write is not None:
            self.version = max(self.version, write.version)
        return write

    async def until_durable(self) -> None:
        """Return once everything the table holds now is committed."""
        if self.store is None:
            return
        if self._durable is None:
            self._durable = asyncio.Condition()
        target = self.version
        async with self._durable:
            await self._durable.wait_for(
                lambda: self.journal.version >= target and self.journal.status is not None
            )

    def _table_json(self) -> dict[str, Any]:
        """What is stored beside the record: options, seats, cards released early."""
        return {
            "rules": self._rules_json,
            "creator": self.creator,
            "turn_seconds": self.turn_seconds,
            "rated": self.rated,
            "seats": [seat.to_json() for seat in self.seats],
            # cards released early (not in the record: they are not played yet)
            "committed": {str(seat): card_name(card) for seat, card in self.committed.items()},
            # the secret every hand's deck is drawn from: its commitments survive a restart
            "fair_deals": {"key": self.dealer.key.hex(), "first_hand": self.dealer.first_hand},
        }

    def snapshot(self) -> MatchRow:
        """The whole table as one row (a checkpoint of the journal)."""
        names = [seat.name or f"seat {i}" for i, seat in enumerate(self.seats)]
        record = None
        if self.game is not None:
            headers = {"event": self.name, "site": "Truco Argento", "seats": names}
            if self.game.is_over:
                headers["result"] = (
                    f"team {self.game.winner} wins {self.game.chicos[0]}-{self.game.chicos[1]}"
                )
            record = game_to_record(self.game, headers)
            hands = len(record["hands"])
            add_to_record(record, self.dealer.sealed_decks(hands), closed=len(self.game.history))
        return MatchRow(
            id=self.id,
            name=self.name,
            status=self.status,
            created_at=self.created_at,
            updated_at=time.time(),
            version=self.version,
            winner=self.game.winner if self.game is not None and self.game.is_over else None,
            table=self._table_json(),
            record=record,
        )

    @classmethod
    def restore(cls, row: MatchRow, config: ServerConfig, store: Store | None) -> Table:
        """The table of a stored row; an unfinished match goes on from its record, its
        hands (the one in progress included) dealt from its fair-deal key."""
        data = row.table
        table = cls(
            id=row.id,
            name=row.name,
            rules=Rules.from_dict(data["rules"]),
            config=config,
            store=store,
            creator=data.get("creator"),
            turn_seconds=float(data.get("turn_seconds", config.turn_seconds)),
            rated=bool(data.get("rated", False)),
            seats=[Seat.from_json(s) for s in data["seats"]],
            status=row.status,  # type: ignore[arg-type]
            version=row.version,
            created_at=row.created_at,
        )
        table.events.extend(
            TableEvent(body["v"], (kind, who), body) for kind, who, body in row.events
        )
        for i, seat in enumerate(table.seats):
            if seat.kind == "bot":
                table.bots[i] = make_bot(seat.bot or config.cover_bot)
        if row.record is not None:
            result = replay(record_from_json(row.record))
            if result.error is not None:
                raise ValueError(
                    f"table {row.id}: stored record does not replay: {result.error.reason}"
                )
            game = result.game
            assert game is not None
            table.dealer = resumed_dealer(data.get("fair_deals"), game, row.id)
            table.game = game
            for seat, name in data.get("committed", {}).items():
                card = parse_card(name)
                if game.holds(int(seat), card):
                    table.committed[int(seat)] = card
        table.journal = Journal.restored(row, table.game, config.event_buffer)
        if table.game is not None:
            dealing = table.game.needs_deal and not table.game.is_over
            table.game.deal_from(table.dealer)
            if dealing:  # the record ends with a closed hand: the next one, journaled first
                table._publish_commitment()
                table._emit(
                    {"kind": "deal", "hand": table.game.hand_index, "mano": table.game.mano}
                )
        return table

    def after_restore(self) -> None:
        """Seated people get the reconnect grace before bots cover them."""
        if self.status == "playing":
            now = asyncio.get_running_loop().time()
            for i, seat in enumerate(self.seats):
                if seat.kind == "human" and not seat.away:
                    self.reconnect_deadlines[i] = now + self.config.disconnect_grace
