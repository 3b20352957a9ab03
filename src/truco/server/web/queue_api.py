"""Quick match over the wire: ``/ws/queue`` waits in a queue, ``GET /api/queue``
counts who waits.

A connection to ``/ws/queue?queue=1v1-sinflor-15-rated`` (casual queues may add
``&bots_after=30``, or ``&bots_after=never`` to wait only for people; nothing said,
bots fill a casual table after ``ServerConfig.quick_bots_after``) is a ticket: it says
who it is like a table's socket (the page's cookie, or a ``hello`` with the token),
gets ``{"type": "queued", ...}``, then ``{"type": "waiting", ...}`` every few seconds
and finally ``{"type": "matched",
"table": code}`` before the server closes it; the player is already seated there.
Sending ``{"type": "leave"}`` or closing the socket takes the ticket out. The
:class:`Matchmaker` pairs the queues (:mod:`.matchmaking`) twice a second and creates
each table through the lobby with its players seated (a rated table for a rated
queue). See ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from fastapi import APIRouter, Request, WebSocket
from starlette.websockets import WebSocketDisconnect

from ...refusals import Refusal
from ..lobby.matchmaking import MAX_BOTS_AFTER, Pairing, Policy, QueueError, QueueKey, Ticket
from ..metrics import QUEUE_WAIT_SECONDS
from ..people import fair_play, friends, moderation, ratings
from ..people.players import Player
from ..protocol import close_reason, error_message
from ..refusals import EVERY_ROUTE
from ..table import Seat, TableError
from ..tasks import spawn
from .deps import MaybePlayerDep, Server
from .live import BAD_REQUEST, BAD_TOKEN, Refused, _identify, refuse

log = logging.getLogger("truco.server")
router = APIRouter(responses=EVERY_ROUTE)

#: close codes of the queue's socket (beside those of the table's, see live.py)
MATCHED, ALREADY_QUEUED, NEEDS_ACCOUNT = 4000, 4409, 4403
#: what a guest counts as when nobody rates them
UNRATED = 1500.0
WAITING_EVERY = 3.0


class QueueBackend(Protocol):
    """Where the tickets wait: :class:`~.matchmaking.MemoryQueue` or
    :class:`~.redis_queue.RedisQueue`."""

    policy: Policy

    async def join(self, key: QueueKey, ticket: Ticket) -> None: ...
    async def leave(self, player_id: str) -> bool: ...
    async def waiting(self, player_id: str) -> QueueKey | None: ...
    async def counts(self) -> dict[str, int]: ...
    async def match(self, now: float) -> list[Pairing]: ...
    async def announce(self, player_id: str, table: str) -> None: ...
    async def announcement(self, player_id: str) -> str | None: ...
    async def close(self) -> None: ...


#: who a player is for a queue: an account or not, and their rating in a mode
Standing = Callable[[Server, Player, str], Awaitable[tuple[bool, float]]]


async def account_standing(server: Server, player: Player, mode: str) -> tuple[bool, float]:
    """An account's shown rating in ``mode`` (a new one's is 1500); a guest counts 1500."""
    if not player.account:
        return False, UNRATED

    def read() -> float:
        with server.store.engine.connect() as conn:
            return float(ratings.ratings_of(conn, player.id)[mode].to_json()["rating"])

    return True, await asyncio.to_thread(read)


class Matchmaker:
    """Pairs the queues every ``interval`` seconds and seats each pairing at a new
    table; tells each player where through the backend (any node may hold their
    socket)."""

    def __init__(
        self,
        server: Server,
        backend: QueueBackend,
        standing: Standing = account_standing,
        interval: float = 0.5,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.server = server
        self.backend = backend
        self.standing = standing
        self.interval = interval
        self.clock = clock
        self.task: asyncio.Task[None] | None = None
        self.stopping = False

    async def start(self) -> None:
        self.task = spawn(self._run(), name="matchmaker")

    async def stop(self) -> None:
        if self.task is not None:
            self.stopping = True
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None
        await self.backend.close()

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # a bad round (Redis away) must not end quick match
                log.exception("matchmaker: pairing failed, trying again")
            # a cancel that came during the round may have been swallowed by the Redis
            # client: without this, stop() waited for ever (a node never stopped)
            if self.stopping:
                return
            await asyncio.sleep(self.interval)

    async def tick(self) -> None:
        """One round: pair every queue, seat and announce each table."""
        for pairing in await self.backend.match(self.clock()):
            try:
                code = await self.seat(pairing)
            except TableError as exc:  # the lobby refuses (a cap): the players hear why
                log.warning("matchmaker: no table for %s: %s", pairing.names(), exc.reason)
                code = _no_table(exc.refusal)
            except Exception:  # never leave paired players waiting for a table that is not coming
                log.exception("matchmaker: no table for %s", pairing.names())
                code = _no_table(Refusal.of("table_not_made"))
            for ticket in pairing.tickets():
                await self.backend.announce(ticket.player_id, code)

    async def seat(self, pairing: Pairing) -> str:
        """A new table through the lobby with the pairing's players seated (bots in
        the seats without one; a rated table for a rated queue); its code once it is
        durable."""
        key = pairing.key
        refusal = await asyncio.to_thread(self._refusal, pairing)
        if refusal is not None:
            raise TableError(refusal)
        people = {
            s: Player(t.player_id, t.name, account=key.rated)
            for s, t in enumerate(pairing.seats)
            if t is not None
        }
        # no name: each page words a quick-match table in its own language
        if len(people) == key.players:
            table = self.server.lobby.create_match(
                [people[s] for s in range(key.players)], key.rules(), rated=key.rated, quick=True
            )
        else:  # casual, bots in the seats balance put them in (not only the last ones)
            bots = {s: self.server.config.cover_bot for s in range(key.players) if s not in people}
            first = min(people)
            table = self.server.lobby.create(
                people[first], key.rules(), "", bots=bots, seat=first, quick=True
            )
            # nothing awaited since create: the table's actor has not run yet
            for seat, player in people.items():
                table.seats[seat] = Seat("human", player.id, player.name, account=player.account)
            table.start_if_full()
        await self.server.lobby.made(table)
        return table.id

    def _refusal(self, pairing: Pairing) -> str | None:
        """Why the pairing gets no table: a banned player's ticket that was still waiting
        (``table_not_made``: the others queue again), or for a rated queue a fair-play
        rule (:mod:`.fair_play`)."""
        ids = [t.player_id for t in pairing.tickets()]
        with self.server.store.engine.connect() as conn:
            if moderation.any_banned(conn, ids):
                return "table_not_made"
            if not pairing.key.rated:
                return None
            teams = [
                [
                    t.player_id
                    for s, t in enumerate(pairing.seats)
                    if t is not None and s % 2 == team
                ]
                for team in (0, 1)
            ]
            return fair_play.rated_refusal(
                conn, fair_play.FairPlay.of(self.server.config), teams, time.time()
            )


def matchmaker_of(websocket: WebSocket) -> Matchmaker:
    matchmaker: Matchmaker = websocket.app.state.matchmaker
    return matchmaker


@router.get("/api/queue")
async def queue_counts(request: Request, player: MaybePlayerDep) -> dict[str, Any]:
    """How many wait in each queue, and in which one you wait (if you do)."""
    matchmaker: Matchmaker = request.app.state.matchmaker
    mine = await matchmaker.backend.waiting(player.id) if player else None
    return {"queues": await matchmaker.backend.counts(), "waiting": str(mine) if mine else None}


def _no_table(refusal: Refusal) -> str:
    """What the players paired for a table that could not be made are announced: ``!``
    and the refusal as JSON (an announcement is otherwise a table code)."""
    return "!" + json.dumps({"code": refusal.code, "params": refusal.params})


def _announced_refusal(announcement: str) -> Refusal:
    try:
        data = json.loads(announcement[1:])
        return Refusal.of(data["code"], **data["params"])
    except (ValueError, KeyError, TypeError):  # a node of an older version: its words lost
        return Refusal.of("table_not_made")


def _bots_after(text: str | None, key: QueueKey, default: float) -> float | None:
    """The ticket's wait before bots: ``never`` waits for people; nothing said, the
    server's default for a casual queue."""
    if text is None or text == "":
        return None if key.rated else default
    if text == "never":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= MAX_BOTS_AFTER:
        raise Refused(BAD_REQUEST, "bad_bots_after", limit=f"{MAX_BOTS_AFTER:g}")
    if key.rated:
        raise Refused(BAD_REQUEST, "rated_no_bots_after")
    return seconds


