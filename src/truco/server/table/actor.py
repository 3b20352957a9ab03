"""The table actor: one asyncio task owns a table's match and handles its inbox one
message at a time, so no locks are needed (the lichess model).

After each message (and those that arrived while the last commit was in flight) the actor
commits what changed (:mod:`.durability`) and only then sends anything to its clients
(:mod:`.fanout`), so no client ever holds a version a restart forgets. Seats are kept by
:mod:`.seating`, deadlines by :mod:`.clock`, bots think through :mod:`.bots`, events and
their audiences live in :mod:`.events`; how a table is stored and restored: :mod:`.stored`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from ...actions import ActionError, action_token, is_play, is_say, parse_action
from ...bots import Bot
from ...cards import card_name
from ...deal import CommittedDealer
from ...game import Game, HandResult, IllegalAction
from ...narrate import explain_last_hand, hand_bazas
from ...refusals import Refusal
from ...rules import Rules
from ...view import SeatView, public_hand, seat_view
from ..config import ServerConfig
from ..metrics import ACTIONS, ROUND_SECONDS
from ..protocol import (
    Act,
    AddBot,
    Back,
    ClientMessage,
    Ping,
    Rematch,
    RemoveBot,
    Sit,
    Stand,
    Sync,
    Why,
    error_message,
    pong_message,
    why_message,
)
from ..storage.journal import Journal
from ..storage.rows import MatchRow
from ..storage.store import Store
from ..tasks import spawn
from . import stored
from .bot_pool import BotPool
from .bots import BotScheduler
from .clients import Peer
from .clock import Deadlines
from .durability import Durability
from .errors import TableError
from .events import EVERYONE, Audience, EventLog, TableEvent
from .fanout import Fanout, Round
from .inbox import (
    GROUP_LIMIT,
    BotMove,
    Command,
    Expel,
    Join,
    Leave,
    Message,
    RematchMade,
    Stop,
)
from .seating import Seat, Seating, seat_names

log = logging.getLogger("truco.server")

Status = Literal["waiting", "playing", "finished", "abandoned"]
#: a reply to one client, sent once the round is durable (a function: made then)
Reply = dict[str, Any] | Callable[[], dict[str, Any]]


def closed_bazas(result: HandResult, players: int) -> list[dict[str, Any]]:
    """The bazas of a closed hand as the page lays them out: the cards played in each
    (public: nothing but what went on the table), its winning team and seat (both None:
    parda) once finished. Empty for a pica-pica hand, told by its rounds instead."""
    if result.pica_pica:
        return []
    return [
        {
            "cards": [[seat, card_name(card)] for seat, card in baza.cards],
            "finished": baza.finished,
            "winner": baza.winner,
            "best": baza.best,
        }
        for baza in hand_bazas(public_hand(result).actions, players)
    ]


@dataclass(slots=True)
class RematchOffer:
    """The rematch after a finished match: the seats that accepted; the new table's code
    once made; why it is off (``declined``, ``left``, ``failed``), if it is."""

    accepted: set[int] = field(default_factory=set)
    making: bool = False
    table: str | None = None
    closed: str | None = None
    task: asyncio.Task[None] | None = None


class Table:
    """A table: its options, seats, the match, the connections, and the actor loop."""

    def __init__(
        self,
        id: str,
        name: str,
        rules: Rules,
        config: ServerConfig,
        store: Store | None,
        creator: str | None = None,
        turn_seconds: float = 30.0,
        rated: bool = False,
        seats: list[Seat] | None = None,
        status: Status = "waiting",
        version: int = 0,
        created_at: float | None = None,
        on_over: Callable[[Table], None] | None = None,
        on_rematch: Callable[[Table], Awaitable[Table]] | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.rules = rules
        self.config = config
        self.store = store
        self.turn_seconds = turn_seconds
        self.status: Status = status
        self.created_at = time.time() if created_at is None else created_at
        self.game: Game | None = None
        self.dealer = CommittedDealer()  # commit-reveal deals
        self.seating = Seating(rules.players, creator, seats, rated)
        self.log = EventLog(config.event_buffer, version)
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.clients: dict[Peer, int] = {}  # connection -> the version it was sent
        self.fanout = Fanout()  # what each audience and connection was last sent
        self.committed: dict[int, int] = {}  # seat -> card released before its turn
        self.moves = 0  # counts the actions that change whose turn it is
        self.deadlines = Deadlines()
        self.bots_thinking = BotScheduler(id, rules, config.bot_delay, self.inbox)
        self.durability = Durability(id, store, Journal(event_buffer=config.event_buffer))
        self.task: asyncio.Task[None] | None = None
        self.on_finished: Callable[[Table], None] | None = None
        self.on_over = on_over  # called once, when the finished match is durable
        #: makes the rematch's table (the lobby's); None: this server offers no rematch
        self.on_rematch = on_rematch
        self.rematch = RematchOffer()
        self._rules_json = rules.to_dict()
        self._describe = rules.describe()
        self._summary: dict[str, Any] = {}  # as of the last durable round
        #: the last summary built, and what it shows (see :meth:`summary`)
        self._summary_kept: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self._resyncs: list[tuple[Peer, int | None]] = []
        self._replies: list[tuple[Peer, Reply]] = []
        self._story: dict[str, Any] | None = None  # the last closed hand told in words
        self._fairness: tuple[Any, dict[str, Any] | None] = (None, None)

    # ------------------------------------------------------------------ parts' state
    @property
    def version(self) -> int:
        return self.log.version

    @property
    def events(self) -> Any:
        """The latest events (a deque of :class:`~.events.TableEvent`)."""
        return self.log.events

    @property
    def seats(self) -> list[Seat]:
        return self.seating.seats

    @property
    def rated(self) -> bool:
        """Accounts only, no bots; the result moves ratings (:mod:`..ratings`)."""
        return self.seating.rated

    @property
    def creator(self) -> str | None:
        return self.seating.creator

    @property
    def bots(self) -> dict[int, Bot]:
        return self.seating.bots

    @property
    def bot_pool(self) -> BotPool | None:
        return self.bots_thinking.pool

    @bot_pool.setter
    def bot_pool(self, pool: BotPool | None) -> None:
        self.bots_thinking.pool = pool

    @property
    def journal(self) -> Journal:
        return self.durability.journal

    @property
    def _persisting(self) -> bool:
        return self.durability.persisting

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.task = spawn(self.run(), f"table-{self.id}")

    async def stop(self) -> None:
        """Stop the actor (its last changes committed, its clients closed). Whoever still
        waits for the table to be durable, or for the answer to a join that came too late,
        hears that the server is stopping, now."""
        self.durability.stopping = True
        if self.task is not None:
            await self.inbox.put(Stop())
            await self.task
            self.task = None
        self.bots_thinking.cancel()
        while not self.inbox.empty():  # (behind the Stop: never handled)
            message = self.inbox.get_nowait()
            if isinstance(message, Join):
                message.client.close("the server is stopping")
        await self.durability.stopped()

    async def run(self) -> None:
        """The actor loop: one message at a time, then timers, bots, broadcast."""
        loop = asyncio.get_running_loop()
        if self.status == "waiting":
            self.deadlines.idle_since = loop.time()
        self._settle()
        await self._publish()
        acted, started = False, 0.0
        while True:
            deadline = self.deadlines.next(
                self.config.abandon_after if self.status == "waiting" else None
            )
            stopping = False
            try:
                if deadline is None:
                    message = await self.inbox.get()
                else:  # a timeout on this task, not a task per message as wait_for makes
                    async with asyncio.timeout_at(deadline):
                        message = await self.inbox.get()
            except TimeoutError:
                self._on_timers(loop.time())
                self._settle()
            else:
                acted = isinstance(message, Command) and isinstance(message.message, Act)
                started = time.perf_counter()
                stopping = self._take(message)
                # group commit: what arrived while the last commit was in flight goes with it
                for _ in range(GROUP_LIMIT):
                    if stopping or self.inbox.empty():
                        break
                    stopping = self._take(self.inbox.get_nowait())
            await self._publish()
            if acted:  # a player's action, committed and told (a timer's round is not one)
                ROUND_SECONDS.observe(time.perf_counter() - started)
                acted = False
            if self.journal.status == "finished" and self.on_over is not None:
                on_over, self.on_over = self.on_over, None
                on_over(self)
            if stopping:
                for client in list(self.clients):
                    client.close("the server is stopping")
                self.bots_thinking.cancel()
                return
            if self.status in ("finished", "abandoned") and not self.clients and self.inbox.empty():
                # saved already; the table leaves memory (a finished one stays in the history)
                self.bots_thinking.cancel()
                if self.on_finished is not None:
                    self.on_finished(self)
                return

    def _take(self, message: Message) -> bool:
        """Handle one message of the inbox; True for :class:`~.inbox.Stop`."""
        if isinstance(message, Stop):
            return True
        try:
            self._handle(message)
        except Exception:  # a bug must not take the table down
            log.exception("table %s: error handling %r", self.id, message)
        self._settle()
        return False

    # ------------------------------------------------------------------ handling
    def _handle(self, message: Join | Leave | Command | BotMove | RematchMade | Expel) -> None:
        if isinstance(message, RematchMade):
            self._rematch_made(message)
        elif isinstance(message, Expel):
            self._expel(message.player_id)
        elif isinstance(message, Join):
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
                self._reply(client, error_message(exc.refusal))

    def _command(self, client: Peer, msg: ClientMessage) -> None:
        if isinstance(msg, Ping):
            self._reply(client, lambda: pong_message(self.version))
        elif isinstance(msg, Sync):
            self._resyncs.append((client, msg.since))
        elif isinstance(msg, Act):
            self._act(client, msg.action, msg.v)
        elif isinstance(msg, Why):
            self._reply(client, why_message(msg.action, self._why(client, msg.action)))
        elif isinstance(msg, Back):
            seat = self._seat_of(client)
            if seat is None:
                raise TableError("not_seated")
            self._set_away(seat, False, "back")
        elif isinstance(msg, Sit):
            self._require_waiting()
            old = self.seating.sit(client.player, msg.seat)
            assert client.player is not None
            self._emit(
                {"kind": "seated", "seat": msg.seat, "name": client.player.name, "from": old}
            )
            self.start_if_full()
        elif isinstance(msg, Stand):
            self._require_waiting()
            self._emit({"kind": "stood", "seat": self.seating.stand(client.player)})
        elif isinstance(msg, AddBot):
            self._add_bot(client, msg.seat, msg.level)
        elif isinstance(msg, Rematch):
            self._answer_rematch(client, msg.accept)
        elif isinstance(msg, RemoveBot):
            self.seating.require_creator(client.player)
            self._require_waiting()
            self.seating.remove_bot(msg.seat)
            self._emit({"kind": "stood", "seat": msg.seat})

    # ------------------------------------------------------------------ connections
    def _join(self, client: Peer, since: int | None) -> None:
        self.clients[client] = self.version
        self.deadlines.idle_since = None
        seat = self._seat_of(client)
        if seat is not None:
            self.deadlines.reconnect.pop(seat, None)
            if self.seats[seat].away:
                self._set_away(seat, False, "reconnected")
            self._emit({"kind": "presence", "seat": seat, "connected": True})
        self._resyncs.append((client, since))  # answered once what it shows is durable

    def _leave(self, client: Peer) -> None:
        self.clients.pop(client, None)
        self.fanout.forget(client)
        if self.status == "waiting" and not self.clients:
            self.deadlines.idle_since = asyncio.get_running_loop().time()
        seat = self._seat_of(client)
        if seat is None or self._connected(seat):
            return
        self._emit({"kind": "presence", "seat": seat, "connected": False})
        if self.status == "finished":
            self._close_rematch(seat, "left")
        if self.status == "playing":
            self.deadlines.reconnect[seat] = (
                asyncio.get_running_loop().time() + self.config.disconnect_grace
            )

    def _expel(self, player_id: str) -> None:
        """A banned player's seats: a bot's now in a match (an abandon: a loss for them),
        free in a table still waiting."""
        for seat, held in enumerate(self.seats):
            if held.kind != "human" or held.player_id != player_id:
                continue
            if self.status == "waiting":
                self.seats[seat] = Seat()
                self._emit({"kind": "stood", "seat": seat})
            elif self.status == "playing":
                self.deadlines.reconnect.pop(seat, None)
                self._set_away(seat, True, "banned")

    def _seat_of(self, client: Peer) -> int | None:
        return self.seating.seat_of(client.player)

    def _connected(self, seat: int) -> bool:
        return any(self._seat_of(c) == seat for c in self.clients)

    # ------------------------------------------------------------------ rematch
    def _answer_rematch(self, client: Peer, accept: bool) -> None:
        """A player's answer to a rematch: the new table is made once every person
        seated accepted (bots stay in their seats); a refusal ends the offer."""
        offer = self.rematch
        if self.status != "finished" or self.on_rematch is None:
            raise TableError("not_over")
        seat = self._seat_of(client)
        if seat is None:
            raise TableError("not_seated")
        if offer.closed is not None:
            raise TableError("rematch_closed")
        if offer.table is not None or offer.making:
            return  # made, or being made: nothing to answer
        if not accept:
            self._close_rematch(seat, "declined")
            return
        if seat in offer.accepted:
            return
        offer.accepted.add(seat)
        self._emit({"kind": "rematch", "accepted": sorted(offer.accepted)})
        people = {i for i, s in enumerate(self.seats) if s.kind == "human"}
        if people <= offer.accepted:
            offer.making = True
            offer.task = spawn(self._make_rematch(), f"table-{self.id}-rematch")

    def _close_rematch(self, seat: int, why: str) -> None:
        """``seat`` refused the rematch (or left the finished table) before it was made."""
        offer = self.rematch
        if offer.closed is not None or offer.table is not None or offer.making:
            return
        offer.closed = why
        self._emit({"kind": "rematch", "accepted": sorted(offer.accepted), why: seat})

    async def _make_rematch(self) -> None:
        assert self.on_rematch is not None
        made: RematchMade
        try:
            table = await self.on_rematch(self)
            made = RematchMade(table.id)
        except TableError as exc:
            made = RematchMade(None, exc.code)
        except Exception:  # the database away, the server stopping: said, not raised
            log.exception("table %s: the rematch could not be made", self.id)
            made = RematchMade(None, "rematch_failed")
        await self.inbox.put(made)

    def _rematch_made(self, made: RematchMade) -> None:
        offer = self.rematch
        offer.making = False
        offer.table = made.table
        if made.table is None:
            offer.closed = "failed"
            body: dict[str, Any] = {"kind": "rematch", "failed": made.refused}
        else:
            body = {"kind": "rematch", "table": made.table}
        self._emit({**body, "accepted": sorted(offer.accepted)})

    # ------------------------------------------------------------------ seating
    def _require_waiting(self) -> None:
        if self.status != "waiting":
            raise TableError("started")

    def _add_bot(self, client: Peer, seat: int, level: str) -> None:
        self.seating.require_creator(client.player)
        self._require_waiting()
        bot = self.seating.add_bot(seat, level)
        if self.bot_pool is not None:
            self.bot_pool.warm([bot])
        self._emit({"kind": "seated", "seat": seat, "name": self.seats[seat].name, "bot": level})
        self.start_if_full()

    def start_if_full(self) -> None:
        """Deal the first hand once every seat is taken."""
        if not self.seating.full():
            return
        first_mano = secrets.randbelow(self.rules.players)
        self.game = Game(self.rules, first_mano=first_mano, dealer=self.dealer)
        self.status = "playing"
        self._emit({"kind": "start", "first_mano": self.game.first_mano})
        self._publish_commitment()
        self._emit({"kind": "deal", "hand": self.game.hand_index, "mano": self.game.mano})
        self._after_move()

    def _set_away(self, seat: int, away: bool, why: str) -> None:
        if self.seats[seat].away == away:
            return
        self.seats[seat].away = away
        self._emit({"kind": "away", "seat": seat, "away": away, "why": why})
        if not away:
            self.deadlines.turn = None  # the returning player gets a fresh clock

    # ------------------------------------------------------------------ playing
    def _acting(self, client: Peer, token: str) -> tuple[int, Game, int]:
        """The seat, the game and the action of a client's ``token``, or the refusal."""
        seat = self._seat_of(client)
        if seat is None:
            raise TableError("not_seated")
        game = self.game
        if game is None or self.status != "playing":
            raise TableError("not_playing")
        try:
            action = parse_action(token)
        except ActionError:
            raise TableError("bad_action", given=repr(token)[:50]) from None
        return seat, game, action

    def _why(self, client: Peer, token: str) -> Refusal | None:
        """Why the client may not ``token`` now (``None``: it may); changes nothing."""
        try:
            seat, game, action = self._acting(client, token)
        except TableError as exc:
            return exc.refusal
        if is_play(action) and not game.on_turn(seat):
            return self._why_no_commit(game, seat, action)
        if action in game.legal_actions(seat):
            return None
        return game.why_illegal(seat, action)

    def _act(self, client: Peer, token: str, chosen_at: int | None = None) -> None:
        seat, game, action = self._acting(client, token)
        if chosen_at is not None and chosen_at != self.version:
            raise TableError("stale", given=chosen_at, version=self.version)
        if self.seats[seat].away:
            self._set_away(seat, False, "back")
        if is_play(action) and not game.on_turn(seat):
            self._commit(game, seat, action)
            return
        try:
            self._apply(seat, action, "player")
        except IllegalAction as exc:
            raise TableError(exc.refusal) from None

    def _why_no_commit(self, game: Game, seat: int, card: int) -> Refusal | None:
        if not game.holds(seat, card):
            return Refusal.of("card_not_held", card=card_name(card))
        if seat in self.committed:
            return Refusal.of("card_committed", card=card_name(self.committed[seat]))
        return None

    def _commit(self, game: Game, seat: int, card: int) -> None:
        """A card released before its turn: it goes down when the turn comes."""
        refusal = self._why_no_commit(game, seat, card)
        if refusal is not None:
            raise TableError(refusal)
        self.committed[seat] = card
        self._emit({"kind": "committed", "seat": seat, "card": card_name(card)}, ("seat", seat))

    def _apply(self, seat: int, action: int, by: str) -> None:
        game = self.game
        assert game is not None
        hands = len(game.history)
        hand = game.hand_index
        game.apply(seat, action)
        ACTIONS.labels(by).inc()
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
                    **public_hand(game.history[-1]).to_json(),
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
        self.deadlines.turn = None

    def _bot_move(self, move: BotMove) -> None:
        self.bots_thinking.done(move)
        game = self.game
        if (
            game is None
            or self.status != "playing"
            or move.move != self.moves
            or not self.seating.bot_controls(move.seat)
            or move.action not in self._bot_legal(game, move.seat)
        ):
            return
        self.bots_thinking.played(move)
        self._apply(move.seat, move.action, "bot")

    def _bot_legal(self, game: Game, seat: int) -> list[int]:
        return self.bots_thinking.legal(game.legal_actions(seat), seat, self.moves)

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
        """The commitment of the hand being played (hashed once per hand)."""
        game = self.game
        if game is None or game.is_over:
            return None
        if self._fairness[0] != (game.hand_index, self.dealer.key):
            sealed = self.dealer.sealed(game.hand_index)
            public = None if sealed is None else {"hand": sealed.hand, **sealed.public()}
            self._fairness = ((game.hand_index, self.dealer.key), public)
        return self._fairness[1]

    # ------------------------------------------------------------------ timers, bots
    def _on_timers(self, now: float) -> None:
        idle = self.deadlines.idle_since
        if (
            self.status == "waiting"
            and idle is not None
            and now >= idle + self.config.abandon_after
        ):
            self.status = "abandoned"  # nobody came: off the lobby, and not restored
            self._emit({"kind": "abandoned"})
        for seat in self.deadlines.reconnects_due(now):
            self._set_away(seat, True, "disconnected")
        if self.deadlines.turn_over(now) and self.game is not None:
            for seat in self.game.actors():
                if self.seats[seat].kind == "human":
                    self._set_away(seat, True, "clock")

    def _settle(self) -> None:
        """After each message: committed cards, the clock, bots."""
        game = self.game
        if game is not None and self.status == "playing":
            self._play_committed(game)
            self._run_clock(game)
            self._wake_bot(game)

    def _play_committed(self, game: Game) -> None:
        progress = True
        while progress and self.status == "playing":
            progress = False
            for seat, card in list(self.committed.items()):
                if not game.holds(seat, card):
                    del self.committed[seat]
                elif game.on_turn(seat) and card in game.legal_actions(seat, megaphone=False):
                    self._apply(seat, card, "committed")
                    progress = True
                    break

    def _run_clock(self, game: Game) -> None:
        if self.turn_seconds <= 0 or self.deadlines.turn is not None:
            return
        if self.seating.humans(game.actors()):
            self.deadlines.start_turn(asyncio.get_running_loop().time(), self.turn_seconds)

    def _wake_bot(self, game: Game) -> None:
        if self.bots_thinking.thinking == self.moves or self.seating.humans(game.actors()):
            return
        seats = [s for s in game.actors() if self.seating.bot_controls(s)]
        if seats:
            self.bots_thinking.wake(seats[0], self.moves, self._bot_question)

    def _bot_question(self, seat: int, move: int) -> tuple[Bot, SeatView, list[int]] | None:
        """What the bot of ``seat`` decides on now (the partners' latest words included);
        None if the move it was woken for is gone."""
        game = self.game
        if (
            game is None
            or self.status != "playing"
            or self.moves != move
            or not self.seating.bot_controls(seat)
        ):
            return None
        bot = self.seating.bot_of(seat, self.config.cover_bot)
        return bot, seat_view(game, seat), self._bot_legal(game, seat)

    # ------------------------------------------------------------------ events, views
    def _emit(self, body: dict[str, Any], audience: Audience = EVERYONE) -> None:
        self.log.emit(body, audience)

    def summary(self) -> dict[str, Any]:
        """The table as the lobby and every client see it (no cards); while a commit is
        in flight, as it was at the last one.

        Built once per state of the table and kept (the lobby's listing, a table's page,
        each round and the create ask for it): the same dict comes back until something it
        shows changes, its key being all of that (the version, the status, the seats and
        who is connected in them); with a turn clock running (its time left changes by
        itself) it is built every time."""
        if self.durability.persisting and self._summary:
            return self._summary
        here = {c.player.id for c in self.clients if c.player is not None}
        shown = tuple(
            (
                seat.kind,
                seat.player_id,
                seat.name,
                seat.bot,
                seat.away,
                seat.player_id in here,
                seat.account,
            )
            for seat in self.seats
        )
        game = self.game
        winner = game.winner if game is not None and game.is_over else None
        fairness = self._fairness_summary()  # (the same dict while the hand is the same)
        key = (self.version, self.status, shown, winner)
        kept = self._summary_kept  # (None while a turn clock runs)
        if (
            kept is not None
            and kept[0][1:] == key[1:]
            and kept[1]["fairness"] is fairness
            and (self.deadlines.turn is None or game is None)
        ):
            if kept[0][0] == key[0]:
                return kept[1]
            # only the version moved (most rounds): the kept one with the new version (the
            # same keys in the same order; its seats, never changed in place, are shared)
            summary = {**kept[1], "version": self.version}
            self._summary_kept = (key, summary)
            return summary
        seats = [
            {
                "seat": i,
                "team": i & 1,
                "kind": kind,
                "name": name,
                "bot": bot,
                "away": away,
                "connected": kind == "bot" or (kind == "human" and connected),
                "account": account,
            }
            for i, (kind, _, name, bot, away, connected, account) in enumerate(shown)
        ]
        clock = None
        if self.deadlines.turn is not None and game is not None:
            now = asyncio.get_running_loop().time()
            clock = {
                "actors": self.seating.humans(game.actors()),
                "remaining": round(self.deadlines.remaining(now), 2),
                "total": self.deadlines.turn_total,
            }
        summary = {
            "id": self.id,
            "name": self.name,
            "rules": self._rules_json,
            "describe": self._describe,
            "status": self.status,
            "creator": self.creator,
            "turn_seconds": self.turn_seconds,
            "rated": self.rated,
            "seats": seats,
            "clock": clock,
            "version": self.version,
            "winner": winner,
            "fairness": fairness,
        }
        self._summary_kept = None if clock is not None else (key, summary)
        return summary

    def _hand_story(self) -> dict[str, Any] | None:
        """The last closed hand explained in every language: told once per hand."""
        game = self.game
        if game is None or not game.history:
            return None
        if self._story is None or self._story["index"] != game.history[-1].index:
            names = seat_names(self.seats)
            story = explain_last_hand(game.history, names, self.rules.target)
            self._story = {**story, "bazas": closed_bazas(game.history[-1], self.rules.players)}
        return self._story

    def _round(self) -> Round:
        self._summary = self.summary()
        return Round(
            self.fanout, self.log, self._summary, self.game, self.committed, self._hand_story
        )

    def _send(self, round: Round, client: Peer, since: int | None, answer: bool) -> None:
        frame = round.frame(client, self._seat_of(client), since, answer=answer)
        if frame is not None:
            client.send(frame)
        self.clients[client] = round.version

    def _broadcast(self, round: Round | None) -> None:
        """Send each client the events it has not seen (those it may see) and its view."""
        for client, sent in list(self.clients.items()):
            if sent < self.version:
                round = round or self._round()
                self._send(round, client, sent, False)

    # ------------------------------------------------------------------ persistence
    def _reply(self, client: Peer, message: Reply) -> None:
        """Answer ``client`` once this round's changes are durable (in order with its states)."""
        self._replies.append((client, message))

    async def _publish(self) -> None:
        """Commit what changed, then tell the clients: resyncs, new events, replies."""
        if self.store is not None:
            table = stored.table_json(self)
            write = self.durability.pending(self.log, self.game, table, self.status, self.snapshot)
            if write is not None and not await self.durability.commit(write, table, self.status):
                return  # not durable: nobody hears of it (the next round writes it with its own)
        await self.durability.notify()
        round = None
        for client, since in self._resyncs:
            if client in self.clients:
                round = round or self._round()
                self._send(round, client, since, True)
        self._resyncs.clear()
        self._broadcast(round)
        if not self.clients:
            self._summary = self.summary()
        for client, message in self._replies:
            client.send(orjson.dumps(message if isinstance(message, dict) else message()).decode())
        self._replies.clear()

    async def until_durable(self) -> None:
        """Return once everything the table holds now is committed."""
        await self.durability.until(self.version)

    def snapshot(self) -> MatchRow:
        """The whole table as one row (a checkpoint of the journal)."""
        return stored.snapshot(self)

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
        table.log.events.extend(
            TableEvent(body["v"], (kind, who), body) for kind, who, body in row.events
        )
        stored.restore_match(table, row)
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
                    self.deadlines.reconnect[i] = now + self.config.disconnect_grace
