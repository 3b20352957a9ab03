"""Rated play that cannot be farmed (issue 31, item 5), tried as the cheater of the issue
would: two accounts from one address, one always going to the mazo. A rated table cannot be
made outside the queue; the rated queue does not pair accounts of one address; a rated match
between them, however made, is recorded unrated; a pair meets in a few rated matches a day;
an address signs up a few accounts a day; provisional and banned accounts are off the
leaderboard; a frozen rating does not move. On SQLite and PostgreSQL where the database
matters."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func as sa_func
from sqlalchemy import insert
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from databases import db_url
from server_testing import LiveServer, TableClient
from test_accounts_tables import play_until_over, recorded
from test_ratings import finished, human
from truco.server import ServerConfig
from truco.server.people import accounts, moderation
from truco.server.people.fair_play import FairPlay, kept_apart, rated_refusal, seen_at
from truco.server.people.ratings import ratings_of, record_result, top
from truco.server.storage.store import (
    Store,
    account_addresses_table,
    accounts_table,
    ratings_table,
    results_table,
)

__all__ = ["db_url"]  # the fixture, from databases

PASSWORD = "mate-cocido-7"
RATED = "1v1-sinflor-15-rated"


def strict(url: str = "sqlite://", **more: Any) -> ServerConfig:
    """The fair-play rules as they ship; fast bots and no clock."""
    return ServerConfig(db_url=url, bot_delay=0, turn_seconds=0, disconnect_grace=0.3, **more)


class Cheater:
    def __init__(self, server: LiveServer, name: str) -> None:
        self.name = name
        self.http = httpx.Client(base_url=server.url, timeout=30)
        answer = self.http.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        self.id, self.token = answer.json()["id"], answer.json()["token"]

    def rating(self) -> dict[str, Any]:
        found: dict[str, Any] = self.http.get("/api/me").json()["ratings"]["1v1"]
        return found


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    store = Store(db_url)
    yield store
    store.engine.dispose()


# ------------------------------------------------------------------ over HTTP
def test_a_rated_table_is_made_by_the_queue_only(tmp_path: Any) -> None:
    with LiveServer(strict(f"sqlite:///{tmp_path / 't.sqlite3'}")) as server:
        farmer = Cheater(server, "Granjero")
        made = farmer.http.post(
            "/api/tables", json={"rules": {"players": 2}, "seat": 0, "rated": True}
        )
        assert (made.status_code, made.json()["code"]) == (409, "rated_queue_only")
        casual = farmer.http.post("/api/tables", json={"rules": {"players": 2}, "seat": 0})
        assert casual.status_code == 201


def test_a_rated_challenge_between_accounts_of_one_address_is_refused(tmp_path: Any) -> None:
    """Challenges seat rated tables outside the queue: the same fair-play rules hold there."""
    with LiveServer(strict(f"sqlite:///{tmp_path / 't.sqlite3'}")) as server:
        farmer, partner = Cheater(server, "Granjero"), Cheater(server, "Socio")
        sent = farmer.http.post(
            "/api/challenges", json={"target": "Socio", "rules": {"players": 2}, "rated": True}
        )
        assert sent.status_code == 200, sent.text
        taken = partner.http.post(f"/api/challenges/{sent.json()['id']}/accept")
        assert (taken.status_code, taken.json()["code"]) == (403, "rated_same_address")
        casual = farmer.http.post(
            "/api/challenges", json={"target": "Socio", "rules": {"players": 2}}
        )
        accepted = partner.http.post(f"/api/challenges/{casual.json()['id']}/accept")
        assert accepted.status_code == 200 and accepted.json()["table"], accepted.text


def _queued(server: LiveServer, token: str) -> Any:
    ws = connect(f"{server.ws_url}/ws/queue?queue={RATED}", open_timeout=10, legacy=True)
    ws.send(json.dumps({"type": "hello", "token": token}))
    assert json.loads(ws.recv(timeout=10))["type"] == "queued"
    return ws


def _frames(ws: Any) -> list[dict[str, Any]]:
    frames = []
    try:
        while True:
            frames.append(json.loads(ws.recv(timeout=20)))
    except ConnectionClosed:
        return frames


def _until_matched(ws: Any, seconds: float) -> dict[str, Any] | None:
    """The ``matched`` frame if it comes within ``seconds``; None if only waiting does.
    An error frame fails the test: a rated queue keeps apart, it does not refuse."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            frame = json.loads(ws.recv(timeout=left))
        except TimeoutError:
            return None
        assert frame["type"] != "error", frame
        if frame["type"] == "matched":
            return dict(frame)
    return None


