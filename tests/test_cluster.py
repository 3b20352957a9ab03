"""Cluster mode against the real PostgreSQL and Redis: nodes as real ``truco serve``
processes, players on different nodes at one table, a node killed mid-match, and lease
fencing where the write lands (docs/cluster.md)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.cluster_testing import (
    REDIS_URL,
    TRUCO,
    Node,
    nodes,
    record_actions,
    redis_prefix,
    redis_unreachable,
    running,
)
from tests.databases import postgres_schema, postgres_unreachable, service_missing
from tests.server_testing import TableClient, create_table, guest_token, play_out
from websockets.exceptions import ConnectionClosed

from truco.server.cluster.parent import ORPHAN_STOP_SECONDS
from truco.server.config import ServerConfig

RULES = {"players": 2, "target": 15}


@pytest.fixture
def site() -> Iterator[tuple[str, str]]:
    """A PostgreSQL schema and a Redis key prefix of this test's own."""
    reason = postgres_unreachable() or redis_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema("truco_cluster") as db_url, redis_prefix() as prefix:
        yield db_url, prefix


def chooser(seed: int, patient: bool = False) -> Any:
    """Random legal actions, without megaphone words (every action is public then).
    ``patient``: refusals are answered as the protocol says. "moving" (an action in flight
    to a node that died): send it again at once (the node holds it until it has found where
    the table runs now). "rate_limited" (a script plays faster than the server's limit of
    messages a second on a socket): again once a message's worth of time has passed."""
    rng = random.Random(seed)
    per_message = 1 / ServerConfig().rate_per_second

    def choose(client: TableClient, view: dict[str, Any]) -> str | None:
        while patient and client.errors:
            code = client.errors.pop()["code"]
            assert code in ("moving", "rate_limited"), code
            if code == "rate_limited":
                time.sleep(per_message)
        legal = [a for a in view["legal"] if not a.startswith("say")]
        plays = [a for a in legal if a.startswith("play")]
        return rng.choice(plays if plays and rng.random() < 0.7 else legal) if legal else None

    return choose


def seen_actions(client: TableClient) -> list[tuple[int, int, str]]:
    """The actions a client was told of, in order (each acknowledged by the server)."""
    return [(e["hand"], e["seat"], e["action"]) for e in client.events if e["kind"] == "action"]


def record_of(node: Node, table_id: str) -> dict[str, Any]:
    response = httpx.get(f"{node.url}/api/matches/{table_id}/record", timeout=10)
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result


