"""Friends and challenges over HTTP (server/friends_api.py, challenges_api.py): follow and
see where a friend is, hide one's presence, block (no follow, no challenge, never seated
together by casual quick match), challenge by name or by link, accept, decline, cancel."""

from __future__ import annotations

import contextlib
import io
import os
import threading
import time
from collections.abc import Iterator
from unittest import mock

import httpx
import pytest

from server_testing import OPEN_PLAY, LiveServer
from truco.server import ServerConfig
from truco.server.lobby.matchmaking import QueueKey, Ticket, pair

_names = iter(range(10**6))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    config = ServerConfig(
        **OPEN_PLAY,  # many accounts from one address, rated among themselves
        db_url=f"sqlite:///{tmp_path_factory.mktemp('db') / 'truco.sqlite3'}",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        login_rate="1000/minute",
        max_tables_per_guest=100,
        max_tables_per_address=100,
    )
    with LiveServer(config) as live:
        yield live


def account(server: LiveServer, prefix: str = "Amigo") -> tuple[httpx.Client, str]:
    """A browser logged in to a new account, and its name."""
    name = f"{prefix}{next(_names)}"
    http = httpx.Client(base_url=server.url, timeout=30)
    answer = http.post("/api/accounts", json={"name": name, "password": "mate-cocido-7"})
    assert answer.status_code == 201, answer.text
    return http, name


def guest(server: LiveServer) -> httpx.Client:
    http = httpx.Client(base_url=server.url, timeout=30)
    assert http.post("/api/guest", json={"name": f"Invitado{next(_names)}"}).status_code == 200
    return http


def following(http: httpx.Client) -> dict[str, dict[str, object]]:
    data = http.get("/api/friends").json()
    return {f["name"]: f for f in data["following"]}


# ------------------------------------------------------------------ friends
def test_following_shows_where_a_friend_is_and_hiding_shows_them_offline(
    server: LiveServer,
) -> None:
    ana, ana_name = account(server)
    beto, beto_name = account(server)
    assert ana.put(f"/api/friends/{beto_name}").json() == {"following": beto_name}
    assert ana.put(f"/api/friends/{beto_name}").status_code == 200  # again: nothing changes
    assert following(ana)[beto_name]["status"] == "online"  # he just used his session
    assert beto.get("/api/friends").json()["followers"] == [ana_name]
    table = beto.post("/api/tables", json={"seat": 0, "bots": {"1": "simple"}}).json()
    seen = following(ana)[beto_name]
    assert seen == {"id": seen["id"], "name": beto_name, "status": "playing", "table": table["id"]}
    assert beto.put("/api/me/presence", json={"hidden": True}).json() == {"hidden": True}
    assert following(ana)[beto_name]["status"] == "offline"
    assert following(ana)[beto_name]["table"] is None
    assert beto.get("/api/friends").json()["hidden"] is True
    beto.put("/api/me/presence", json={"hidden": False})
    assert following(ana)[beto_name]["status"] == "playing"
    assert ana.delete(f"/api/friends/{beto_name}").status_code == 200
    assert following(ana) == {}


def test_friends_are_for_accounts_and_bad_names_say_so(server: LiveServer) -> None:
    visitor = guest(server)
    _, name = account(server)
    refused = visitor.put(f"/api/friends/{name}")
    assert refused.status_code == 403 and refused.json()["code"] == "account_only"
    ana, ana_name = account(server)
    assert ana.put("/api/friends/NadieConEseNombre").json()["code"] == "player_not_found"
    assert ana.put(f"/api/friends/{ana_name}").json()["code"] == "follow_self"
    assert ana.put("/api/me/presence", json={"hidden": "yes"}).status_code == 422
    assert httpx.get(f"{server.url}/api/friends").status_code == 401


def test_a_block_ends_follows_both_ways_and_refuses_follows_and_challenges(
    server: LiveServer,
) -> None:
    ana, ana_name = account(server)
    beto, beto_name = account(server)
    beto.put(f"/api/friends/{ana_name}")
    ana.put(f"/api/friends/{beto_name}")
    assert ana.put(f"/api/blocks/{beto_name}").json() == {"blocked": beto_name}
    assert following(ana) == {} and following(beto) == {}
    assert ana.get("/api/friends").json()["blocked"][0]["name"] == beto_name
    for who, other in ((beto, ana_name), (ana, beto_name)):
        refused = who.put(f"/api/friends/{other}")
        assert (refused.status_code, refused.json()["code"]) == (403, "follow_blocked")
        refused = who.post("/api/challenges", json={"target": other})
        assert (refused.status_code, refused.json()["code"]) == (403, "challenge_blocked")
    # an open link of the one blocked cannot be taken by the one who blocked, either
    link = beto.post("/api/challenges", json={}).json()
    refused = ana.post(f"/api/challenges/{link['id']}/accept")
    assert refused.json()["code"] == "challenge_blocked"
    assert ana.delete(f"/api/blocks/{beto_name}").status_code == 200
    assert beto.put(f"/api/friends/{ana_name}").status_code == 200