def test_the_rated_queue_keeps_two_accounts_of_one_address_apart(tmp_path: Any) -> None:
    """They are not paired, nor told off: each waits, and is paired with the next player
    from elsewhere; the same two may play a casual match."""
    url = f"sqlite:///{tmp_path / 't.sqlite3'}"
    with LiveServer(strict(url)) as server:
        farmer, feeder = Cheater(server, "Granjero"), Cheater(server, "Regalon")
        first, second = _queued(server, farmer.token), _queued(server, feeder.token)
        assert _until_matched(first, 3) is None and _until_matched(second, 0.5) is None
        assert httpx.get(f"{server.url}/api/tables").json() == []
        rival = Cheater(server, "Forastera")
        with Store(url).engine.begin() as conn:  # she signed up from another address
            conn.execute(
                account_addresses_table.update()
                .where(account_addresses_table.c.account_id == rival.id)
                .values(address="198.51.100.2")
            )
        third = _queued(server, rival.token)
        with_rival = _until_matched(third, 20)
        assert with_rival is not None
        assert _until_matched(first, 20) == with_rival  # the longest waiting of the two
        assert _until_matched(second, 1) is None  # still waiting, still not told off
        for ws in (first, second, third):
            ws.close()
        # and the same two may play a casual match
        casual = "1v1-sinflor-15-casual"
        sockets = []
        for token in (farmer.token, feeder.token):
            ws = connect(f"{server.ws_url}/ws/queue?queue={casual}", open_timeout=10, legacy=True)
            ws.send(json.dumps({"type": "hello", "token": token}))
            sockets.append(ws)
        tables = {f.get("table") for ws in sockets for f in _frames(ws) if f["type"] == "matched"}
        assert len(tables) == 1


def test_the_farm_of_the_issue_moves_no_rating(tmp_path: Any) -> None:
    """A rated table made anyway (here: tables open, as a rematch of an old match would
    be): the match is played, and recorded unrated, with why."""
    config = strict(f"sqlite:///{tmp_path / 't.sqlite3'}", rated_tables_open=True)
    with LiveServer(config) as server:
        farmer, feeder = Cheater(server, "Granjero"), Cheater(server, "Regalon")
        table = farmer.http.post(
            "/api/tables", json={"rules": {"players": 2, "target": 15}, "seat": 0, "rated": True}
        ).json()
        a = TableClient(server.ws_url, table["id"], farmer.token)
        b = TableClient(server.ws_url, table["id"], feeder.token)
        b.send({"type": "sit", "seat": 1})
        play_until_over([a, b], loser=b)  # the feeder goes to the mazo every hand
        profile = recorded(farmer, 1)  # type: ignore[arg-type]
        assert profile["matches"][0]["rated"] is False
        result = farmer.http.get(f"/api/matches/{table['id']}/result").json()
        assert (result["rated"], result["unrated_reason"]) == (False, "rated_same_address")
        assert farmer.rating() == {"rating": 1500, "games": 0, "provisional": True}
        assert feeder.rating()["games"] == 0


def test_an_address_signs_up_a_few_accounts_a_day(tmp_path: Any) -> None:
    with LiveServer(
        strict(f"sqlite:///{tmp_path / 't.sqlite3'}", signups_per_address_day=2)
    ) as live:
        for name in ("Primero", "Segundo"):
            Cheater(live, name)
        third = httpx.post(
            f"{live.url}/api/accounts", json={"name": "Tercero", "password": PASSWORD}
        )
        assert (third.status_code, third.json()["code"]) == (429, "signup_limit")
        assert third.json()["params"]["limit"] == 2
        # logging in to the accounts made still works
        login = httpx.post(f"{live.url}/api/login", json={"name": "Primero", "password": PASSWORD})
        assert login.status_code == 200


