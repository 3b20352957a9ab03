"""The messages of a table's inbox: the only way anything changes a table."""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol import ClientMessage
from .clients import Peer

#: messages handled together, at most, before their changes are committed
GROUP_LIMIT = 256


@dataclass(slots=True)
class Join:
    """A connection joins; ``since``: the last version it saw (None: send everything)."""

    client: Peer
    since: int | None = None


@dataclass(slots=True)
class Leave:
    client: Peer


@dataclass(slots=True)
class Command:
    """A client's message (sit, act, sync...)."""

    client: Peer
    message: ClientMessage


@dataclass(slots=True)
class BotMove:
    """A bot's decision; ``action`` -1: nothing to do (the bot is only done thinking)."""

    seat: int
    action: int
    move: int  # the move counter the bot thought about


@dataclass(slots=True)
class RematchMade:
    """The rematch's new table is durable (``table``: its code), or could not be made
    (``refused``: the lobby's refusal code)."""

    table: str | None
    refused: str | None = None


@dataclass(slots=True)
class Expel:
    """A banned player (moderation): a bot takes their seat at once in a match being
    played; a table still waiting frees it."""

    player_id: str


@dataclass(slots=True)
class Stop:
    pass


Message = Join | Leave | Command | BotMove | RematchMade | Expel | Stop
