"""Connections that cross nodes: a player on one node (its *front*) at a table another node
runs (its *owner*).

On the owner, the table sees a :class:`RemoteClient` like any other client: what it sends
goes over the bus to the front. On the front, the socket's :class:`Route` passes the player's
join, commands and leave to the owner (or to the node's own table when it runs it), delivers
the frames that come back, and follows the table when it moves to another node: it joins
there again from the last version it delivered, so the player resyncs without reconnecting.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from ...refusals import Refusal
from ..people.players import Player
from ..protocol import error_message
from ..table import Client, Command, Join, Leave
from ..tasks import spawn

if TYPE_CHECKING:
    from ..table import Table
    from .bus import Bus
    from .lease import Leases

log = logging.getLogger("truco.server.cluster")
_ids = itertools.count(1)

#: what a player is told when a command meets a table between two nodes
MOVING = error_message(Refusal.of("moving"))
MOVING_FRAME = json.dumps(MOVING)
#: commands a socket may send while its table is being found (more: "moving" at once)
HELD_COMMANDS = 16


def player_json(player: Player | None) -> list[Any] | None:
    return None if player is None else [player.id, player.name, player.expires]


def player_of(data: list[Any] | None) -> Player | None:
    return None if data is None else Player(str(data[0]), str(data[1]), float(data[2]))


class RemoteClient(Client):
    """On the owner: a connection held by another node. Each frame goes to that node tagged
    with the table's version (what its client has then seen, for a resync elsewhere)."""

    def __init__(self, player: Player | None, conn: str, front: str, bus: Bus, table: Table):
        super().__init__(player, 1)
        self.conn = conn
        self.front = front
        self.bus = bus
        self.table = table
        #: the table is leaving this node: the front should follow it, not close the socket
        self.moving = False

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else orjson.dumps(message).decode()
        self.bus.send(
            self.front,
            {"k": "out", "c": self.conn, "x": text, "v": self.table.version, "n": self.bus.node},
        )

    def close(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        kind = "gone" if self.moving else "close"
        self.bus.send(self.front, {"k": kind, "c": self.conn, "r": reason, "n": self.bus.node})


class FrontLobby(Protocol):
    """What a :class:`Route` asks of its node's lobby (:class:`~.node.ClusterLobby`)."""

    node: str
    bus: Bus
    leases: Leases
    routes: dict[str, Route]
    tables: dict[str, Table]
    find_seconds: float
    stopping: bool

    async def alive(self, node: str) -> bool: ...

    async def listed(self, table_id: str) -> bool: ...

    async def take_over(self, table_id: str) -> Table | None: ...


class Route:
    """On the front: where one socket's messages go (see the module's docstring). It offers
    the ``put`` of a table's inbox, which is all the socket handler uses."""

    def __init__(self, lobby: FrontLobby, table_id: str) -> None:
        self.lobby = lobby
        self.table_id = table_id
        self.conn = f"{lobby.node}/{next(_ids)}"
        self.client: Client | None = None  # a socket of this node
        self.local: Table | None = None  # the table, when this node runs it
        self.owner: str | None = None  # else the node that does (None: being found)
        self.version: int | None = None  # the last version delivered to the client
        self.left = False
        self.unanswered = False  # a command went to the owner and nothing came back since
        self.held: list[Command] = []  # commands that came while the table was being found
        self._finding: asyncio.Task[None] | None = None

    async def put(self, message: Join | Leave | Command) -> None:
        if isinstance(message, Join):
            assert isinstance(message.client, Client)  # a front routes its own sockets
            self.client, self.version = message.client, message.since
            await self._find_or_close()
        elif isinstance(message, Leave):
            self.left = True
            self.lobby.routes.pop(self.conn, None)
            if self._finding is not None:
                self._finding.cancel()
            if self.local is not None:
                await self.local.inbox.put(message)
            elif self.owner is not None:
                self.lobby.bus.send(self.owner, {"k": "leave", "c": self.conn})
        elif self.local is not None:
            await self.local.inbox.put(message)
        elif self.owner is not None:
            self._forward(message)
        elif len(self.held) < HELD_COMMANDS:
            # being found: it goes where the table runs once it is found (a client told
            # "moving" at once would only send it again and again until then)
            self.held.append(message)
        else:
            message.client.send(MOVING_FRAME)

    def _forward(self, message: Command) -> None:
        assert self.owner is not None
        text = message.message.model_dump_json()
        self.lobby.bus.send(self.owner, {"k": "cmd", "c": self.conn, "m": text})
        self.unanswered = True

    async def _release_held(self) -> None:
        """The commands that came while the table was being found, where it runs now."""
        held, self.held = self.held, []
        for message in held:
            if self.local is not None:
                await self.local.inbox.put(message)
            elif self.owner is not None:
                self._forward(message)

    # ------------------------------------------------------------------ following the table
    def deliver(self, message: dict[str, Any]) -> None:
        """A message of the owner for this connection."""
        assert self.client is not None
        kind = message["k"]
        if kind == "out":
            self.client.send(message["x"])
            self.version = int(message["v"])
            self.unanswered = False
        elif kind == "close":
            self.client.close(str(message["r"]))
        elif kind == "gone":
            self.follow()

    def follow(self) -> None:
        """The owner is gone or no longer runs the table: find where it runs now."""
        if self.left or self._finding is not None:
            return
        if self.unanswered and self.client is not None:  # it may be lost: not acknowledged
            self.client.send(MOVING_FRAME)
            self.unanswered = False
        if self.owner is not None:  # if it is alive and still runs the table: we are gone
            self.lobby.bus.send(self.owner, {"k": "leave", "c": self.conn})
        self.owner = self.local = None
        self._finding = spawn(self._refind(), name=f"refind-{self.conn}")

    async def _refind(self) -> None:
        try:
            await self._find_or_close()
            await self._release_held()
        finally:
            self.held.clear()
            self._finding = None

    async def _find_or_close(self) -> None:
        try:
            await self._find()
        except Exception:  # Redis or the database away: the client reconnects and tries again
            log.exception("cannot find where table %s runs now", self.table_id)
            if self.client is not None:
                self.client.close("the table's server does not answer: try again")

    async def _find(self) -> None:
        """Join the table where it runs: here (taking it over if nobody holds it), or on its
        owner. Waits while its lease belongs to a node that is gone."""
        lobby, client = self.lobby, self.client
        assert client is not None
        deadline = asyncio.get_running_loop().time() + lobby.find_seconds
        while not self.left and not client.closed:
            if lobby.stopping:  # (its player reconnects to another node)
                client.close("the server is stopping")
                return
            table = lobby.tables.get(self.table_id)
            if table is not None:
                self.local = table
                await table.inbox.put(Join(client, self.version))
                return
            owner = (await lobby.leases.owners([self.table_id]))[0]
            if owner is None:
                if await lobby.take_over(self.table_id) is not None:
                    continue
                if not await lobby.listed(self.table_id):
                    client.close("the table is over or gone: see the lobby")
                    return
            elif owner[0] != lobby.node and await lobby.alive(owner[0]):
                self.owner = owner[0]
                lobby.routes[self.conn] = self
                lobby.bus.send(
                    self.owner,
                    {
                        "k": "join",
                        "t": self.table_id,
                        "c": self.conn,
                        "f": lobby.node,
                        "p": player_json(client.player),
                        "s": self.version,
                    },
                )
                return
            if asyncio.get_running_loop().time() > deadline:
                client.close("the table's server does not answer: try again")
                return
            await asyncio.sleep(0.1)
