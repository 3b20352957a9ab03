"""What bots cost the server, and what they say: only offered levels from the network,
a bounded pool with a defined fallback, caps on tables per guest and per address, and
bots that use the megaphone online as they do in the engine."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from server_testing import LiveServer, TableClient, as_states, create_table, guest_token, play_out
from truco.bots import SearchBot, make_bot
from truco.game import Game
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.lobby.tables import Lobby
from truco.server.people.players import Player
from truco.server.table import Seat, Table, TableError
from truco.server.table.bot_pool import BotPool, offered_bots
from truco.view import seat_view

NOT_OFFERED = [
    "search:30000x4",  # one decision took 25 s and 300 MB
    "linear:/etc/passwd",  # a file path the guest chose
    "linear:policy.npz",
    "linear",
    "random:../../etc",
    "SIMPLE",
    "search:hard ",
    "simple:default",
]


@pytest.fixture(scope="module")
def server() -> Any:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=3600,
        http_write_rate="10000/minute",
        http_rate="10000/minute",
        max_tables_per_guest=100,
        max_tables_per_address=100,
        bot_workers=1,
        bot_seconds=60,  # the timeout's fallback has its own test
        rate_per_second=1000,  # a script plays much faster than a person
        rate_burst=1000,
    )
    with LiveServer(config) as live:
        yield live


def position(players: int = 2, steps: int = 0) -> tuple[Game, int]:
    game = Game(Rules(players=players), first_mano=0)
    rng = random.Random(steps)
    for _ in range(steps):
        seat = game.actors()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat, megaphone=False)))
    return game, game.actors()[0]


# ------------------------------------------------------------------ offered levels only
def test_the_network_may_only_ask_for_offered_bots(server: LiveServer) -> None:
    pytest.importorskip("numpy")
    import truco.rl.policy_bot  # noqa: F401  (registers "linear": it must stay unoffered)

    http = httpx.Client(base_url=server.url, timeout=10)
    token = guest_token(server.url, "Ana")
    auth = {"Authorization": f"Bearer {token}"}
    offered = http.get("/api/options").json()["bots"]
    assert offered == offered_bots() and "search:hard" in offered
    assert not any(spec.startswith("linear") for spec in offered)
    for spec in NOT_OFFERED:
        response = http.post("/api/tables", json={"seat": 0, "bots": {"1": spec}}, headers=auth)
        assert response.status_code == 422, spec
        assert "no bot" in response.json()["detail"] and "search:hard" in response.json()["detail"]
    # the same through the table's socket: refused, and the seat stays empty
    table = create_table(server.url, token, rules={"players": 4}, seat=0)
    client = TableClient(server.ws_url, table["id"], token)
    client.wait_state()
    for spec in NOT_OFFERED:
        client.send({"type": "add_bot", "seat": 1, "level": spec})
        assert client.wait(lambda m: m["type"] == "error")["code"] == "bad_bot"
    client.send({"type": "ping"})
    client.wait(lambda m: m["type"] == "pong")
    assert client.state["table"]["seats"][1]["kind"] == "empty"
    client.send({"type": "add_bot", "seat": 1, "level": "search:easy"})
    seats = client.wait_state(lambda m: m["table"]["seats"][1]["kind"] == "bot")["table"]["seats"]
    assert seats[1]["bot"] == "search:easy"
    client.close()


def test_a_stored_table_with_a_bot_no_longer_offered_comes_back_with_the_cover_bot() -> None:
    config = ServerConfig(db_url="sqlite://")
    seats = [Seat("human", "p", "P"), Seat("bot", None, "Bot", "search:30000x4")]
    table = Table(id="old", name="old", rules=Rules(), config=config, store=None, seats=seats)
    table.bots[1] = make_bot("search:30000x4")
    Lobby(config, None)._limit_restored_bots(table)
    assert repr(table.bots[1]).startswith("simple")


# ------------------------------------------------------------------ caps
def test_tables_are_capped_per_guest_and_per_address() -> None:
    config = ServerConfig(db_url="sqlite://", max_tables_per_guest=2, max_tables_per_address=3)
    with LiveServer(config) as server:
        http = httpx.Client(base_url=server.url, timeout=10)

        def create(token: str) -> httpx.Response:
            return http.post(
                "/api/tables", json={"seat": 0}, headers={"Authorization": f"Bearer {token}"}
            )

        first, second = guest_token(server.url, "Uno"), guest_token(server.url, "Dos")
        assert create(first).status_code == 201 and create(first).status_code == 201
        refused = create(first)
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_tables"
        assert "at most 2 a guest" in refused.json()["detail"]
        assert create(second).status_code == 201
        refused = create(second)  # its first table is fine for it, but the address has 3
        assert refused.status_code == 429 and "your address" in refused.json()["detail"]
        assert len(http.get("/api/tables").json()) == 3


def test_an_address_at_its_cap_counts_only_its_live_tables() -> None:
    config = ServerConfig(db_url="sqlite://", max_tables_per_guest=10, max_tables_per_address=3)
    lobby = Lobby(config, None)
    for i, status in enumerate(["playing", "waiting", "finished"]):
        table = Table(
            id=f"t{i}", name="t", rules=Rules(), config=config, store=None, creator=f"g{i}"
        )
        table.status = status
        lobby.tables[table.id] = table
        lobby.addresses[table.id] = "10.0.0.1"
        lobby._index(table)
    lobby._check_caps(Player("g9", "G"), "10.0.0.1")  # 3 tables, 2 live: one more is fine
    lobby.tables["t2"].status = "playing"
    with pytest.raises(TableError, match="3 open tables come from your address"):
        lobby._check_caps(Player("g9", "G"), "10.0.0.1")
    del lobby.tables["t0"]  # a table gone leaves the index when counted
    lobby._check_caps(Player("g9", "G"), "10.0.0.1")
    assert lobby._by_address["10.0.0.1"] == {"t1", "t2"}


# ------------------------------------------------------------------ the pool
def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_full_pool_answers_with_the_fallback_bot_at_once() -> None:
    game, seat = position(4, 3)
    view, legal = seat_view(game, seat), game.legal_actions(seat, megaphone=False)

    async def main() -> list[Any]:
        pool = BotPool(workers=1, queue=1, seconds=60, kind="thread")
        try:
            bot = make_bot("search:hard")
            return list(
                await asyncio.gather(*(pool.decide(bot, view, legal, game.rules) for _ in range(5)))
            )
        finally:
            pool.shutdown()

    decisions = run(main())
    assert [d.how for d in decisions].count("pool") == 2  # one thinking, one waiting
    assert [d.how for d in decisions].count("full") == 3
    assert all(d.action in legal for d in decisions)


def test_a_decision_over_its_time_is_made_by_the_fallback_and_never_blocks_the_loop() -> None:
    """A search far past any offered budget, in a worker process: the event loop keeps
    running while it thinks, and the table gets the fallback's move when time is up."""
    game, seat = position(2, 0)
    view, legal = seat_view(game, seat), game.legal_actions(seat, megaphone=False)

    async def main() -> tuple[Any, int, int]:
        pool = BotPool(workers=1, queue=0, seconds=1.5, kind="process")
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        try:
            decision = await pool.decide(SearchBot("5000x4"), view, legal, game.rules)
            in_flight = pool.in_flight  # the worker still holds its slot
        finally:
            task.cancel()
            pool.shutdown()
        return decision, ticks, in_flight

    decision, ticks, in_flight = run(main())
    assert decision.how == "timeout" and decision.action in legal
    assert ticks > 20  # the loop ran all along (a blocked loop would tick 0 times)
    assert in_flight == 1