def test_casual_quick_match_never_seats_a_block_together() -> None:
    key = QueueKey.parse("1v1-sinflor-15-casual")
    ana = Ticket("a", "Ana", 1500, 0.0, avoid=frozenset({"b"}))
    beto = Ticket("b", "Beto", 1500, 0.0, avoid=frozenset({"a"}))
    assert pair(key, [ana, beto], now=100.0) == []
    cami = Ticket("c", "Cami", 1500, 1.0)
    tables = pair(key, [ana, beto, cami], now=100.0)
    assert len(tables) == 1 and "Cami" in tables[0].names()  # one of them plays Cami
    assert {"Ana", "Beto"} - set(tables[0].names())
    assert Ticket.from_json(ana.to_json()) == ana  # as the Redis queue keeps it


# ------------------------------------------------------------------ challenges
def test_a_challenge_by_name_accepted_seats_both_at_a_new_table(server: LiveServer) -> None:
    ana, _ = account(server)
    beto, beto_name = account(server)
    sent = ana.post(
        "/api/challenges", json={"target": beto_name, "rules": {"target": 15}, "rated": True}
    ).json()
    assert sent["status"] == "open" and sent["link"] == f"/desafio/{sent['id']}"
    received = beto.get("/api/challenges").json()["received"]
    assert [c["id"] for c in received] == [sent["id"]]
    accepted = beto.post(f"/api/challenges/{sent['id']}/accept").json()
    assert accepted["status"] == "accepted" and accepted["table"]
    table = beto.get(f"/api/tables/{accepted['table']}").json()
    assert table["rated"] and table["rules"]["target"] == 15
    assert [s["kind"] for s in table["seats"]] == ["human", "human"]
    assert table["seats"][1]["name"] == beto_name
    mine = ana.get("/api/challenges").json()["sent"]
    assert mine[0]["table"] == accepted["table"]  # the challenger learns where to sit
    again = beto.post(f"/api/challenges/{sent['id']}/accept")
    assert (again.status_code, again.json()["code"]) == (409, "challenge_closed")
    assert again.json()["params"] == {"status": "accepted"}


def test_declined_cancelled_and_someone_elses_challenges_are_refused(
    server: LiveServer,
) -> None:
    ana, ana_name = account(server)
    beto, beto_name = account(server)
    cami, _ = account(server)
    one = ana.post("/api/challenges", json={"target": beto_name}).json()
    refused = cami.post(f"/api/challenges/{one['id']}/accept")
    assert (refused.status_code, refused.json()["code"]) == (403, "challenge_not_yours")
    assert cami.post(f"/api/challenges/{one['id']}/decline").json()["code"] == (
        "challenge_not_yours"
    )
    assert beto.post(f"/api/challenges/{one['id']}/decline").json()["status"] == "declined"
    assert ana.get("/api/challenges").json()["sent"][0]["status"] == "declined"
    two = ana.post("/api/challenges", json={"target": beto_name}).json()
    assert beto.delete(f"/api/challenges/{two['id']}").json()["code"] == "challenge_not_yours"
    assert ana.delete(f"/api/challenges/{two['id']}").json()["status"] == "cancelled"
    assert beto.get("/api/challenges").json()["received"] == []
    assert ana.post("/api/challenges", json={"target": ana_name}).json()["code"] == (
        "challenge_self"
    )
    assert ana.get("/api/challenges/nada").json()["code"] == "challenge_not_found"
    team = ana.post("/api/challenges", json={"target": beto_name, "rules": {"players": 4}})
    assert (team.status_code, team.json()["code"]) == (400, "challenge_1v1_only")
    bad = ana.post("/api/challenges", json={"rules": {"target": 7}})
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_rules")


def test_open_challenges_are_capped(server: LiveServer) -> None:
    ana, _ = account(server)
    for _ in range(5):
        assert ana.post("/api/challenges", json={}).status_code == 200
    refused = ana.post("/api/challenges", json={})
    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_challenges")


