"""A table's summary (the lobby's listing, a table's page, each round's frame) is built once
per state of the table: the same one comes back while nothing it shows changes, and a new
one, equal to one built afresh, as soon as something does."""

from __future__ import annotations

import asyncio
from typing import Any

from server_testing import Proxy
from truco.rules import Rules
from truco.server.config import ServerConfig
from truco.server.people.players import Player
from truco.server.protocol import Act, Ping, Sit
from truco.server.table import Command, Join, Leave, Table


def fresh(table: Table) -> dict[str, Any]:
    """The summary built now, not the one kept."""
    table._summary_kept = None
    return table.summary()


def test_the_summary_changes_exactly_when_the_table_does() -> None:
    async def settled(table: Table, peer: Proxy) -> None:
        await table.inbox.put(Command(peer, Ping(type="ping")))
        await asyncio.wait_for(peer.pongs.get(), 10)

    async def main() -> None:
        config = ServerConfig(db_url="sqlite://", bot_delay=0)
        table = Table("t1", "t1", Rules(players=2), config, store=None, turn_seconds=0)
        ana, beto, watcher = Proxy(Player("a", "Ana")), Proxy(Player("b", "Beto")), Proxy(None)
        table.start()
        shown = [table.summary()]

        def unchanged() -> None:
            assert table.summary() is shown[-1] and shown[-1] == fresh(table)
            shown[-1] = table.summary()

        def changed() -> None:
            now = table.summary()
            assert now is not shown[-1] and now != shown[-1] and now == fresh(table)
            shown.append(table.summary())
            assert table.summary() is shown[-1]  # kept again

        unchanged()
        await table.inbox.put(Join(watcher))  # a spectator: nothing the summary shows
        await settled(table, watcher)
        unchanged()
        await table.inbox.put(Join(ana))
        await table.inbox.put(Command(ana, Sit(type="sit", seat=0)))
        await settled(table, ana)
        changed()
        assert shown[-1]["seats"][0]["connected"] and shown[-1]["seats"][0]["name"] == "Ana"
        await table.inbox.put(Leave(ana))  # Ana's seat is no longer connected
        await settled(table, watcher)
        changed()
        assert not shown[-1]["seats"][0]["connected"]
        await table.inbox.put(Join(ana))
        await table.inbox.put(Join(beto))
        await table.inbox.put(Command(beto, Sit(type="sit", seat=1)))
        await settled(table, ana)
        changed()
        assert shown[-1]["status"] == "playing"
        assert [s["connected"] for s in shown[-1]["seats"]] == [True, True]
        unchanged()
        actor = ana if 0 in table.game.actors() else beto  # type: ignore[union-attr]
        action = actor.frames[-1]["view"]["legal"][0]
        await table.inbox.put(Command(actor, Act(type="act", action=action)))
        await settled(table, ana)
        changed()
        assert shown[-1]["version"] == table.version
        table.seats[1].away = True  # (a change in place, as a turn clock running out does)
        changed()
        await table.stop()

    asyncio.run(main())