def test_a_failing_worker_gets_the_fallback_and_cheap_bots_answer_inline() -> None:
    game, seat = position(2, 2)
    view, legal = seat_view(game, seat), game.legal_actions(seat, megaphone=False)

    class Broken(SearchBot):
        def __repr__(self) -> str:
            return "search:no-such-level"  # the worker cannot make it

    async def main() -> list[Any]:
        pool = BotPool(workers=1, queue=0, seconds=30, kind="thread")
        try:
            return [
                await pool.decide(Broken("easy"), view, legal, game.rules),
                await pool.decide(make_bot("simple"), view, legal, game.rules),
                await pool.decide(make_bot("search:easy"), view, legal, game.rules),
            ]
        finally:
            pool.shutdown()

    broken, simple, search = run(main())
    assert (broken.how, simple.how, search.how) == ("error", "inline", "pool")
    assert {broken.action, simple.action, search.action} <= set(legal)


def test_search_bots_play_a_whole_match_through_the_process_pool(server: LiveServer) -> None:
    token = guest_token(server.url, "Mira")
    table = create_table(
        server.url, token, rules={"players": 2, "target": 15}, bots={"0": "search:easy"}
    )
    watcher = TableClient(server.ws_url, table["id"])
    watcher.wait_state()
    client = TableClient(server.ws_url, table["id"], token)
    client.wait_state()
    client.send({"type": "sit", "seat": 1})
    rng = random.Random(5)
    play_out([client], lambda c, v: rng.choice([a for a in v["legal"] if a != "mazo"] or ["mazo"]))
    assert client.view is not None and client.view["winner"] in (0, 1)
    by_bot = [e for e in client.events if e["kind"] == "action" and e["by"] == "bot"]
    counts = server.app.state.lobby.bot_pool.counts
    assert by_bot and counts["pool"] > 0 and counts["full"] == counts["timeout"] == 0, counts
    for c in (client, watcher):
        c.close()