def test_a_link_is_taken_by_a_newcomer_and_a_rated_one_only_by_an_account(
    server: LiveServer,
) -> None:
    ana, ana_name = account(server)
    casual = ana.post("/api/challenges", json={}).json()
    rated = ana.post("/api/challenges", json={"rated": True}).json()
    seen = httpx.get(f"{server.url}/api/challenges/{casual['id']}").json()  # no session yet
    assert seen["challenger"] == ana_name and seen["target"] is None
    page = httpx.get(f"{server.url}{casual['link']}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    newcomer = guest(server)
    refused = newcomer.post(f"/api/challenges/{rated['id']}/accept")
    assert (refused.status_code, refused.json()["code"]) == (403, "account_needed")
    taken = newcomer.post(f"/api/challenges/{casual['id']}/accept").json()
    assert taken["status"] == "accepted" and taken["table"]
    table = newcomer.get(f"/api/tables/{taken['table']}").json()
    assert table["seats"][0]["name"] == ana_name and not table["rated"]
    guest_rated = newcomer.post("/api/challenges", json={"rated": True})
    assert guest_rated.json()["code"] == "account_needed"
    assert time.time() < taken["expires_at"]


def test_the_terminal_accepts_a_challenge_link(server: LiveServer) -> None:
    """``truco play --connect https://server/desafio/ID``: the terminal player takes the
    open challenge as a guest and sits at its table, the challenger in the first seat."""
    from truco.tui.remote import RemoteError, RemoteSession

    ana, ana_name = account(server)
    link = ana.post("/api/challenges", json={"rules": {"target": 15}}).json()
    session = RemoteSession.connect(f"{server.url}{link['link']}", name="Terminal")
    try:
        assert session.wanted_seat == 1 and session.rules.target == 15
        assert session.table_id == ana.get(f"/api/challenges/{link['id']}").json()["table"]
        seats = ana.get(f"/api/tables/{session.table_id}").json()["seats"]
        assert [s["name"] for s in seats] == [ana_name, "Terminal"]
    finally:
        session.close()
    with pytest.raises(RemoteError, match="HTTP 409"):  # taken already: closed
        RemoteSession.connect(f"{server.url}{link['link']}", name="Otro")


def test_the_terminal_logs_in_and_takes_a_challenge_sent_to_its_account(
    server: LiveServer,
) -> None:
    """``truco play --connect https://server/desafio/ID --login NAME``: a challenge sent
    to an account is taken from the terminal once logged in (a guest is refused), and a
    wrong password is one line, nothing seated."""
    from truco.cli import main
    from truco.tui.remote import RemoteError, RemoteSession

    (ana, ana_name), (_, beto_name) = account(server), account(server)
    sent = ana.post("/api/challenges", json={"target": beto_name, "rated": True}).json()
    link = f"{server.url}{sent['link']}"
    with pytest.raises(RemoteError, match="HTTP 403"):
        RemoteSession.connect(link, name="Colado")  # a guest: not theirs to take
    with pytest.raises(RemoteError, match="HTTP 401"):
        RemoteSession.connect(link, name=beto_name, password="not-her-password")
    assert ana.get(f"/api/challenges/{sent['id']}").json()["status"] == "open"
    session = RemoteSession.connect(link, name=beto_name, password="mate-cocido-7")
    try:
        assert session.wanted_seat == 1
        seats = ana.get(f"/api/tables/{session.table_id}").json()
        assert [s["name"] for s in seats["seats"]] == [ana_name, beto_name] and seats["rated"]
    finally:
        session.close()
    # the command: a wrong password, then none at all without a terminal to ask it in
    env = {"TRUCO_PASSWORD": "wrong-one-1"}
    for environ, expected in ((env, "HTTP 401"), ({"TRUCO_PASSWORD": ""}, "TRUCO_PASSWORD")):
        err = io.StringIO()
        with mock.patch.dict(os.environ, environ), contextlib.redirect_stderr(err):
            status = main(["play", "--connect", link, "--login", beto_name])
        assert status == 2 and expected in err.getvalue()
        assert len(err.getvalue().strip().splitlines()) == 1 and "Traceback" not in err.getvalue()


def test_the_terminal_takes_its_seat_in_a_team_challenge_once_everyone_says_yes(
    server: LiveServer,
) -> None:
    """A 2v2 challenge accepted from the terminal first: it waits (told once) for the
    others' yes, then sits in the seat the challenge gave it (a rival: seat 3)."""
    from truco.tui.remote import RemoteSession

    ana, _ = account(server)
    (beto, beto_name), (cami, cami_name) = account(server), account(server)
    _, dani_name = account(server)
    sent = ana.post(
        "/api/challenges",
        json={"rules": {"players": 4}, "partners": [beto_name], "rivals": [cami_name, dani_name]},
    ).json()
    told: list[str] = []
    found: list[RemoteSession] = []

    def terminal() -> None:
        found.append(
            RemoteSession.connect(
                f"{server.url}{sent['link']}",
                name=dani_name,
                password="mate-cocido-7",
                waiting=lambda: told.append("waiting"),
            )
        )

    thread = threading.Thread(target=terminal)
    thread.start()
    deadline = time.monotonic() + 15
    while not told and time.monotonic() < deadline:
        time.sleep(0.05)
    assert told == ["waiting"] and not found
    for who in (beto, cami):
        assert who.post(f"/api/challenges/{sent['id']}/accept").status_code == 200
    thread.join(20)
    assert told == ["waiting"] and len(found) == 1
    session = found[0]
    try:
        assert session.wanted_seat == 3
        seats = ana.get(f"/api/tables/{session.table_id}").json()["seats"]
        assert seats[3]["name"] == dani_name
    finally:
        session.close()


def test_a_team_challenge_seats_everyone_once_each_invited_player_says_yes(
    server: LiveServer,
) -> None:
    """2v2: Ana invites Beto as her partner and Cami and Dani as rivals; each accepts, and
    the table is made at the last yes, partners in the even seats, rivals in the odd."""
    (ana, ana_name), (beto, beto_name) = account(server), account(server)
    (cami, cami_name), (dani, dani_name) = account(server), account(server)
    sent = ana.post(
        "/api/challenges",
        json={"rules": {"players": 4}, "partners": [beto_name], "rivals": [cami_name, dani_name]},
    ).json()
    assert [(s["seat"], s["name"], s["accepted"]) for s in sent["seats"]] == [
        (0, ana_name, True), (1, cami_name, False), (2, beto_name, False), (3, dani_name, False),
    ]  # fmt: skip
    assert [c["id"] for c in dani.get("/api/challenges").json()["received"]] == [sent["id"]]
    for who in (beto, cami):
        waiting = who.post(f"/api/challenges/{sent['id']}/accept").json()
        assert waiting["status"] == "open" and waiting["table"] is None
    assert beto.get("/api/challenges").json()["received"] == []  # he said yes: no longer asked
    done = dani.post(f"/api/challenges/{sent['id']}/accept").json()
    assert done["status"] == "accepted" and done["table"]
    seats = ana.get(f"/api/tables/{done['table']}").json()["seats"]
    assert [s["name"] for s in seats] == [ana_name, cami_name, beto_name, dani_name]
    # every player who said yes learns the table (the page's watch takes them there)
    for who in (ana, beto, cami, dani):
        assert done["table"] in [c["table"] for c in who.get("/api/challenges").json()["sent"]]


def test_a_team_challenge_declined_ends_and_open_seats_go_to_the_link(
    server: LiveServer,
) -> None:
    ana, _ = account(server)
    (beto, beto_name), (cami, cami_name) = account(server), account(server)
    one = ana.post(
        "/api/challenges", json={"rules": {"players": 4}, "partners": [beto_name]}
    ).json()
    refused = cami.post(f"/api/challenges/{one['id']}/decline")  # not invited
    assert (refused.status_code, refused.json()["code"]) == (403, "challenge_not_yours")
    assert beto.post(f"/api/challenges/{one['id']}/decline").json()["status"] == "declined"
    two = ana.post("/api/challenges", json={"rules": {"players": 4}, "rivals": [cami_name]}).json()
    newcomers = [guest(server) for _ in range(2)]  # the two open seats: the link's
    newcomers[0].post(f"/api/challenges/{two['id']}/accept")
    cami.post(f"/api/challenges/{two['id']}/accept")
    done = newcomers[1].post(f"/api/challenges/{two['id']}/accept").json()
    assert done["status"] == "accepted" and all(s["accepted"] for s in done["seats"])
    late = guest(server).post(f"/api/challenges/{two['id']}/accept")
    assert (late.status_code, late.json()["code"]) == (409, "challenge_closed")
    too_many = ana.post(
        "/api/challenges", json={"rules": {"players": 4}, "rivals": ["a", "b", "c"]}
    )
    assert (too_many.status_code, too_many.json()["code"]) == (400, "challenge_seats")
    twice = ana.post(
        "/api/challenges",
        json={"rules": {"players": 4}, "partners": [cami_name], "rivals": [cami_name]},
    )
    assert (twice.status_code, twice.json()["code"]) == (409, "two_seats")
