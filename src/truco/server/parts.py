"""The parts of one running server, handed to its routes and to what they call."""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import ServerConfig
from .guards.socket_caps import SocketCaps
from .lobby.tables import Lobby
from .notices import Notices
from .people.session_store import Sessions
from .storage.store import Store


@dataclass(frozen=True, slots=True)
class Server:
    """The parts of one running server."""

    config: ServerConfig
    store: Store
    lobby: Lobby
    sessions: Sessions
    #: the sockets open per address and per player
    sockets: SocketCaps = field(default_factory=lambda: SocketCaps(0, 0))
    #: who listens for what changed (:mod:`.notices`)
    notices: Notices = field(default_factory=Notices)
