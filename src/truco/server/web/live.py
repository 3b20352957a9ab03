"""The live table's WebSocket, ``/ws/{table}``: who connects, then frames both ways.

A connection says who it is before it joins: the page's session cookie does it by
itself; any other client sends ``{"type": "hello", "token": ..., "since": ...}`` as
its first message (no token: a spectator). A token in the URL is refused (URLs end up
in logs). Everything a client can get wrong ends in an ``error`` frame, or for what
cannot go on (no such table, a bad token, a bad first message) in a close frame with a
code and a short reason: see ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import Any, Protocol

import orjson
from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from ...refusals import Param, Refusal
from ..config import ServerConfig
from ..guards.limits import TokenBucket
from ..guards.socket_caps import TOO_MANY_SOCKETS
from ..lobby.tables import Inbox
from ..people.players import Player
from ..people.sessions import COOKIE, same_origin
from ..protocol import Hello, ProtocolError, close_reason, error_message, parse_client_message
from ..table import Client, Command, Join, Leave
from ..tasks import spawn
from .deps import ID_RE, Server, server_of

#: the table's socket is ``/ws/{table}`` (``/ws/queue``, quick match's, is routed before it)
router = APIRouter()

#: close codes after which a client should not try again with the same request
BAD_REQUEST, BAD_TOKEN, NO_TABLE, HELLO_TIMEOUT, MATCH_OVER = 4400, 4401, 4404, 4408, 4410
#: how long a new connection's frames wait for its first state to go out
GREETING_SECONDS = 30.0


class Refused(Exception):
    """Refuse the connection: an ``error`` frame with the ``refusal`` (a registered code and
    its params), then a close with the close ``code`` and the English ``reason``."""

    def __init__(self, code: int, refusal: str | Refusal, **params: Param) -> None:
        self.refusal = refusal if isinstance(refusal, Refusal) else Refusal.of(refusal, **params)
        super().__init__(self.refusal.reason)
        self.code = code
        self.reason = self.refusal.reason


async def refuse(websocket: Any, refused: Refused) -> None:
    """Say why (an ``error`` frame), then close: a client that reads frames words the
    refusal from its code; the close frame's reason is the English sentence."""
    with contextlib.suppress(OSError, RuntimeError, WebSocketDisconnect):  # it went away
        await websocket.send_text(orjson.dumps(error_message(refused.refusal)).decode())
        await websocket.close(refused.code, close_reason(refused.reason))


class Handshake(Protocol):
    """What identifying a connection reads of it (Starlette's ``WebSocket``)."""

    @property
    def query_params(self) -> Mapping[str, str]: ...
    @property
    def cookies(self) -> Mapping[str, str]: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    async def receive(self) -> Mapping[str, Any]: ...


@router.websocket("/ws/{table_id}")
async def table_route(websocket: WebSocket, table_id: str) -> None:
    """The table's socket (see the module)."""
    await table_socket(websocket, server_of(websocket), table_id)


def _since(text: str | None) -> int | None:
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 15):
        raise Refused(BAD_REQUEST, "bad_since")
    return int(text)


async def _hello(websocket: Handshake, config: ServerConfig) -> Hello | None:
    """The first message of a client without the cookie (``None``: it went away)."""
    try:
        async with asyncio.timeout(config.hello_seconds):  # no task, unlike wait_for
            frame = await websocket.receive()
    except TimeoutError:
        raise Refused(HELLO_TIMEOUT, "no_hello") from None
    if frame["type"] == "websocket.disconnect":
        return None
    text = frame.get("text")
    if text is None or len(text) > config.max_message_bytes:
        raise Refused(BAD_REQUEST, "hello_first")
    try:
        message = parse_client_message(text)
    except ProtocolError as exc:
        raise Refused(BAD_REQUEST, exc.refusal) from None
    if not isinstance(message, Hello):
        raise Refused(BAD_REQUEST, "hello_first")
    return message


async def _identify(
    websocket: Any, server: Server | None = None
) -> tuple[Player | None, int | None] | None:
    """Who the connection speaks for and the version it last saw; ``None`` if it left.
    ``websocket`` is a :class:`Handshake`; ``server`` is its app's unless given."""
    server = server or server_of(websocket)
    since = _since(websocket.query_params.get("since"))
    cookie = websocket.cookies.get(COOKIE) if same_origin(websocket.headers) else None
    if cookie:
        player = await server.sessions.player(cookie)
        if player is None:
            raise Refused(BAD_TOKEN, "bad_session")
        return player, since
    hello = await _hello(websocket, server.config)
    if hello is None:
        return None
    player = await server.sessions.player(hello.token) if hello.token else None
    if hello.token and player is None:
        raise Refused(BAD_TOKEN, "bad_token")
    return player, hello.since if hello.since is not None else since


