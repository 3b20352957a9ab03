"""Moderation over HTTP and ``truco admin`` (issue 31, item 4): every moderator route refuses
players and guests (403) and sessionless requests (401); reports from a table, a replay and a
profile reach the moderators with the replay one click away; every action is in the audit log
with who, what and why; a ban ends the account's sessions and logins, hands its live seats
to bots at once and drops its quick-match ticket (SQLite and PostgreSQL); a ban made by
``truco admin`` on the database reaches the running server; guests' addresses are banned
for a time."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from databases import db_url
from server_testing import LiveServer, TableClient, create_table
from truco.cli import main
from truco.server import ServerConfig

__all__ = ["db_url"]  # the fixture, from databases

_names = itertools.count(1)
PASSWORD = "mate-cocido-7"


def settings(url: str, **more: Any) -> ServerConfig:
    """Fair play as it is (only sign-ups unlimited: the tests make many accounts), a
    reconnect grace of an hour (so that a bot in a banned player's seat is the ban's doing)."""
    values: dict[str, Any] = {
        "db_url": url,
        "bot_delay": 0,
        "turn_seconds": 0,
        "disconnect_grace": 3600,
        "http_rate": "100000/minute",
        "http_write_rate": "100000/minute",
        "max_tables_per_guest": 100,
        "max_tables_per_address": 100,
        "signups_per_address_day": 0,
        **more,
    }
    return ServerConfig(**values)


@pytest.fixture(scope="module")
def db_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('moderation') / 'truco.sqlite3'}"


@pytest.fixture(scope="module")
def server(db_file: str) -> Iterator[LiveServer]:
    with LiveServer(settings(db_file)) as live:
        yield live


class User:
    """An account (or a guest) with its HTTP client and token."""

    def __init__(self, server: LiveServer, prefix: str = "Jugador", guest: bool = False) -> None:
        self.name = f"{prefix}{next(_names)}"
        self.http = httpx.Client(base_url=server.url, timeout=30)
        if guest:
            answer = self.http.post("/api/guest", json={"name": self.name})
        else:
            answer = self.http.post("/api/accounts", json={"name": self.name, "password": PASSWORD})
        assert answer.status_code in (200, 201), answer.text
        self.id, self.token = answer.json()["id"], answer.json()["token"]

    def post(self, path: str, **body: Any) -> httpx.Response:
        return self.http.post(path, json=body)


def admin(db: str, *args: str) -> tuple[int, str, str]:
    """``truco admin ARGS --db DB`` in this process: status, stdout, stderr."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["admin", *args, "--db", db])
    return status, out.getvalue(), err.getvalue()


def moderator(server: LiveServer, db: str, role: str = "moderator") -> User:
    user = User(server, "Mira")
    status, out, _ = admin(db, "role", user.name, role, "--reason", "trusted regular")
    assert status == 0 and role in out
    return user