def test_provisional_and_banned_accounts_are_off_the_public_leaderboard(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 't.sqlite3'}"
    with LiveServer(strict(url)) as server:
        players = {name: Cheater(server, name) for name in ("Veterana", "Novata", "Tramposa")}
        with Store(url).engine.begin() as conn:
            for name, games, mu in (
                ("Veterana", 10, 26.0),
                ("Novata", 9, 40.0),
                ("Tramposa", 30, 45.0),
            ):
                conn.execute(
                    insert(ratings_table).values(
                        player_id=players[name].id, mode="1v1", mu=mu, sigma=2.0, games=games,
                        updated_at=time.time(),
                    )
                )  # fmt: skip

        def board() -> list[str]:
            listed = httpx.get(f"{server.url}/api/leaderboard").json()["players"]
            return [p["name"] for p in listed]

        assert board() == ["Tramposa", "Veterana"]  # Novata: provisional (9 games)
        moderation.ban(Store(url).engine, "test", "Tramposa", "farmed")
        assert board() == ["Veterana"]


# ------------------------------------------------------------------ recording (the database)
def _account(store: Store, name: str) -> str:
    return accounts.create(store.engine, name, "not-a-hash", None).id


def _rated(store: Store, seats: list[str], fair: FairPlay) -> tuple[bool, str | None]:
    match_id = finished(store, [human(i, p) for i, p in enumerate(seats)], 0)
    assert record_result(store.engine, match_id, fair)
    with store.engine.connect() as conn:
        row = conn.execute(results_table.select().where(results_table.c.match_id == match_id)).one()
    return bool(row.rated), row.unrated_reason


def test_a_pair_meets_in_a_few_rated_matches_a_day(store: Store) -> None:
    fair = FairPlay(pair_per_day=2, same_address=True)
    tag = uuid.uuid4().hex[:6]
    a, b, c, d = (_account(store, f"{n}{tag}") for n in "ABCD")
    assert _rated(store, [a, b], fair) == (True, None)
    assert _rated(store, [b, a], fair) == (True, None)  # seats swapped: the same pair
    assert _rated(store, [a, b], fair) == (False, "rated_pair_limit")
    assert _rated(store, [a, c], fair) == (True, None)  # another opponent
    # teammates are not opponents: a and b together against c and d
    assert _rated(store, [a, c, b, d], fair) == (True, None)
    with store.engine.connect() as conn:
        assert ratings_of(conn, a)["1v1"].games == 3  # the unrated one did not count
    # without the limit (0) the same pair is rated again
    assert _rated(store, [a, b], FairPlay(pair_per_day=0, same_address=True)) == (True, None)


def test_accounts_seen_at_one_address_are_not_rated_against_each_other(store: Store) -> None:
    tag = uuid.uuid4().hex[:6]
    a, b, c = (_account(store, f"{n}{tag}") for n in "XYZ")
    now = time.time()
    seen_at(store.engine, a, "203.0.113.7", now)
    seen_at(store.engine, b, "203.0.113.7", now)
    seen_at(store.engine, c, "198.51.100.2", now)
    fair = FairPlay(pair_per_day=0)
    assert _rated(store, [a, b], fair) == (False, "rated_same_address")
    assert _rated(store, [a, c], fair) == (True, None)
    # teammates from one address are fine (a family at home playing together)
    with store.engine.connect() as conn:
        assert rated_refusal(conn, fair, [[a, b], [c]], now) is None
        # an address seen longer ago than address_days no longer links them
        later = now + 31 * 86400
        assert rated_refusal(conn, fair, [[a], [b]], later) is None
        assert rated_refusal(conn, fair, [[a], [b]], now) == "rated_same_address"