async def table_socket(websocket: WebSocket, server: Server, table_id: str) -> None:
    """One connection to the table ``table_id``: who it is, then frames both ways."""
    try:
        await websocket.accept()
    except (WebSocketDisconnect, RuntimeError, OSError):  # it went away during the handshake
        return
    try:
        if not ID_RE.fullmatch(table_id):
            raise Refused(BAD_REQUEST, "bad_table_code")
        if "token" in websocket.query_params:
            raise Refused(BAD_REQUEST, "token_in_url")
        _since(websocket.query_params.get("since"))  # a bad one is refused before anything
        inbox = await server.lobby.route(table_id)
        if inbox is None:
            finished = await asyncio.to_thread(server.store.load, match_id=table_id, limit=1)
            if finished and finished[0].status == "finished":
                raise Refused(MATCH_OVER, "match_over_replay", table=table_id)
            raise Refused(NO_TABLE, "no_table", table=table_id)
        who = await _identify(websocket, server)
    except Refused as refused:
        await refuse(websocket, refused)
        return
    except WebSocketDisconnect:
        return
    if who is None:
        return
    player, since = who
    if player is not None:
        refusal = await server.sockets.admit("player", player.id)
        if refusal is not None:
            with contextlib.suppress(OSError, RuntimeError, WebSocketDisconnect):
                await websocket.close(TOO_MANY_SOCKETS, close_reason(refusal))
            return
    try:
        await _connected(websocket, server, table_id, inbox, player, since)
    finally:
        if player is not None:
            await server.sockets.release("player", player.id)


async def _connected(
    websocket: WebSocket,
    server: Server,
    table_id: str,
    inbox: Inbox,
    player: Player | None,
    since: int | None,
) -> None:
    """An identified connection to a table: it joins, then frames go both ways."""
    greeted = asyncio.Event()
    client = Client(player, server.config.outbox_size)
    # a session that ends (logged out here or on another node, expired) closes the socket
    server.sessions.watch(player, client)
    sender = spawn(_send_loop(websocket, client, greeted), f"ws-send-{table_id}")
    await inbox.put(Join(client, since))
    try:
        # the first state goes out before any frame is read: a client that floods from
        # its first message still gets it, then the rate limit
        with contextlib.suppress(TimeoutError):  # a table that never answers: read anyway
            async with asyncio.timeout(GREETING_SECONDS):
                await greeted.wait()
        await _receive_loop(websocket, client, inbox, server.config)
    finally:
        server.sessions.unwatch(player, client)
        await inbox.put(Leave(client))
        if not client.closed:
            client.close("bye")
        try:
            async with asyncio.timeout(5):
                await sender
        except TimeoutError:
            sender.cancel()


async def _send_loop(websocket: WebSocket, client: Client, greeted: asyncio.Event) -> None:
    """Write the client's outbox to the socket, one frame at a time: each write waits
    while the server's buffer for a client that does not read is full (uvicorn's flow
    control), so such a client's outbox fills and it is closed (:data:`.table.TOO_SLOW`).
    ``None`` closes the socket with the reason. ``greeted`` is set once the first frame
    is written (or the loop ends)."""
    try:
        while True:
            text = await client.outbox.get()
            if text is None:
                code = 1001 if client.close_reason.startswith("the server") else 1008
                if client.close_reason == "bye":
                    code = 1000
                await websocket.close(code, close_reason(client.close_reason))
                return
            await websocket.send_text(text)
            greeted.set()
    except (WebSocketDisconnect, RuntimeError, OSError):
        return
    finally:
        greeted.set()


def _size(frame: Mapping[str, Any]) -> tuple[str | None, int]:
    text = frame.get("text")
    if text is None:
        return None, len(frame.get("bytes") or b"")
    return text, len(text.encode(errors="replace"))


class _Frames:
    """A connection's frames, checked for size, rate and shape, as commands of its table."""

    def __init__(self, client: Client, config: ServerConfig) -> None:
        self.client = client
        self.config = config
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst, time.monotonic())
        self.strikes = 0

    def check(self, frame: Mapping[str, Any]) -> Command | None:
        """The command of one ``websocket.receive`` message, or None (an error was sent,
        or the client is closed for flooding)."""
        client, config = self.client, self.config
        if client.closed:
            return None
        text, size = _size(frame)
        if not self.bucket.allow(time.monotonic()):
            self.strikes += 1
            if self.strikes >= config.max_flood_strikes:
                client.close("flooding: too many messages")
                return None
            client.send(
                error_message(Refusal.of("rate_limited", rate=f"{config.rate_per_second:g}"))
            )
            return None
        if size > config.max_message_bytes:
            client.send(
                error_message(Refusal.of("too_large", size=size, limit=config.max_message_bytes))
            )
            return None
        if text is None:
            client.send(error_message(Refusal.of("bad_json")))
            return None
        try:
            message = parse_client_message(text)
        except ProtocolError as exc:
            client.send(error_message(exc.refusal))
            return None
        if isinstance(message, Hello):
            client.send(error_message(Refusal.of("hello_once")))
            return None
        return Command(client, message)


async def _receive_loop(
    websocket: WebSocket,
    client: Client,
    inbox: Inbox,
    config: ServerConfig,
) -> None:
    """Read frames, check size, rate and shape, and pass commands to the table. The
    server reads no further frame of the client until this loop asks for it (uvicorn
    pauses reading while a message waits)."""
    frames = _Frames(client, config)
    while not client.closed:
        try:
            frame = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        command = frames.check(frame)
        if command is not None:
            await inbox.put(command)