def listed_on(node: Node, table_id: str, timeout: float = 10) -> bool:
    """Whether the node's lobby lists the table (other nodes' tables show within a heartbeat)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tables = httpx.get(f"{node.url}/api/tables", timeout=10).json()
        if any(t["id"] == table_id for t in tables):
            return True
        time.sleep(0.2)
    return False


def seat_two(a: Node, b: Node) -> tuple[TableClient, TableClient, str]:
    """Ana creates a table on node a and sits; Beto, connected to node b, takes the other seat."""
    ana, beto = guest_token(a.url, "Ana"), guest_token(b.url, "Beto")
    table_id = create_table(a.url, ana, rules=RULES, seat=0, name="cluster")["id"]
    assert listed_on(b, table_id), "node b does not list node a's table"
    on_a = TableClient(a.ws_url, table_id, ana)
    on_b = TableClient(b.ws_url, table_id, beto)
    on_b.until(lambda s: s["table"]["status"] == "waiting")
    on_b.send({"type": "sit", "seat": 1})
    on_a.until(lambda s: s["table"]["status"] == "playing")
    on_b.until(lambda s: s["table"]["status"] == "playing")
    return on_a, on_b, table_id


def test_players_on_two_nodes_play_one_table_to_the_end(site: tuple[str, str]) -> None:
    db_url, prefix = site
    with nodes(db_url, prefix, 2) as (a, b):
        on_a, on_b, table_id = seat_two(a, b)
        play_out([on_a, on_b], chooser(1))
        for client in (on_a, on_b):
            client.until(lambda s: s["table"]["status"] == "finished")
        assert on_a.state["view"]["winner"] == on_b.state["view"]["winner"] is not None
        # both saw the same match, and it is the one stored
        assert seen_actions(on_a) == seen_actions(on_b) == record_actions(record_of(b, table_id))
        assert not on_a.errors and not on_b.errors
        on_a.close(), on_b.close()


def _play_some(clients: list[TableClient], choose: Any, actions: int) -> None:
    """``actions`` actions, each seen by every client before the next."""
    for _ in range(actions):
        actor = next(c for c in clients if c.view and c.view["legal"])
        action = choose(actor, actor.view)
        assert action is not None
        answer = actor.act_and_wait(action)
        assert answer["type"] == "state", answer
        for client in clients:
            client.until(lambda s, v=answer["v"]: s["v"] >= v)


def test_a_killed_node_s_table_goes_on_elsewhere_and_nothing_acknowledged_is_lost(
    site: tuple[str, str],
) -> None:
    db_url, prefix = site
    with nodes(db_url, prefix, 2, "--reconnect-seconds", "60") as (a, b):
        on_a, on_b, table_id = seat_two(a, b)  # node a runs the table (it was created there)
        choose = chooser(2, patient=True)
        _play_some([on_a, on_b], choose, 12)
        before = seen_actions(on_a)
        assert before == seen_actions(on_b) and len(before) >= 12
        version = on_a.version
        a.kill()
        with pytest.raises(ConnectionClosed):  # node a's socket dies with it
            on_a.recv(timeout=10)
        # Ana reconnects to the other node and resyncs from the last version she saw
        on_a = TableClient(b.ws_url, table_id, on_a.token, since=version)
        resumed = on_a.wait_state(timeout=30)
        assert not resumed["full"] and resumed["v"] >= version
        on_a.events[:0] = [
            {"kind": "action", "hand": h, "seat": s, "action": x} for h, s, x in before
        ]
        # Beto never reconnected: his node followed the table to its new owner
        play_out([on_a, on_b], choose)
        for client in (on_a, on_b):
            client.until(lambda s: s["table"]["status"] == "finished")
        stored = record_actions(record_of(b, table_id))
        assert stored[: len(before)] == before, "an acknowledged action was lost"
        assert seen_actions(on_a) == stored
        assert seen_actions(on_b) == stored
        on_a.close(), on_b.close()


def test_lease_fencing_refuses_a_late_write_of_the_old_owner(site: tuple[str, str]) -> None:
    import asyncio

    from redis.asyncio import Redis

    from truco.server.cluster.lease import Leases
    from truco.server.storage.journal import TableWrite
    from truco.server.storage.rows import FenceError, MatchRow
    from truco.server.storage.store import Store

    db_url, prefix = site

    def row(version: int, name: str) -> MatchRow:
        now = time.time()
        return MatchRow("fenced", name, "waiting", now, now, version, None, {"seats": []})

    async def scenario() -> None:
        redis = Redis.from_url(REDIS_URL)
        old_node, new_node = Leases(redis, prefix, "old", 200), Leases(redis, prefix, "new", 5000)
        old_store, new_store = Store(db_url), Store(db_url)
        try:
            old = await old_node.acquire("fenced")
            assert old is not None and await new_node.acquire("fenced") is None
            old_store.fences["fenced"] = old.token
            await old_store.commit(TableWrite("fenced", 1, checkpoint=row(1, "first")))
            await asyncio.sleep(0.4)  # the old owner is paused past its lease
            new = await new_node.acquire("fenced")
            assert new is not None and new.token > old.token
            assert new_store.claim("fenced", new.token)
            # the old owner learns it lost it...
            assert await old_node.renew([old]) == ([old], [])
            with pytest.raises(FenceError):  # ...but its late write is refused by the database
                await old_store.commit(TableWrite("fenced", 2, checkpoint=row(2, "late")))
            assert [(r.version, r.name) for r in new_store.load(match_id="fenced")] == [
                (1, "first")
            ]
            new_store.fences["fenced"] = new.token
            await new_store.commit(TableWrite("fenced", 2, checkpoint=row(2, "second")))
            assert [(r.version, r.name) for r in old_store.load(match_id="fenced")] == [
                (2, "second")
            ]
            assert not new_store.claim("fenced", old.token)  # a token never goes back
            assert await new_node.release(new) and await new_node.owners(["fenced"]) == [None]
        finally:
            await old_store.close(), await new_store.close()
            await redis.aclose()

    asyncio.run(scenario())


def test_workers_start_several_nodes_on_one_port(site: tuple[str, str]) -> None:
    import redis

    db_url, prefix = site
    # started as a shell starts a background job (SIGINT ignored), it still stops on
    # SIGINT, nodes and all (it once waited for them forever, and was SIGKILLed)
    site_url = Node(db_url, prefix, "--workers", "2", sigint_ignored=True)
    try:
        client = redis.Redis.from_url(REDIS_URL)
        deadline = time.monotonic() + 30
        while client.zcard(f"{prefix}nodes") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.zcard(f"{prefix}nodes") == 2
        client.close()
        # both players on the one address, whichever node the kernel hands them to
        on_a, on_b, table_id = seat_two(site_url, site_url)
        play_out([on_a, on_b], chooser(3, patient=True))
        on_a.until(lambda s: s["table"]["status"] == "finished")
        assert seen_actions(on_a) == record_actions(record_of(site_url, table_id))
        on_a.close(), on_b.close()
    finally:
        site_url.stop()
    assert site_url.process.returncode == 0


def test_a_lease_that_expired_unclaimed_is_regained_but_not_one_taken_meanwhile(
    site: tuple[str, str],
) -> None:
    import asyncio

    from redis.asyncio import Redis

    from truco.server.cluster.lease import Leases

    _, prefix = site

    async def scenario() -> None:
        redis = Redis.from_url(REDIS_URL)
        # leases of 1 s: the renewal "in time" must come well within one on a loaded machine
        stalled, other = (
            Leases(redis, prefix, "stalled", 1000),
            Leases(redis, prefix, "other", 1000),
        )
        try:
            kept, regained, taken = [await stalled.acquire(t) for t in ("kept", "gone", "taken")]
            assert kept is not None and regained is not None and taken is not None
            await asyncio.sleep(0.1)
            assert await stalled.renew([kept]) == ([], [])  # in time: renewed as it is
            await asyncio.sleep(1.2)  # the node stalls past its leases
            stolen = await other.acquire("taken")  # one is taken (and given up) meanwhile
            assert stolen is not None and await other.release(stolen)
            lost, back = await stalled.renew([kept, regained, taken])
            assert lost == [taken]  # its state may be stale: another node ran the table
            assert [(b.table_id, b.token) for b in back] == [
                ("kept", kept.token + 1),
                ("gone", regained.token + 1),
            ]
            assert (await stalled.owners(["gone"]))[0] == ("stalled", regained.token + 1)
        finally:
            await redis.aclose()

    asyncio.run(scenario())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_stop_when_their_parent_is_killed(site: tuple[str, str]) -> None:
    import redis

    db_url, prefix = site
    parent = Node(db_url, prefix, "--workers", "2")
    workers: list[int] = []
    try:
        client = redis.Redis.from_url(REDIS_URL)
        deadline = time.monotonic() + 30
        while client.zcard(f"{prefix}nodes") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        with open(f"/proc/{parent.process.pid}/task/{parent.process.pid}/children") as f:
            workers += [int(pid) for pid in f.read().split()]
        assert len(workers) == 2
        parent.kill()  # SIGKILL: it cannot tell its workers anything
        deadline = time.monotonic() + ORPHAN_STOP_SECONDS + 15
        while any(running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        said = "".join(parent.output)  # the workers' output: where a hung stop stood
        assert not any(running(pid) for pid in workers), said
        assert "still stopping" not in said, said  # each stopped cleanly, not cut short
        # they stopped cleanly: each left the site's list of nodes
        assert client.zcard(f"{prefix}nodes") == 0
        client.close()
    finally:
        for pid in workers:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def test_cluster_options_are_checked_in_one_line() -> None:
    for args, message in [
        (["--redis", REDIS_URL], "--redis needs a PostgreSQL --db"),
        (["--workers", "2"], "--workers needs --redis"),
        (
            ["--db", "postgresql+psycopg://x/y", "--redis", "http://x"],
            "must be a redis://, rediss:// or unix:// URL",
        ),
        (["--redis", REDIS_URL, "--lease-seconds", "0"], "--lease-seconds must be from 0.5 to 60"),
    ]:
        done = subprocess.run(
            [*TRUCO, "serve", "--port", "0", *args], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert message in done.stderr


def test_the_embedded_server_does_not_load_redis() -> None:
    code = (
        "import sys; from truco.server.web.app import create_app;"
        "from truco.server.config import ServerConfig;"
        "create_app(ServerConfig(db_url='sqlite://'));"
        "assert 'redis' not in sys.modules and 'truco.server.cluster.node' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_bus_sends_a_frame_once_for_the_connections_of_one_node_that_get_it() -> None:
    from truco.server.cluster.bus import merge_frames

    def out(conn: str, frame: str, version: int = 1) -> dict[str, Any]:
        return {"k": "out", "c": conn, "x": frame, "v": version, "n": "owner"}

    # two spectators and a seat of one table: the spectators' frame goes once
    merged = merge_frames([out("f/1", "S"), out("f/2", "seat"), out("f/3", "S")])
    assert merged == [
        {"k": "out", "c": ["f/1", "f/3"], "x": "S", "v": 1, "n": "owner"},
        out("f/2", "seat"),
    ]
    # f/2 already got a later frame: joining the earlier message would reorder its frames
    later = [out("f/1", "A"), out("f/2", "B"), out("f/2", "A")]
    assert merge_frames(later) == later
    # a frame of another version is another frame; a close stays where it was
    other = [out("f/1", "A", 1), out("f/2", "A", 2), {"k": "close", "c": "f/1", "r": "bye"}]
    assert merge_frames(other) == other


def test_the_bus_publishes_each_batch_and_hears_who_listens(site: tuple[str, str]) -> None:
    import asyncio

    from redis.asyncio import Redis

    from truco.server.cluster.bus import Bus

    _, prefix = site

    async def scenario() -> None:
        redis = Redis.from_url(REDIS_URL)
        bus = Bus(redis, prefix, "here", REDIS_URL)
        heard: list[Any] = []
        gone: list[tuple[str, list[Any]]] = []
        bus.on_unreachable = lambda node, messages: gone.append((node, messages))
        await bus.start(heard.append)
        try:
            bus.send("here", {"k": "hello", "c": "a"})
            bus.send("nobody", {"k": "hello", "c": "b"})
            for _ in range(50):
                if heard:
                    break
                await asyncio.sleep(0.05)
            assert heard == [{"k": "hello", "c": "a"}]
            assert gone == [("nobody", [{"k": "hello", "c": "b"}])]  # 0 listeners: gone
            assert bus.sent == 2
        finally:
            await bus.stop()
            await redis.aclose()

    asyncio.run(scenario())