def eventually(check: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "it did not happen in time"
        time.sleep(0.05)


# ------------------------------------------------------------------ who may
MOD_CALLS = [
    ("GET", "/api/mod/reports", None),
    ("POST", "/api/mod/reports/1/close", {"reason": "x"}),
    ("GET", "/api/mod/players/Nadie", None),
    ("POST", "/api/mod/players/Nadie/ban", {"reason": "x"}),
    ("POST", "/api/mod/players/Nadie/unban", {"reason": "x"}),
    ("POST", "/api/mod/players/Nadie/rename", {"name": "Otro Nombre", "reason": "x"}),
    ("POST", "/api/mod/players/Nadie/rating", {"action": "freeze", "reason": "x"}),
    ("POST", "/api/mod/players/Nadie/role", {"role": "moderator", "reason": "x"}),
    ("GET", "/api/mod/address-bans", None),
    ("POST", "/api/mod/address-bans", {"address": "10.0.0.9", "hours": 1, "reason": "x"}),
    ("POST", "/api/mod/address-bans/remove", {"address": "10.0.0.9", "reason": "x"}),
    ("GET", "/api/mod/audit", None),
    ("GET", "/api/mod/signals", None),
]


def test_every_moderator_route_is_listed_here(server: LiveServer) -> None:
    """The 403 test below covers every ``/api/mod`` route the server has."""
    spec = httpx.get(f"{server.url}/openapi.json").json()
    routes = {
        (method.upper(), path)
        for path, methods in spec["paths"].items()
        if path.startswith("/api/mod/")
        for method in methods
    }
    templated = {
        (method, path.replace("Nadie", "{name}").replace("/1/", "/{report_id}/"))
        for method, path, _ in MOD_CALLS
    }
    assert routes == templated


def test_players_and_guests_may_not_call_a_moderators_route(server: LiveServer) -> None:
    player, guest = User(server), User(server, "Visita", guest=True)
    anonymous = httpx.Client(base_url=server.url)
    for method, path, body in MOD_CALLS:
        for who in (player, guest):
            answer = who.http.request(method, path, json=body)
            assert answer.status_code == 403, (path, answer.text)
            assert answer.json()["code"] == "moderators_only"
        assert anonymous.request(method, path, json=body).status_code == 401
    # nothing was done by the refused calls
    assert httpx.post(f"{server.url}/api/guest", json={"name": "Libre"}).status_code == 200


# ------------------------------------------------------------------ reports
def test_reports_from_a_table_a_replay_and_a_profile_reach_the_moderators(
    server: LiveServer, db_file: str
) -> None:
    rude, victim, bystander = User(server, "Grosero"), User(server), User(server)
    table = create_table(server.url, rude.token, rules={"players": 2}, seat=0, bots={"1": "simple"})
    with_bot = create_table(server.url, victim.token, rules={"players": 2}, seat=0)
    # from the table: the match and the seat, never an id the reporter sends
    made = victim.post(
        "/api/reports", context="table", match_id=table["id"], seat=0, reason="abuse",
        comment="insultos en el chat",
    )  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["player"] == rude.name
    # from a replay (the same route, context replay) and from a profile (the name)
    assert (
        bystander.post(
            "/api/reports", context="replay", match_id=table["id"], seat=0, reason="cheating"
        ).status_code
        == 201
    )
    assert (
        bystander.post("/api/reports", context="profile", name=rude.name, reason="name").status_code
        == 201
    )
    # refused: yourself, a bot's seat, an empty seat, a match that does not exist
    refusals = [
        (rude.post("/api/reports", context="profile", name=rude.name, reason="other"), 409,
         "report_self"),
        (victim.post("/api/reports", context="table", match_id=table["id"], seat=1,
                     reason="abuse"), 409, "no_report_target"),
        (rude.post("/api/reports", context="table", match_id=with_bot["id"], seat=1,
                   reason="abuse"), 409, "no_report_target"),
        (victim.post("/api/reports", context="replay", match_id="nohay", seat=0,
                     reason="abuse"), 404, "no_match"),
        (victim.post("/api/reports", context="profile", name="Nadie Así", reason="abuse"),
         404, "player_not_found"),
        (victim.post("/api/reports", context="profile", name=rude.name, reason="ugly"), 422,
         "invalid_request"),
    ]  # fmt: skip
    for answer, status, code in refusals:
        assert (answer.status_code, answer.json()["code"]) == (status, code), answer.text

    mod = moderator(server, db_file)
    listed = mod.http.get("/api/mod/reports").json()["reports"]
    mine = [r for r in listed if r["player"] == rude.name]
    assert {(r["context"], r["reason"], r["reporter"]) for r in mine} == {
        ("table", "abuse", victim.name),
        ("replay", "cheating", bystander.name),
        ("profile", "name", bystander.name),
    }
    from_table = next(r for r in mine if r["context"] == "table")
    assert from_table["comment"] == "insultos en el chat"
    assert from_table["reports_of_player"] == 3
    assert from_table["replay_url"] == f"/replay/{table['id']}"
    assert httpx.get(f"{server.url}{from_table['replay_url']}").status_code == 200
    # closing one: gone from the open list, in the audit log, listed as closed
    closed = mod.post(f"/api/mod/reports/{from_table['id']}/close", reason="warned him")
    assert closed.status_code == 200
    still_open = mod.http.get("/api/mod/reports").json()["reports"]
    assert from_table["id"] not in {r["id"] for r in still_open}
    every = mod.http.get("/api/mod/reports", params={"status": "all"}).json()["reports"]
    assert next(r for r in every if r["id"] == from_table["id"])["status"] == "closed"
    assert mod.post("/api/mod/reports/999999/close", reason="x").json()["code"] == "no_report"
    # and truco admin lists them too
    status, out, _ = admin(db_file, "reports")
    assert status == 0 and rude.name in out and f"/replay/{table['id']}" in out


# ------------------------------------------------------------------ actions and the audit log
def test_every_moderator_action_is_in_the_audit_log_with_who_what_and_why(
    server: LiveServer, db_file: str
) -> None:
    mod, target = moderator(server, db_file), User(server, "Maleducado")
    actions = [
        ("rename", {"name": f"Renombrado{next(_names)}", "reason": "offensive name"}),
        ("rating", {"action": "freeze", "reason": "farming suspected"}),
        ("rating", {"action": "reset", "mode": "1v1", "reason": "farmed points"}),
        ("rating", {"action": "thaw", "reason": "looked into it"}),
    ]
    name = target.name
    for action, body in actions:
        answer = mod.post(f"/api/mod/players/{name}/{action}", **body)
        assert answer.status_code == 200, answer.text
        name = answer.json()["name"]
    assert name != target.name
    assert target.http.get("/api/me").json()["name"] == name  # the session follows
    # a reason is needed; a moderator may not give roles (an admin may)
    assert mod.post(f"/api/mod/players/{name}/ban", reason="  ").json()["code"] == "reason_needed"
    refused = mod.post(f"/api/mod/players/{name}/role", role="moderator", reason="helps")
    assert (refused.status_code, refused.json()["code"]) == (403, "admins_only")
    boss = moderator(server, db_file, role="admin")
    made = boss.post(f"/api/mod/players/{name}/role", role="moderator", reason="helps a lot")
    assert made.status_code == 200 and made.json()["role"] == "moderator"
    assert target.http.get("/api/me").json()["role"] == "moderator"
    # the log: newest first, each with who, what, on whom, why
    log = mod.http.get("/api/mod/audit", params={"target": name}).json()["entries"]
    seen = [(e["action"], e["reason"]) for e in reversed(log)]
    assert seen == [
        ("rename", "offensive name"),
        ("rating_freeze", "farming suspected"),
        ("rating_reset", "farmed points"),
        ("rating_thaw", "looked into it"),
        ("role", "helps a lot"),
    ]
    assert {e["actor"] for e in log[1:]} == {f"{mod.name} ({mod.id})"}
    assert log[0]["actor"] == f"{boss.name} ({boss.id})"
    assert log[-1]["details"]["before"] == target.name
    # staff are an admin's to act on: a moderator may not ban or rename a moderator
    for action, body in (("ban", {"reason": "rival"}), ("rename", {"name": "Otra", "reason": "x"})):
        answer = mod.post(f"/api/mod/players/{name}/{action}", **body)
        assert (answer.status_code, answer.json()["code"]) == (403, "admins_only")
        status, out, _ = admin(db_file, "audit", "--target", name, "--json")
    assert status == 0
    assert [json.loads(line)["action"] for line in out.splitlines()] == [
        a for a, _ in reversed(seen)
    ]


def test_truco_admin_refuses_in_one_line(db_file: str, server: LiveServer) -> None:
    status, out, err = admin(db_file, "ban", "Nadie Nunca", "--reason", "spam")
    assert (status, out) == (2, "")
    assert err.strip() == "truco admin ban: no player 'Nadie Nunca'"
    status, _, err = admin(db_file, "role", "Nadie Nunca", "admin", "--reason", " ")
    assert status == 2 and "reason" in err and "\n" not in err.strip()
    # a mistyped database path is refused, not made into a new empty database
    missing = db_file.replace("truco.sqlite3", "typo.sqlite3")
    status, _, err = admin(missing, "reports")
    assert status == 2 and err.startswith("truco admin reports: no database at ")
    assert not Path(missing.removeprefix("sqlite:///")).exists()


# ------------------------------------------------------------------ bans
def _seat_away(server: LiveServer, table_id: str, seat: int) -> bool:
    summary = httpx.get(f"{server.url}/api/tables/{table_id}").json()
    return bool(summary["seats"][seat]["away"])


def test_a_ban_ends_sessions_and_logins_gives_seats_to_bots_and_drops_tickets(
    db_url: str, tmp_path: Any
) -> None:
    with LiveServer(settings(db_url)) as server:
        mod = moderator(server, db_url)
        cheat, partner, queued = User(server, "Tramposo"), User(server), User(server, "Enfila")
        table = create_table(
            server.url, cheat.token, rules={"players": 2}, seat=0, bots={"1": "simple"}
        )
        waiting = create_table(server.url, cheat.token, rules={"players": 4}, seat=2)
        client = TableClient(server.ws_url, table["id"], cheat.token)
        client.wait_state(lambda s: s["view"] is not None)
        watcher = TableClient(server.ws_url, table["id"], partner.token)
        watcher.wait_state()
        ws = connect(f"{server.ws_url}/ws/queue?queue=1v1-sinflor-15-casual", legacy=True)
        ws.send(json.dumps({"type": "hello", "token": queued.token}))
        assert json.loads(ws.recv(timeout=10))["type"] == "queued"
        in_queue = httpx.get(f"{server.url}/api/queue").json()["queues"]
        assert in_queue == {"1v1-sinflor-15-casual": 1}
        assert not _seat_away(server, table["id"], 0)

        banned = mod.post(f"/api/mod/players/{cheat.name}/ban", reason="farming")
        assert banned.status_code == 200, banned.text
        assert banned.json()["banned"] is True and banned.json()["tables"] == 2
        # the socket closes, the seat is a bot's at once (the grace is an hour), the
        # waiting table's seat is free again
        with pytest.raises(ConnectionClosed):
            while True:
                client.recv(timeout=10)
        watcher.wait_state(lambda s: s["table"]["seats"][0]["away"])
        eventually(lambda: _seat_away(server, table["id"], 0))
        seats = httpx.get(f"{server.url}/api/tables/{waiting['id']}").json()["seats"]
        assert seats[2]["kind"] == "empty"
        # no session, no login
        assert cheat.http.get("/api/me").status_code == 401
        login = httpx.post(
            f"{server.url}/api/login", json={"name": cheat.name, "password": PASSWORD}
        )
        assert (login.status_code, login.json()["code"]) == (403, "account_banned")
        # a queued account banned: its ticket drops
        assert (
            mod.post(f"/api/mod/players/{queued.name}/ban", reason="spam").json()["tickets_dropped"]
            == 1
        )
        assert httpx.get(f"{server.url}/api/queue").json()["queues"] == {}
        ws.close()
        # unbanned: logs in again
        assert mod.post(f"/api/mod/players/{cheat.name}/unban", reason="appeal").status_code == 200
        again = httpx.post(
            f"{server.url}/api/login", json={"name": cheat.name, "password": PASSWORD}
        )
        assert again.status_code == 200
        log = mod.http.get("/api/mod/audit").json()["entries"]
        assert [(e["action"], e["target"]) for e in log[:3]] == [
            ("unban", cheat.name), ("ban", queued.name), ("ban", cheat.name),
        ]  # fmt: skip


def test_a_ban_by_truco_admin_reaches_the_running_server(tmp_path: Any) -> None:
    """The command writes the database; the server sees the sessions gone within its
    recheck, closes the sockets, and a bot takes the seat at once (the reconnect grace,
    an hour here, is for players who may come back)."""
    db = f"sqlite:///{tmp_path / 'truco.sqlite3'}"
    config = settings(db, session_recheck_seconds=0.5)
    with LiveServer(config) as server:
        cheat = User(server, "Lejano")
        table = create_table(
            server.url, cheat.token, rules={"players": 2}, seat=0, bots={"1": "simple"}
        )
        client = TableClient(server.ws_url, table["id"], cheat.token)
        client.wait_state(lambda s: s["view"] is not None)
        status, out, _ = admin(db, "ban", cheat.name, "--reason", "abuse in chat")
        assert status == 0 and "banned" in out and "1 sessions ended" in out
        eventually(lambda: cheat.http.get("/api/me").status_code == 401)
        eventually(lambda: _seat_away(server, table["id"], 0))
        login = httpx.post(
            f"{server.url}/api/login", json={"name": cheat.name, "password": PASSWORD}
        )
        assert login.json()["code"] == "account_banned"
        status, out, _ = admin(db, "audit")
        assert "cli:" in out and f"ban {cheat.name}" in out and "abuse in chat" in out


def test_a_guests_address_is_banned_for_a_time(tmp_path: Any) -> None:
    db = f"sqlite:///{tmp_path / 'truco.sqlite3'}"
    with LiveServer(settings(db)) as server:
        mod = moderator(server, db)
        guest = User(server, "Troll", guest=True)
        banned = mod.post("/api/mod/address-bans", address="127.0.0.1", hours=2, reason="trolls")
        assert banned.status_code == 200 and banned.json()["sessions_ended"] == 1
        assert 7100 < banned.json()["until"] - time.time() <= 7200
        # the guest's session ended; no new guest, no sign-up; accounts keep theirs
        assert guest.http.get("/api/me").status_code == 401
        again = httpx.post(f"{server.url}/api/guest", json={"name": "Troll Dos"})
        assert (again.status_code, again.json()["code"]) == (403, "address_banned")
        signup = httpx.post(
            f"{server.url}/api/accounts", json={"name": "Troll Tres", "password": PASSWORD}
        )
        assert signup.json()["code"] == "address_banned"
        assert mod.http.get("/api/me").status_code == 200
        listed = mod.http.get("/api/mod/address-bans").json()["bans"]
        assert [(b["address"], b["reason"]) for b in listed] == [("127.0.0.1", "trolls")]
        too_long = mod.post("/api/mod/address-bans", address="1.2.3.4", hours=10**6, reason="x")
        assert too_long.status_code == 422
        lifted = mod.post("/api/mod/address-bans/remove", address="127.0.0.1", reason="ok")
        assert lifted.json()["removed"] is True
        assert (
            httpx.post(f"{server.url}/api/guest", json={"name": "Arrepentido"}).status_code == 200
        )
        actions = [e["action"] for e in mod.http.get("/api/mod/audit").json()["entries"]]
        assert actions[:2] == ["unban_address", "ban_address"]
        # a ban by truco admin reaches the running server within its recheck (2 s)
        status, out, _ = admin(db, "ban-address", "127.0.0.1", "--hours", "1", "--reason", "again")
        assert status == 0 and "no new guests until" in out

        def refused() -> bool:
            answer = httpx.post(f"{server.url}/api/guest", json={"name": "Otro Troll"})
            return answer.status_code == 403 and answer.json()["code"] == "address_banned"

        eventually(refused, 10)


def test_the_moderators_page_is_served_in_both_spellings(server: LiveServer) -> None:
    for path in ("/moderacion", "/moderation"):
        page = httpx.get(f"{server.url}{path}")
        assert page.status_code == 200 and "moderation.js" in page.text