async def _ticket(websocket: WebSocket, matchmaker: Matchmaker) -> tuple[QueueKey, Ticket] | None:
    """The connection's queue and ticket (``None``: it went away before saying who)."""
    params = websocket.query_params
    if "token" in params:
        raise Refused(BAD_REQUEST, "token_in_url")
    queue = params.get("queue", "")
    try:
        key = QueueKey.parse(queue)
    except QueueError:
        raise Refused(BAD_REQUEST, "no_queue", queue=repr(queue[:40])) from None
    bots_after = _bots_after(
        params.get("bots_after"), key, matchmaker.server.config.quick_bots_after
    )
    who = await _identify(websocket)
    if who is None:
        return None
    player = who[0]
    if player is None:
        raise Refused(BAD_TOKEN, "queue_needs_session")
    account, rating = await matchmaker.standing(matchmaker.server, player, key.mode)
    if key.rated and not account:
        raise Refused(NEEDS_ACCOUNT, "queue_needs_account")
    avoid = frozenset[str]()
    if key.rated:  # never paired with whom the fair-play rules would refuse a rated match
        avoid = await asyncio.to_thread(_kept_apart, matchmaker.server, player.id)
    elif player.account:  # casual: never seated with whom a block parts
        avoid = await asyncio.to_thread(friends.avoided, matchmaker.server.store.engine, player.id)
    return key, Ticket(player.id, player.name, rating, matchmaker.clock(), bots_after, avoid)


