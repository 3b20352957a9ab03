"""Tournaments over HTTP (server/tournaments_api.py) and their director: what may be
organised and entered, and (slow) whole Swiss and arena tournaments of accounts whose
moves test clients choose with a bot, over the real server on SQLite, played to the end,
their standings equal to a recomputation from the matches' own records."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from server_testing import OPEN_PLAY, LiveServer, TableClient, play_out
from truco.actions import action_token, parse_action
from truco.bots import make_bot
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.lobby.tournaments import records
from truco.server.lobby.tournaments.matching import Game, arena_points, swiss_standings
from truco.server.people import moderation
from truco.server.people.players import Player
from truco.server.storage.store import Store, matches_table
from truco.view import SeatView

_names = iter(range(10**6))


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("db") / "truco.sqlite3"


@pytest.fixture(scope="module")
def server(db_path: Path) -> Iterator[LiveServer]:
    config = ServerConfig(
        **OPEN_PLAY,  # many accounts from one address, rated among themselves
        db_url=f"sqlite:///{db_path}",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        login_rate="1000/minute",
        rate_per_second=10000.0,  # the test's clients play as fast as they can
        rate_burst=10000,
    )
    with LiveServer(config) as live:
        yield live


class Entrant:
    """An account: its browser (the cookie) and its token (for the table's socket)."""

    def __init__(self, server: LiveServer, prefix: str = "Torneo") -> None:
        self.name = f"{prefix}{next(_names)}"
        self.http = httpx.Client(base_url=server.url, timeout=30)
        answer = self.http.post(
            "/api/accounts", json={"name": self.name, "password": "mate-cocido-7"}
        )
        assert answer.status_code == 201, answer.text
        self.token = str(answer.json()["token"])


def organise(who: Entrant, **body: Any) -> dict[str, Any]:
    answer = who.http.post("/api/tournaments", json={"name": "Copa", "format": "swiss", **body})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


# ------------------------------------------------------------------ organising, entering
def test_what_may_be_organised_and_by_whom(server: LiveServer) -> None:
    ana = Entrant(server)
    visitor = httpx.Client(base_url=server.url, timeout=30)
    visitor.post("/api/guest", json={"name": "Paseante"})
    refused = visitor.post("/api/tournaments", json={"name": "X", "format": "swiss"})
    assert (refused.status_code, refused.json()["code"]) == (403, "account_only")
    cases = [
        ({"official": True}, 403, "tournament_official"),
        ({"rules": {"target": 9}}, 400, "bad_rules"),
        ({"rules": {"hand_size": 1}}, 400, "bad_rules"),
        ({"format": "liga"}, 422, "invalid_request"),
        ({"rounds": 0}, 422, "invalid_request"),
        ({"name": ""}, 422, "invalid_request"),
        ({"name": "\u0000\u202e "}, 400, "tournament_name"),  # nothing printable
    ]
    for extra, status, code in cases:
        answer = ana.http.post(
            "/api/tournaments", json={"name": "Copa", "format": "swiss", **extra}
        )
        assert (answer.status_code, answer.json()["code"]) == (status, code), extra
    moderation.set_role(server.app.state.server.store.engine, "admin", ana.name, "moderator", "x")
    official = organise(ana, official=True, starts_in=3600)  # a moderator's: official
    assert official["official"] is True
    made = organise(ana, rounds=3, starts_in=3600, rules={"target": 15})
    assert made["status"] == "open" and made["rounds"] == 3 and made["rules"]["target"] == 15
    assert made["organiser"] == ana.name and made["standings"] == []
    listed = httpx.get(f"{server.url}/api/tournaments").json()
    assert made["id"] in [t["id"] for t in listed["open"]]
    page = httpx.get(f"{server.url}/torneos/{made['id']}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    missing = httpx.get(f"{server.url}/api/tournaments/nada")
    assert (missing.status_code, missing.json()["code"]) == (404, "tournament_not_found")


def test_entering_withdrawing_and_starting(server: LiveServer) -> None:
    ana, beto, cami = Entrant(server), Entrant(server), Entrant(server)
    made = organise(ana, starts_in=3600, max_entrants=2)
    path = f"/api/tournaments/{made['id']}"
    early = ana.http.post(f"{path}/start")
    assert (early.status_code, early.json()["code"]) == (409, "tournament_too_few")
    assert early.json()["params"] == {"min": 2}
    assert [s["name"] for s in beto.http.post(f"{path}/join").json()["standings"]] == [beto.name]
    cami.http.post(f"{path}/join")
    full = ana.http.post(f"{path}/join")
    assert (full.status_code, full.json()["code"]) == (409, "tournament_full")
    withdrawn = cami.http.post(f"{path}/withdraw").json()["standings"]
    assert {s["name"]: s["withdrawn"] for s in withdrawn} == {beto.name: False, cami.name: True}
    cami.http.post(f"{path}/join")  # back in (a place of their own, kept)
    not_yours = beto.http.post(f"{path}/start")
    assert (not_yours.status_code, not_yours.json()["code"]) == (403, "tournament_not_organiser")
    assert ana.http.post(f"{path}/start").status_code == 200
    started = wait_for(server, made["id"], lambda t: t["status"] == "running" and t["games"])
    assert started["round"] == 1 and len(started["games"]) == 1
    late = Entrant(server).http.post(f"{path}/join")
    assert (late.status_code, late.json()["code"]) == (409, "tournament_closed")
    mine = httpx.get(f"{server.url}/api/tournaments", params={"player": beto.name}).json()
    assert [t["id"] for t in mine["running"]] == [made["id"]]


# ------------------------------------------------------------------ whole tournaments
def wait_for(
    server: LiveServer, tournament_id: str, predicate: Any, timeout: float = 60.0
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        data: dict[str, Any] = httpx.get(f"{server.url}/api/tournaments/{tournament_id}").json()
        if predicate(data):
            return data
        if time.monotonic() > deadline:
            raise TimeoutError(f"the tournament did not get there: {data}")
        time.sleep(0.2)


def wait_for_profile(who: Entrant, predicate: Any, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        profile: dict[str, Any] = who.http.get(f"/api/players/{who.name}").json()
        if predicate(profile) or time.monotonic() > deadline:
            return profile
        time.sleep(0.2)


def bot_chooser(seed: int, rules: Rules) -> Any:
    """The moves of the ``simple`` bot, chosen from each client's own view."""
    bot = make_bot("simple")
    rng = random.Random(seed)

    def choose(client: TableClient, view: dict[str, Any]) -> str | None:
        legal = [parse_action(a) for a in view["legal"] if not a.startswith("say")]
        if not legal:
            return None
        seat_view = SeatView.from_json(view)
        try:
            return action_token(bot.choose(seat_view, legal, rules))
        except Exception:  # a bot that cannot decide here: any legal move
            return action_token(rng.choice(legal))

    return choose


def play_game(
    server: LiveServer, table_id: str, seats: list[Entrant], seed: int, rules: Rules
) -> None:
    clients = [TableClient(server.ws_url, table_id, who.token) for who in seats]
    try:
        for client in clients:
            client.wait_state(lambda s: s.get("view") is not None)
        play_out(clients, bot_chooser(seed, rules), timeout=240)
    finally:
        for client in clients:
            client.close()


def winners_from_records(db_path: Path, tables: list[str]) -> dict[str, int | None]:
    """Each table's winning team as its match's own row says."""
    engine = create_engine(f"sqlite:///{db_path}")
    with engine.connect() as conn:
        rows = conn.execute(
            select(matches_table.c.id, matches_table.c.winner).where(matches_table.c.id.in_(tables))
        ).all()
    engine.dispose()
    return {row.id: row.winner for row in rows}


@pytest.mark.slow
def test_a_swiss_tournament_of_eight_is_played_to_the_end(
    server: LiveServer, db_path: Path
) -> None:
    people = [Entrant(server, "Suizo") for _ in range(8)]
    by_name = {p.name: p for p in people}
    made = organise(people[0], rounds=3, starts_in=3600, rules={"target": 15}, rated=True)
    tid = made["id"]
    for who in people:
        assert who.http.post(f"/api/tournaments/{tid}/join").status_code == 200
    people[0].http.post(f"/api/tournaments/{tid}/start")
    played: set[str] = set()
    for number in (1, 2, 3):
        data = wait_for(
            server,
            tid,
            lambda t, n=number: t["round"] == n and all(g["table"] for g in t["games"]),
        )
        this_round = [g for g in data["games"] if g["round"] == number]
        assert len(this_round) == 4  # everyone plays every round
        assert len({g["first"] for g in this_round} | {g["second"] for g in this_round}) == 8
        for i, game in enumerate(this_round):
            seats = [by_name[game["first"]], by_name[game["second"]]]
            play_game(server, game["table"], seats, 10 * number + i, Rules(target=15))
            played.add(game["table"])
    final = wait_for(server, tid, lambda t: t["status"] == "finished")
    pairs = [frozenset((g["first"], g["second"])) for g in final["games"]]
    assert len(pairs) == 12 and len(set(pairs)) == 12  # no rematch
    # the standings, recomputed from the matches' own records
    winners = winners_from_records(db_path, sorted(played))
    games = [
        Game(g["first"], g["second"], (g["first"], g["second"])[winners[g["table"]] or 0])
        for g in final["games"]
    ]
    expected = swiss_standings(list(by_name), games)
    shown = [(s["name"], s["points"], s["buchholz"]) for s in final["standings"]]
    assert sorted(shown) == sorted((s.id, s.points, s.buchholz) for s in expected)
    ranks = [(-points, -buchholz) for _, points, buchholz in shown]  # ties: by account id
    assert ranks == sorted(ranks)
    assert sum(s["points"] for s in final["standings"]) == 12
    # rated: every match counted in everyone's rating (recorded as each match ended)
    for who in people:
        profile = wait_for_profile(who, lambda p: p["ratings"]["1v1"]["games"] == 3)
        assert len(profile["matches"]) == 3


def busy(tournament: dict[str, Any]) -> int:
    """How many of the tournament's games are being played."""
    return sum(g["status"] == "playing" for g in tournament["games"])


def ended(tournament: dict[str, Any], table: str) -> bool:
    """Whether the director saw the game of ``table`` end."""
    return any(g["table"] == table and g["status"] == "done" for g in tournament["games"])


@pytest.mark.slow
def test_an_arena_pairs_whoever_is_free_until_the_time_is_up(
    server: LiveServer, db_path: Path
) -> None:
    people = [Entrant(server, "Arena") for _ in range(5)]
    by_name = {p.name: p for p in people}
    rules = Rules(target=15)
    made = organise(people[0], format="arena", minutes=5, starts_in=3600, rules={"target": 15})
    tid = made["id"]
    for who in people:
        who.http.post(f"/api/tournaments/{tid}/join")
    people[0].http.post(f"/api/tournaments/{tid}/start")
    seated = wait_for(server, tid, lambda t: sum(bool(g["table"]) for g in t["games"]) == 2)
    assert seated["status"] == "running" and seated["round"] == 0
    played: list[str] = []
    director = server.app.state.director
    deadline = time.monotonic() + 300
    while True:
        data = httpx.get(f"{server.url}/api/tournaments/{tid}").json()
        if data["status"] == "finished":
            break
        assert time.monotonic() < deadline, data
        playing = [g for g in data["games"] if g["status"] == "playing" and g["table"]]
        # nobody idle while two are free: with five entrants, two games at all times
        if director.clock() < data["ends_at"]:
            assert busy(data) == 2, data
        for game in playing[:1]:
            seats = [by_name[game["first"]], by_name[game["second"]]]
            play_game(server, game["table"], seats, len(played), rules)
            played.append(game["table"])
            # the two just freed are paired at once, but not together while another waits
            after = wait_for(
                server,
                tid,
                lambda t, table=game["table"]: (
                    ended(t, table) and (busy(t) == 2 or t["ends_at"] <= director.clock())
                ),
            )
            again = [{x["first"], x["second"]} for x in after["games"] if x["status"] == "playing"]
            assert {game["first"], game["second"]} not in again
        if len(played) == 5:
            director.clock = lambda: time.time() + 600  # the arena's time is up
        time.sleep(0.1)
    final = data
    assert all(g["table"] in played for g in final["games"]) and len(played) >= 5
    winners = winners_from_records(db_path, played)
    in_order = sorted(final["games"], key=lambda g: g["ended"])
    games = [
        Game(g["first"], g["second"], (g["first"], g["second"])[winners[g["table"]] or 0])
        for g in in_order
    ]
    expected = arena_points(list(by_name), games)
    shown = [(s["name"], s["points"], s["wins"]) for s in final["standings"]]
    assert sorted(shown) == sorted((s.id, s.points, s.wins) for s in expected)
    ranks = [(-points, -wins) for _, points, wins in shown]  # ties: by account id
    assert ranks == sorted(ranks)


def test_one_director_at_a_time_until_its_lease_runs_out(tmp_path: Path) -> None:
    """On a cluster every node's director looks at the same rows: the lease (a conditional
    update of the tournament's row) lets one direct it, and another take over once the
    first stops renewing."""
    store = Store(f"sqlite:///{tmp_path / 'lease.sqlite3'}")
    engine = store.engine
    spec = records.NewTournament("Copa", "swiss", {}, False, 3, 0, time.time(), 8)
    tid = records.create(engine, Player("org", "Organiza", account=True), spec)
    with engine.begin() as conn:
        assert records.claim(conn, tid, "node-a", now=100.0, lease=15.0)
        assert not records.claim(conn, tid, "node-b", now=105.0, lease=15.0)
        assert records.claim(conn, tid, "node-a", now=110.0, lease=15.0)  # renewed
        assert not records.claim(conn, tid, "node-b", now=124.0, lease=15.0)
        assert records.claim(conn, tid, "node-b", now=126.0, lease=15.0)  # a lapsed lease
        assert not records.claim(conn, tid, "node-a", now=127.0, lease=15.0)
    engine.dispose()


def test_teams_enter_a_team_tournament_with_their_partners(server: LiveServer) -> None:
    ana, beto, cami, dani = (Entrant(server, "Pareja") for _ in range(4))
    made = organise(ana, rules={"players": 4}, starts_in=3600)
    path = f"/api/tournaments/{made['id']}/join"
    alone = ana.http.post(path)
    assert (alone.status_code, alone.json()["code"]) == (400, "tournament_team")
    assert alone.json()["params"] == {"partners": 1}
    entered = ana.http.post(path, json={"partners": [beto.name]}).json()
    assert [(s["name"], s["members"]) for s in entered["standings"]] == [
        (f"{ana.name} & {beto.name}", [ana.name, beto.name])
    ]
    for who, partner in ((cami, beto), (beto, dani)):  # Beto plays in Ana's team already
        taken = who.http.post(path, json={"partners": [partner.name]})
        assert (taken.status_code, taken.json()["code"]) == (409, "tournament_in_team")
    assert cami.http.post(path, json={"partners": [dani.name]}).status_code == 200
    solo = organise(dani, starts_in=3600)
    extra = ana.http.post(f"/api/tournaments/{solo['id']}/join", json={"partners": [beto.name]})
    assert (extra.status_code, extra.json()["code"]) == (400, "tournament_team")


@pytest.mark.slow
def test_a_pairs_tournament_is_played_to_the_end(server: LiveServer, db_path: Path) -> None:
    """2v2: four pairs, two Swiss rounds; each game's table seats the first pair in the
    even seats and the second in the odd ones, and four clients play it."""
    people = [Entrant(server, "Dupla") for _ in range(8)]
    by_name = {p.name: p for p in people}
    made = organise(people[0], rules={"players": 4, "target": 15}, rounds=2, starts_in=3600)
    tid = made["id"]
    for captain, partner in zip(people[::2], people[1::2], strict=True):
        joined = captain.http.post(
            f"/api/tournaments/{tid}/join", json={"partners": [partner.name]}
        )
        assert joined.status_code == 200, joined.text
    people[0].http.post(f"/api/tournaments/{tid}/start")
    tables: list[str] = []
    for number in (1, 2):
        data = wait_for(
            server,
            tid,
            lambda t, n=number: t["round"] == n and all(g["table"] for g in t["games"]),
        )
        for i, game in enumerate(g for g in data["games"] if g["round"] == number):
            seats = server_seats(server, game["table"])
            first, second = game["players"][:2], game["players"][2:]
            assert seats == [first[0], second[0], first[1], second[1]]
            play_game(
                server,
                game["table"],
                [by_name[n] for n in seats],
                10 * number + i,
                Rules(players=4, target=15),
            )
            tables.append(game["table"])
    final = wait_for(server, tid, lambda t: t["status"] == "finished")
    winners = winners_from_records(db_path, tables)
    games = [
        Game(g["first"], g["second"], (g["first"], g["second"])[winners[g["table"]] or 0])
        for g in final["games"]
    ]
    expected = swiss_standings([s["name"] for s in final["standings"]], games)
    shown = [(s["name"], s["points"], s["buchholz"]) for s in final["standings"]]
    assert sorted(shown) == sorted((s.id, s.points, s.buchholz) for s in expected)


def server_seats(server: LiveServer, table: str) -> list[str]:
    summary = httpx.get(f"{server.url}/api/tables/{table}").json()
    return [s["name"] for s in summary["seats"]]