def test_a_frozen_rating_does_not_move_but_its_opponents_does(store: Store) -> None:
    tag = uuid.uuid4().hex[:6]
    frozen, other = _account(store, f"Helada{tag}"), _account(store, f"Otra{tag}")
    moderation.freeze_rating(store.engine, "test", f"Helada{tag}", True, "under review")
    assert _rated(store, [frozen, other], FairPlay(pair_per_day=0, same_address=True))[0]
    with store.engine.connect() as conn:
        assert ratings_of(conn, frozen)["1v1"].games == 0
        assert ratings_of(conn, other)["1v1"].games == 1
        assert [p for p, _ in top(conn, "1v1", 10)] == [other]


@pytest.mark.parametrize("trusted", ["127.0.0.1", "10.9.9.9"])
def test_behind_a_balancer_the_players_address_is_the_forwarded_one(
    tmp_path: Any, trusted: str
) -> None:
    """``truco serve --forwarded-allow-ips``: the balancer's X-Forwarded-For names each
    player, so two players behind one balancer are two addresses (and may be rated); from
    a host that is not a trusted balancer, the header is ignored."""
    from test_logs import serve, stop

    forwarded = {"Norte": "203.0.113.5", "Sur": "198.51.100.9"}
    process, base = serve(tmp_path, "--forwarded-allow-ips", trusted)
    try:
        for name, address in forwarded.items():
            made = httpx.post(
                f"{base}/api/accounts",
                json={"name": name, "password": PASSWORD},
                headers={"X-Forwarded-For": address},
            )
            assert made.status_code == 201, made.text
    finally:
        stop(process)
    store = Store(f"sqlite:///{tmp_path / 'logs.sqlite3'}")
    with store.engine.connect() as conn:
        rows = conn.execute(accounts_table.select().order_by(accounts_table.c.created_at)).all()
        ids = [r.id for r in rows]
        refusal = rated_refusal(conn, FairPlay(), [[ids[0]], [ids[1]]], time.time())
    store.engine.dispose()
    if trusted == "127.0.0.1":
        assert {r.name: r.signup_address for r in rows} == forwarded
        assert refusal is None
    else:
        assert {r.signup_address for r in rows} == {"127.0.0.1"}
        assert refusal == "rated_same_address"


def test_a_rated_ticket_keeps_apart_whom_the_rules_would_refuse(store: Store) -> None:
    """What the rated queue keeps apart is what :func:`rated_refusal` would refuse: one
    address (unless allowed), and the pairs that met their rated matches of the day."""
    tag = uuid.uuid4().hex[:6]
    a, b, c, d = (_account(store, f"{n}{tag}") for n in "PQRS")
    now = time.time()
    seen_at(store.engine, a, "203.0.113.8", now)
    seen_at(store.engine, b, "203.0.113.8", now)
    seen_at(store.engine, c, "198.51.100.3", now)
    strict_rules = FairPlay(pair_per_day=1)
    with store.engine.connect() as conn:
        assert kept_apart(conn, strict_rules, a, now) == {b}
        assert kept_apart(conn, strict_rules, c, now) == set()
        assert kept_apart(conn, FairPlay(pair_per_day=1, same_address=True), a, now) == set()
        assert kept_apart(conn, strict_rules, a, now + 31 * 86400) == set()  # long ago
    assert _rated(store, [c, d], FairPlay(pair_per_day=1, same_address=True)) == (True, None)
    with store.engine.connect() as conn:
        played = conn.execute(sa_func.max(results_table.c.finished_at).select()).scalar_one()
        after = played + 60  # the stored match's clock, a minute later
        assert kept_apart(conn, strict_rules, c, after) == {d}
        assert kept_apart(conn, strict_rules, d, after) == {c}
        assert kept_apart(conn, FairPlay(pair_per_day=2), c, after) == set()
        assert kept_apart(conn, strict_rules, c, after + 86400) == set()  # a day later
        for x, y in ((a, b), (c, d), (a, c)):
            refused = rated_refusal(conn, strict_rules, [[x], [y]], after) is not None
            assert refused == (y in kept_apart(conn, strict_rules, x, after))