def _kept_apart(server: Server, account_id: str) -> frozenset[str]:
    with server.store.engine.connect() as conn:
        rules = fair_play.FairPlay.of(server.config)
        return fair_play.kept_apart(conn, rules, account_id, time.time())


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    await websocket.send_text(json.dumps(message))


@router.websocket("/ws/queue")
async def queue_socket(websocket: WebSocket) -> None:
    matchmaker = matchmaker_of(websocket)
    await websocket.accept()
    try:
        ticket = await _ticket(websocket, matchmaker)
        if ticket is None:
            return
        key, mine = ticket
        try:
            await matchmaker.backend.join(key, mine)
        except QueueError as exc:
            raise Refused(ALREADY_QUEUED, "already_queued", queue=exc.queue) from None
    except Refused as refused:
        await refuse(websocket, refused)
        return
    except WebSocketDisconnect:
        return
    try:
        await _wait(websocket, matchmaker, key, mine)
    finally:
        await matchmaker.backend.leave(mine.player_id)  # gone: out of the queue


async def _wait(websocket: WebSocket, matchmaker: Matchmaker, key: QueueKey, mine: Ticket) -> None:
    """Tell the player about their wait until they are seated, leave or go away."""
    policy = matchmaker.backend.policy
    await _send(websocket, {"type": "queued", "queue": str(key), "rating": mine.rating})
    listener = spawn(_until_leave(websocket), name="queue-listener")
    last_news = 0.0
    try:
        while not listener.done():
            table = await matchmaker.backend.announcement(mine.player_id)
            if table is not None:
                QUEUE_WAIT_SECONDS.observe(matchmaker.clock() - mine.joined_at)
                await _seated(websocket, table, key)
                return
            now = matchmaker.clock()
            if now - last_news >= WAITING_EVERY:
                last_news = now
                waited = now - mine.joined_at
                await _send(
                    websocket,
                    {
                        "type": "waiting",
                        "seconds": round(waited, 1),
                        "window": round(min(policy.window(waited), 1e9), 1),
                    },
                )
            await asyncio.wait({listener}, timeout=min(0.25, matchmaker.interval))
    except (WebSocketDisconnect, RuntimeError, OSError):
        return
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
            await listener
    if listener.cancelled() or listener.exception() or listener.result() != "leave":
        return  # gone: the caller takes the ticket out
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        if await matchmaker.backend.leave(mine.player_id):
            await _send(websocket, {"type": "left", "queue": str(key)})
            await websocket.close(1000, "left the queue")
            return
        # paired in the same instant: the table is being made, the seat is theirs
        deadline = matchmaker.clock() + 35
        while (table := await matchmaker.backend.announcement(mine.player_id)) is None:
            if matchmaker.clock() > deadline:
                await _refuse(websocket, Refusal.of("table_not_made"))
                return
            await asyncio.sleep(0.1)
        await _seated(websocket, table, key)


async def _seated(websocket: WebSocket, table: str, key: QueueKey) -> None:
    """Tell the player the table they sit at (or why none could be made), and close."""
    if table.startswith("!"):
        await _refuse(websocket, _announced_refusal(table))
        return
    await _send(websocket, {"type": "matched", "table": table, "queue": str(key)})
    await websocket.close(MATCHED, "matched")


async def _refuse(websocket: WebSocket, refusal: Refusal) -> None:
    """Say why in an ``error`` frame, then close."""
    await _send(websocket, error_message(refusal))
    await websocket.close(BAD_REQUEST, close_reason(refusal.reason))


async def _until_leave(websocket: WebSocket) -> str:
    """Read the client's frames until it leaves (``"leave"``) or goes away."""
    while True:
        try:
            frame = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return "gone"
        if frame["type"] == "websocket.disconnect":
            return "gone"
        try:
            message = (
                json.loads(frame.get("text") or "null")
                if len(frame.get("text") or "") < 200
                else None
            )
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("type") == "leave":
            return "leave"
        await _send(websocket, error_message(Refusal.of("queue_takes_leave")))
