"""One live table, in parts with one job each.

- :mod:`.actor` — :class:`Table`: the inbox loop that owns the match and ties the parts;
- :mod:`.inbox` — the messages that change a table;
- :mod:`.clients` — :class:`Peer`, what a table sends to (the local :class:`Client`, or a proxy);
- :mod:`.events` — the event log and its audiences (who sees which event);
- :mod:`.fanout` — each connection's frames, shared work encoded once;
- :mod:`.seating` — seats, the creator's rights, the seats' bots;
- :mod:`.clock` — the turn clock, reconnect grace, idle tables;
- :mod:`.bots` — when and where bots think;
- :mod:`.durability` — write-ahead: commit before anything is sent;
- :mod:`.stored` — the table as a database row, and back.
"""

from .actor import Table
from .clients import Client, Peer
from .errors import TableError
from .events import EVERYONE, Audience, TableEvent
from .inbox import BotMove, Command, Join, Leave, Stop
from .seating import Seat, name_bots, seat_names
from .stored import resumed_dealer

__all__ = [
    "EVERYONE",
    "Audience",
    "BotMove",
    "Client",
    "Command",
    "Join",
    "Leave",
    "Peer",
    "Seat",
    "Stop",
    "Table",
    "TableError",
    "TableEvent",
    "name_bots",
    "resumed_dealer",
    "seat_names",
]
