"""Quick match over the wire (server/queue_api.py) on a live server: two guests in a
casual queue are seated at one table, bots fill after the wait chosen, leaving or
closing the socket takes the ticket out, a player cannot queue twice, bad requests
close with a one-line reason; and the Redis backend (server/redis_queue.py) shared by
two "nodes" against the real Redis at 127.0.0.1:6379 (skipped when it does not answer)."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from databases import service_missing
from server_testing import OPEN_PLAY, LiveServer, guest_token
from truco.server import ServerConfig
from truco.server.lobby.matchmaking import Policy, QueueError, QueueKey, Ticket

CASUAL = "1v1-sinflor-15-casual"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    config = ServerConfig(
        **OPEN_PLAY,
        db_url="sqlite://",
        bot_delay=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        max_tables_per_guest=100,
    )
    with LiveServer(config) as live:
        yield live


def queue_socket(server: LiveServer, token: str | None, query: str) -> ClientConnection:
    ws = connect(f"{server.ws_url}/ws/queue?{query}", open_timeout=10, legacy=True)
    ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


def frames_until_close(ws: ClientConnection, timeout: float = 20.0) -> list[dict[str, Any]]:
    frames = []
    try:
        while True:
            frames.append(json.loads(ws.recv(timeout=timeout)))
    except ConnectionClosed:
        return frames


def refused(ws: ClientConnection, code: str) -> Any:
    """The queue refuses: an ``error`` frame with ``code`` (and its params), then the close
    (returned: its code and English reason)."""
    frame = json.loads(ws.recv(timeout=10))
    assert frame["type"] == "error" and frame["code"] == code, frame
    assert isinstance(frame["params"], dict) and frame["reason"]
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.reason == frame["reason"][:120]
    return closed.value.rcvd


def next_frame(ws: ClientConnection, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
        if frame["type"] == kind:
            return frame


def counts(server: LiveServer, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    result: dict[str, Any] = httpx.get(f"{server.url}/api/queue", headers=headers).json()
    return result


def test_two_guests_are_seated_at_one_table(server: LiveServer) -> None:
    ana, beto = guest_token(server.url, "Ana"), guest_token(server.url, "Beto")
    first = queue_socket(server, ana, f"queue={CASUAL}")
    assert next_frame(first, "queued")["queue"] == CASUAL
    assert counts(server, ana) == {"queues": {CASUAL: 1}, "waiting": CASUAL}
    second = queue_socket(server, beto, f"queue={CASUAL}")
    tables = {
        f["table"]
        for ws in (first, second)
        for f in frames_until_close(ws)
        if f["type"] == "matched"
    }
    assert len(tables) == 1
    table = httpx.get(f"{server.url}/api/tables/{tables.pop()}").json()
    assert table["status"] == "playing"
    assert sorted(s["name"] for s in table["seats"]) == ["Ana", "Beto"]
    assert all(s["kind"] == "human" for s in table["seats"])
    assert table["rules"]["target"] == 15 and table["rules"]["flor"] is False
    assert counts(server)["queues"] == {}


def account_token(server: LiveServer, name: str) -> str:
    response = httpx.post(
        f"{server.url}/api/accounts", json={"name": name, "password": "una clave larga"}
    )
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def test_two_accounts_in_a_rated_queue_get_a_rated_table(server: LiveServer) -> None:
    tag = uuid.uuid4().hex[:4]
    ana, beto = account_token(server, f"Ana{tag}"), account_token(server, f"Beto{tag}")
    rated = "1v1-sinflor-15-rated"
    first = queue_socket(server, ana, f"queue={rated}")
    assert next_frame(first, "queued")["rating"] == 1500  # a new account's shown rating
    second = queue_socket(server, beto, f"queue={rated}")
    frames = [f for ws in (first, second) for f in frames_until_close(ws)]
    [code] = {f["table"] for f in frames if f["type"] == "matched"}
    table = httpx.get(f"{server.url}/api/tables/{code}").json()
    assert table["rated"] is True and table["status"] == "playing"
    assert sorted(s["name"] for s in table["seats"]) == [f"Ana{tag}", f"Beto{tag}"]


def test_a_guest_cannot_queue_rated(server: LiveServer) -> None:
    ws = queue_socket(server, guest_token(server.url, "Iris"), "queue=2v2-flor-15-rated")
    closed = refused(ws, "queue_needs_account")
    assert closed.code == 4403
    assert "rated queues are for accounts" in closed.reason


def test_bots_fill_a_casual_table_after_the_chosen_wait(server: LiveServer) -> None:
    cami = guest_token(server.url, "Cami")
    ws = queue_socket(server, cami, "queue=2v2-flor-30-casual&bots_after=0")
    [matched] = [f for f in frames_until_close(ws) if f["type"] == "matched"]
    table = httpx.get(f"{server.url}/api/tables/{matched['table']}").json()
    assert [s["kind"] for s in table["seats"]].count("bot") == 3
    assert table["rules"]["players"] == 4 and table["rules"]["flor"] is True


def test_leaving_or_closing_takes_the_ticket_out(server: LiveServer) -> None:
    dani, eli = guest_token(server.url, "Dani"), guest_token(server.url, "Eli")
    ws = queue_socket(server, dani, "queue=3v3-sinflor-30-casual")
    next_frame(ws, "queued")
    ws.send(json.dumps({"type": "leave"}))
    assert [f["type"] for f in frames_until_close(ws)][-1] == "left"
    assert counts(server, dani)["waiting"] is None
    ws = queue_socket(server, eli, "queue=3v3-sinflor-30-casual")
    next_frame(ws, "queued")
    ws.close()
    deadline = time.monotonic() + 10  # the server notices the close on its own time
    while counts(server)["queues"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert counts(server)["queues"] == {}


def test_a_player_cannot_wait_twice(server: LiveServer) -> None:
    fede = guest_token(server.url, "Fede")
    first = queue_socket(server, fede, "queue=3v3-flor-15-casual")
    next_frame(first, "queued")
    second = queue_socket(server, fede, "queue=1v1-flor-15-casual")
    closed = refused(second, "already_queued")
    assert closed.code == 4409
    assert "already waiting in the 3v3-flor-15-casual queue" in closed.reason
    first.close()


@pytest.mark.parametrize(
    ("query", "refusal", "code", "reason"),
    [
        ("queue=4v4-flor-15-casual", "no_queue", 4400, "no queue '4v4-flor-15-casual'"),
        ("queue=", "no_queue", 4400, "no queue ''"),
        (f"queue={CASUAL}&bots_after=-1", "bad_bots_after", 4400, "seconds from 0 to 600"),
        (f"queue={CASUAL}&bots_after=nan", "bad_bots_after", 4400, "seconds from 0 to 600"),
        ("queue=1v1-flor-15-rated&bots_after=5", "rated_no_bots_after", 4400, "have no bots"),
        (f"queue={CASUAL}&token=abc", "token_in_url", 4400, "tokens never travel in the URL"),
    ],
)
def test_bad_requests_close_with_one_line(
    server: LiveServer, query: str, refusal: str, code: int, reason: str
) -> None:
    ws = connect(f"{server.ws_url}/ws/queue?{query}", open_timeout=10, legacy=True)
    closed = refused(ws, refusal)
    assert closed.code == code
    assert reason in closed.reason


def test_without_a_session_or_with_a_bad_message(server: LiveServer) -> None:
    ws = queue_socket(server, None, f"queue={CASUAL}")
    assert "a session is needed" in refused(ws, "queue_needs_session").reason
    gabi = guest_token(server.url, "Gabi")
    ws = queue_socket(server, gabi, "queue=3v3-flor-30-casual")
    next_frame(ws, "queued")
    ws.send("{not json")
    error = next_frame(ws, "error")
    assert error["code"] == "queue_takes_leave" and "only" in error["reason"]
    ws.close()


def test_a_table_the_lobby_refuses_closes_the_wait_with_its_reason() -> None:
    with LiveServer(ServerConfig(**OPEN_PLAY, db_url="sqlite://", max_tables_per_guest=1)) as live:
        hugo = guest_token(live.url, "Hugo")
        httpx.post(
            f"{live.url}/api/tables",
            json={"seat": 0},
            headers={"Authorization": f"Bearer {hugo}"},
        ).raise_for_status()
        ws = queue_socket(live, hugo, f"queue={CASUAL}&bots_after=0")
        frames = frames_until_close(ws)
        assert frames[-1]["type"] == "error" and frames[-1]["code"] == "too_many_tables"
        assert frames[-1]["params"] == {"count": 1, "limit": 1}
        assert "you have 1 open tables" in frames[-1]["reason"]
        assert counts(live)["queues"] == {}


# ------------------------------------------------------------------ Redis
def redis_unreachable() -> str | None:
    try:
        import redis
    except ImportError:
        return "redis-py is not installed"
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at 127.0.0.1:6379 is not reachable: {exc}"
    return None


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_redis_queue_holds_one_ticket_a_player_and_pairs_across_nodes() -> None:
    async def scenario() -> None:
        async for one, two in _nodes():
            key = QueueKey.parse(CASUAL)
            await one.join(key, Ticket("ana", "Ana", 1500, 0.0))
            with pytest.raises(QueueError, match="already waiting in the 1v1-sinflor-15-casual"):
                await two.join(
                    QueueKey.parse("2v2-flor-15-casual"), Ticket("ana", "Ana", 1500, 0.0)
                )
            assert await two.waiting("ana") == key
            await two.join(key, Ticket("beto", "Beto", 1550, 1.0))
            await two.join(key, Ticket("cami", "Cami", 2500, 1.0))
            assert await two.counts() == {CASUAL: 3}
            [table] = await one.match(now=2.0)
            assert sorted(table.names()) == ["Ana", "Beto"]
            assert await one.match(now=2.0) == [] and await one.counts() == {CASUAL: 1}
            assert await two.leave("cami") and not await two.leave("cami")
            await one.announce("ana", "k3xq7p")
            assert await two.announcement("ana") == "k3xq7p"
            assert await two.announcement("ana") is None

    run(scenario())


async def _nodes() -> AsyncIterator[list[Any]]:
    why = redis_unreachable()
    if why:
        service_missing(why)
    from redis.asyncio import Redis

    from truco.server.lobby.redis_queue import RedisQueue

    prefix = f"truco-test:{uuid.uuid4().hex[:10]}:"
    clients = [Redis(host="127.0.0.1", port=6379, decode_responses=True) for _ in range(2)]
    queues = [RedisQueue(c, prefix, Policy(base=100, widen=20)) for c in clients]
    try:
        yield queues
    finally:
        keys = [k async for k in clients[0].scan_iter(match=prefix + "*")]
        if keys:
            await clients[0].delete(*keys)
        for queue in queues:
            await queue.close()


def test_redis_many_players_two_nodes_nobody_twice_and_who_left_never_seated() -> None:
    """Two nodes pair at once while players join and leave through either."""
    rng = random.Random(12)
    keys = [QueueKey.parse(k) for k in (CASUAL, "2v2-flor-30-rated", "3v3-sinflor-15-casual")]

    async def scenario() -> None:
        async for nodes in _nodes():
            seated: Counter[str] = Counter()
            gone: set[str] = set()
            joined: dict[str, QueueKey] = {}
            for tick in range(120):
                for _ in range(3 if tick < 40 else 0):
                    pid = f"p{len(joined)}"
                    joined[pid] = rng.choice(keys)
                    ticket = Ticket(pid, pid, rng.randrange(800, 2200), tick)
                    await rng.choice(nodes).join(joined[pid], ticket)
                if tick < 40 and rng.random() < 0.5:
                    pid = rng.choice(list(joined))
                    if await rng.choice(nodes).leave(pid):
                        gone.add(pid)
                rounds = await asyncio.gather(*(n.match(now=float(tick)) for n in nodes))
                for table in (t for r in rounds for t in r):
                    assert len(table.seats) == table.key.players and None not in table.seats
                    for ticket in table.tickets():
                        assert ticket.player_id not in gone
                        seated[ticket.player_id] += 1
            assert seated and max(seated.values()) == 1
            left = await nodes[0].counts()
            for key in keys:
                assert left.get(str(key), 0) < key.players
            unseated = set(joined) - gone - set(seated)
            assert sum(left.values()) == len(unseated)

    run(scenario())


def test_two_servers_sharing_a_redis_queue_pair_their_players() -> None:
    """Ana waits on one node and Beto on another: one of them pairs them, both hear
    the same table code (the node that paired holds the table)."""
    why = redis_unreachable()
    if why:
        service_missing(why)
    from redis.asyncio import Redis

    from truco.server.lobby.redis_queue import RedisQueue

    prefix = f"truco-test:{uuid.uuid4().hex[:10]}:"
    nodes = [
        LiveServer(ServerConfig(**OPEN_PLAY, db_url="sqlite://", bot_delay=0)) for _ in range(2)
    ]
    for node in nodes:
        node.app.state.matchmaker.backend = RedisQueue(
            Redis(host="127.0.0.1", port=6379, decode_responses=True), prefix
        )
    try:
        with nodes[0] as one, nodes[1] as two:
            ana = queue_socket(one, guest_token(one.url, "Ana"), f"queue={CASUAL}")
            next_frame(ana, "queued")
            assert counts(two)["queues"] == {CASUAL: 1}  # the other node sees her wait
            beto = queue_socket(two, guest_token(two.url, "Beto"), f"queue={CASUAL}")
            codes = {
                f["table"]
                for ws in (ana, beto)
                for f in frames_until_close(ws)
                if f["type"] == "matched"
            }
            assert len(codes) == 1
            code = codes.pop()
            held = [httpx.get(f"{n.url}/api/tables/{code}").status_code for n in (one, two)]
            assert sorted(held) == [200, 404]
    finally:
        import redis

        plain = redis.Redis(host="127.0.0.1", port=6379)
        keys = list(plain.scan_iter(match=prefix + "*"))
        if keys:
            plain.delete(*keys)
        plain.close()


def test_a_lone_casual_player_gets_bots_after_the_default_wait_unless_waiting_for_people() -> None:
    """Nothing said about bots, a newcomer alone in a casual queue plays with bots after
    the server's short default wait (it used to wait forever); ``bots_after=never``
    waits for people. The table has no name (each page words it) and its bots are named
    for people, not by engine ids."""
    config = ServerConfig(**OPEN_PLAY, db_url="sqlite://", bot_delay=0, quick_bots_after=1.0)
    with LiveServer(config) as live:
        patient = queue_socket(
            live, guest_token(live.url, "Paz"), "queue=2v2-sinflor-15-casual&bots_after=never"
        )
        assert next_frame(patient, "queued")
        started = time.monotonic()
        ws = queue_socket(live, guest_token(live.url, "Nina"), "queue=1v1-sinflor-15-casual")
        deadline = time.monotonic() + 15
        while (frame := json.loads(ws.recv(timeout=15)))["type"] != "matched":
            assert time.monotonic() < deadline, "no bots came"  # ("waiting" frames meanwhile)
        matched = frame
        assert time.monotonic() - started >= 1.0
        table = httpx.get(f"{live.url}/api/tables/{matched['table']}").json()
        assert table["name"] == "" and table["status"] == "playing"
        bots = [s for s in table["seats"] if s["kind"] == "bot"]
        assert [s["name"] for s in bots] == ["Rosa"] and bots[0]["bot"] == config.cover_bot
        # the one waiting for people still waits, well past the default
        time.sleep(1.5)
        assert counts(live)["queues"] == {"2v2-sinflor-15-casual": 1}
        patient.close()
