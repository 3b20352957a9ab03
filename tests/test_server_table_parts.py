"""The parts of the live table on their own: audiences of the event log, a connection that is
not a WebSocket (the seam a cluster's proxy uses), and background tasks whose failures are
logged."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server_testing import Proxy
from truco.rules import Rules
from truco.server.config import ServerConfig
from truco.server.people.players import Player
from truco.server.protocol import Act, Ping, Sit
from truco.server.table import Command, Join, Peer, Table
from truco.server.table.events import EventLog, sees
from truco.server.tasks import spawn


def test_audiences_an_event_for_a_team_or_a_seat_reaches_only_them() -> None:
    log = EventLog(buffer=10)
    log.emit({"kind": "action", "seat": 0})
    log.emit({"kind": "action", "action": "say veni"}, ("team", 1))
    log.emit({"kind": "committed", "seat": 2}, ("seat", 2))
    assert [e["v"] for e in log.visible(0, None)] == [1]  # a spectator: everyone's only
    assert [e["v"] for e in log.visible(0, 1)] == [1, 2]  # team 1
    assert [e["v"] for e in log.visible(0, 3)] == [1, 2]  # seat 3 is team 1 too
    assert [e["v"] for e in log.visible(0, 2)] == [1, 3]  # team 0, the seat's own card
    assert [e["v"] for e in log.visible(1, 1)] == [2]
    assert not sees(0, ("team", 1)) and sees(4, ("team", 0)) and not sees(None, ("seat", 0))


def test_the_log_says_when_a_version_is_too_old_for_events() -> None:
    log = EventLog(buffer=3)
    assert log.holds_after(0)
    for i in range(5):
        log.emit({"kind": "n", "i": i})
    assert [e.version for e in log.events] == [3, 4, 5]
    assert log.holds_after(2) and log.holds_after(5)
    assert not log.holds_after(1)  # version 2 is gone: a full state, not events
    assert not log.holds_after(6)  # a version the table never had


async def _settled(table: Table, peer: Proxy) -> None:
    """Once ``peer``'s ping is answered, everything sent to the table before it is handled."""
    await table.inbox.put(Command(peer, Ping(type="ping")))
    await asyncio.wait_for(peer.pongs.get(), 10)


def test_a_proxy_peer_plays_a_table_and_sees_only_its_seat() -> None:
    async def main() -> None:
        config = ServerConfig(db_url="sqlite://", bot_delay=0)
        table = Table("t1", "t1", Rules(players=2), config, store=None, turn_seconds=0)
        ana, beto = Proxy(Player("a", "Ana")), Proxy(Player("b", "Beto"))
        watcher: Peer = Proxy(None)
        table.start()
        for peer in (ana, beto, watcher):
            await table.inbox.put(Join(peer))
        await table.inbox.put(Command(ana, Sit(type="sit", seat=0)))
        await table.inbox.put(Command(beto, Sit(type="sit", seat=1)))
        await _settled(table, ana)
        assert table.status == "playing"
        for seat, peer in enumerate((ana, beto)):
            view = peer.frames[-1]["view"]
            assert peer.frames[-1]["you"]["seat"] == seat
            assert len(view["hand"]) == 3
            other = beto if seat == 0 else ana
            assert not set(view["hand"]) & set(other.frames[-1]["view"]["hand"])
        assert isinstance(watcher, Proxy)
        assert watcher.frames[-1]["view"]["hand"] == []  # a spectator sees no cards
        actor = ana if 0 in table.game.actors() else beto  # type: ignore[union-attr]
        action = actor.frames[-1]["view"]["legal"][0]
        await table.inbox.put(Command(actor, Act(type="act", action=action)))
        await _settled(table, ana)
        for peer in (ana, beto, watcher):
            assert isinstance(peer, Proxy)
            assert any(
                e["kind"] == "action" and e["action"] == action for e in peer.frames[-1]["events"]
            )
        await table.stop()
        assert ana.closed == beto.closed == "the server is stopping"

    asyncio.run(main())


def test_a_failing_background_task_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    async def boom() -> None:
        raise RuntimeError("lost nowhere")

    async def main() -> None:
        task = spawn(boom(), "boom")
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR, logger="truco.server"):
        asyncio.run(main())
    assert any("task boom failed" in r.getMessage() for r in caplog.records)
    assert any("lost nowhere" in (r.exc_text or "") for r in caplog.records)