# ------------------------------------------------------------------ bots speak
def test_simple_bots_online_send_megaphone_words_to_their_team_only(server: LiveServer) -> None:
    token = guest_token(server.url, "Sola")
    table = create_table(
        server.url,
        token,
        rules={"players": 4, "target": 30},
        seat=0,
        bots={"1": "simple", "2": "simple", "3": "simple"},
    )
    person = TableClient(server.ws_url, table["id"], token)
    spectator = TableClient(server.ws_url, table["id"])
    spectator.wait_state()
    rng = random.Random(9)

    def quiet(client: TableClient, view: dict[str, Any]) -> str | None:
        """Random moves that keep the match long: no words, no mazo, and no falta envido
        played (an accepted one could end the match in a hand, before the bots speak)."""
        if view["seat"] not in view["actors"]:
            return None
        falta = ("falta-envido", "contraflor-al-resto")
        moves = [a for a in view["legal"] if not a.startswith("say ") and a not in ("mazo", *falta)]
        chain = (view.get("pending") or {}).get("chain") or []
        if any(call in chain for call in falta) and "no-quiero" in moves:
            return "no-quiero"
        return rng.choice(moves or ["mazo"])

    play_out([person], quiet, timeout=240)
    spectator.until(lambda m: m["view"] is not None and m["view"]["winner"] is not None)
    record = httpx.get(f"{server.url}/api/matches/{table['id']}/record").json()
    words = [
        (seat, token)
        for hand in record["hands"]
        for seat, token in hand["actions"]
        if token.startswith("say ")
    ]
    # in the engine these bots say about two words a hand between them
    assert len(words) >= 3 and any(seat % 2 == 1 for seat, _ in words), words

    def heard(client: TableClient) -> set[int]:
        seats = set()
        for _, frame in as_states(client.frames):
            for event in frame.get("events", []):
                if event.get("kind") == "action" and event["action"].startswith("say "):
                    seats.add(event["seat"])
            view = frame.get("view")
            for seat, action in (view or {}).get("log", []):
                if action.startswith("say "):
                    seats.add(seat)
        return seats

    assert heard(person) == {seat for seat, _ in words if seat == 2}  # never the rivals'
    assert heard(spectator) == set()
    for c in (person, spectator):
        c.close()
