"""Accounts over HTTP: sign up, log in and out, rename, who you are; bad input, rate-limited
logins, and authorization (a session speaks for its own account only, at the table too)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from databases import db_url
from server_testing import OPEN_PLAY, LiveServer, TableClient
from truco.server import ServerConfig
from truco.server.people import accounts
from truco.server.people.sessions import COOKIE
from truco.server.storage.store import accounts_table, results_table

__all__ = ["db_url"]  # the fixture, from databases


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # a file, not sqlite:// (one connection shared by every thread, transactions mixed)
    config = ServerConfig(
        **OPEN_PLAY,
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


_names = iter(range(10**6))


def fresh(prefix: str = "Jugador") -> str:
    """A name no other test uses."""
    return f"{prefix}{next(_names)}"


def browser(server: LiveServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def sign_up(http: httpx.Client, name: str, password: str = "mate-cocido-7") -> httpx.Response:
    return http.post("/api/accounts", json={"name": name, "password": password})


# ------------------------------------------------------------------ sign up, log in, log out
def test_signing_up_logs_in_with_an_http_only_cookie_and_me_says_account(
    server: LiveServer,
) -> None:
    http = browser(server)
    name = fresh("Ana")
    response = sign_up(http, name)
    assert response.status_code == 201
    assert response.json()["name"] == name and response.json()["account"] is True
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    me = http.get("/api/me").json()
    assert me["name"] == name and me["account"] is True
    assert set(me["ratings"]) == {"1v1", "2v2", "3v3"}
    assert me["ratings"]["1v1"] == {"rating": 1500, "games": 0, "provisional": True}
    assert http.post("/api/logout").status_code == 204
    assert COOKIE not in http.cookies and http.get("/api/me").status_code == 401
    again = http.post("/api/login", json={"name": name.upper(), "password": "mate-cocido-7"})
    assert again.status_code == 200 and again.json()["name"] == name
    assert http.get("/api/me").json()["id"] == response.json()["id"]


def test_a_guest_is_a_guest_for_me(server: LiveServer) -> None:
    http = browser(server)
    http.post("/api/guest", json={"name": "Pía"})
    me = http.get("/api/me").json()
    assert me["name"] == "Pía" and me["account"] is False and me["ratings"] == {}


def test_the_password_is_never_stored_in_clear(server: LiveServer) -> None:
    name = fresh()
    assert sign_up(browser(server), name, "secreto-largo").status_code == 201
    with server.app.state.server.store.engine.connect() as conn:
        stored = conn.execute(
            select(accounts_table.c.password_hash).where(accounts_table.c.name == name)
        ).scalar_one()
    assert "secreto-largo" not in stored and stored.startswith("$argon2id$")


@pytest.mark.parametrize(
    "taken",
    [
        lambda n: n,
        lambda n: n.upper(),
        lambda n: f"  {n.lower()}  ",
        # NFKC: fullwidth letters are the same name
        lambda n: "".join(chr(ord(c) + 0xFEE0) if c.isalpha() else c for c in n),
    ],
)
def test_a_name_is_taken_whatever_its_case_spaces_or_unicode_form(
    server: LiveServer, taken: Any
) -> None:
    name = fresh("Tano")
    assert sign_up(browser(server), name).status_code == 201
    response = sign_up(browser(server), taken(name))
    assert response.status_code == 409 and "taken" in response.json()["detail"]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("A", "2 to 24"),
        ("x" * 25, "2 to 24"),
        ("   ", "2 to 24"),
        ("Ana\x00Beto", "control"),
        ("Ana\nBeto", "control"),
        ("Ana\u202eBeto", "control"),  # a bidi override
        ("Bot experto", "Bot"),
        ("bot", "Bot"),
        ("BOT-simple", "Bot"),
        ("Admin", "reserved"),
        ("Truco Argento", "reserved"),
        ("Invitado", "reserved"),
    ],
)
def test_bad_names_are_refused_with_the_reason(server: LiveServer, name: str, why: str) -> None:
    response = sign_up(browser(server), name)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert why in detail and "\n" not in detail and len(detail) < 200


def test_names_that_merely_start_with_bot_letters_are_people(server: LiveServer) -> None:
    assert sign_up(browser(server), fresh("Botana")).status_code == 201


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"name": "Corta", "password": "1234567"}, 422),
        ({"name": "Larga", "password": "x" * 300}, 422),
        ({"name": "Falta"}, 422),
        ({"name": "Extra", "password": "mate-cocido-7", "admin": True}, 422),
        ({"name": 7, "password": "mate-cocido-7"}, 422),
    ],
)
def test_weak_passwords_and_malformed_bodies_are_refused(
    server: LiveServer, body: dict[str, Any], status: int
) -> None:
    response = browser(server).post("/api/accounts", json=body)
    assert response.status_code == status
    assert isinstance(response.json()["detail"], str)
    if "password" in body and body["password"] == "1234567":
        assert "at least 8" in response.json()["detail"]


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(server: LiveServer) -> None:
    name = fresh()
    sign_up(browser(server), name)
    http = browser(server)
    wrong = http.post("/api/login", json={"name": name, "password": "otra-cosa1"})
    unknown = http.post("/api/login", json={"name": fresh("Nadie"), "password": "otra-cosa1"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json() == {
        "detail": "wrong name or password",
        "code": "wrong_credentials",
        "params": {},
    }
    assert COOKIE not in http.cookies


def from_address(live: LiveServer, address: str) -> httpx.Client:
    """A client whose requests come from ``address`` (any of 127.0.0.0/8)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=live.url, timeout=30, transport=transport)


def login(http: httpx.Client, name: str, password: str = "mate-cocido-7") -> int:
    return http.post("/api/login", json={"name": name, "password": password}).status_code


@pytest.fixture
def strict() -> Iterator[LiveServer]:
    """A server where 3 failed logins of a name from one address (15 of an address) are
    free, then each next try waits longer; any address may try 1000 logins a minute."""
    config = ServerConfig(
        **OPEN_PLAY, db_url="sqlite://", login_rate="1000/minute", login_free_failures=3
    )
    with LiveServer(config) as live:
        yield live


def test_an_attacker_elsewhere_never_locks_the_owner_out(strict: LiveServer) -> None:
    """Failures slow the next try of the same name from the same address (a delay that
    grows: 429 with retry_after), never the name from everywhere."""
    sign_up(browser(strict), "Víctima")
    attacker = from_address(strict, "127.0.0.2")
    assert [login(attacker, "Víctima", "adivino-1") for _ in range(3)] == [401] * 3
    refused = attacker.post("/api/login", json={"name": "víctima", "password": "adivino-2"})
    assert refused.status_code == 429 and refused.json()["code"] == "login_throttled"
    assert refused.json()["params"]["retry_after"] >= 1
    assert refused.headers["retry-after"] == str(refused.json()["params"]["retry_after"])
    # the owner, from their own address, gets in at once, even with the right password
    # typed wrong once
    owner = from_address(strict, "127.0.0.3")
    assert login(owner, "Víctima", "me-equivoqué-9") == 401
    assert login(owner, "Víctima") == 200
    assert COOKIE not in attacker.cookies


def test_each_failure_after_the_free_ones_doubles_the_wait(strict: LiveServer) -> None:
    sign_up(browser(strict), "Paciente")
    attacker = from_address(strict, "127.0.0.7")
    waits = []
    for _ in range(3):
        for _ in range(10):
            answer = attacker.post("/api/login", json={"name": "Paciente", "password": "x1y2z3w4"})
            if answer.status_code == 401:
                break
            assert answer.status_code == 429
            time.sleep(answer.json()["params"]["retry_after"])
        refused = attacker.post("/api/login", json={"name": "Paciente", "password": "x1y2z3w4"})
        if refused.status_code == 429:
            waits.append(refused.json()["params"]["retry_after"])
    assert waits[-2:] == [1, 2] or waits[-2:] == [2, 4], waits


def test_an_address_that_tries_many_names_is_slowed_too(strict: LiveServer) -> None:
    sprayer = from_address(strict, "127.0.0.4")
    assert [login(sprayer, f"Nombre{i}", "adivino-1") for i in range(15)] == [401] * 15
    refused = sprayer.post("/api/login", json={"name": "Otro", "password": "adivino-1"})
    assert refused.status_code == 429 and refused.json()["code"] == "login_throttled"
    sign_up(browser(strict), "Tercero")
    assert login(from_address(strict, "127.0.0.5"), "Tercero") == 200


def test_logins_are_limited_per_address_and_per_account() -> None:
    config = ServerConfig(**OPEN_PLAY, db_url="sqlite://", login_rate="3/minute")
    with LiveServer(config) as live:
        sign_up(browser(live), "Frecuente")
        sign_up(browser(live), "Vecina")
        http = from_address(live, "127.0.0.6")
        assert [login(http, "Frecuente") for _ in range(4)] == [200, 200, 200, 429]
        assert login(from_address(live, "127.0.0.8"), "Vecina") == 200
        # the account itself: three logins a minute from anywhere (only with its password)
        other = from_address(live, "127.0.0.9")
        answer = other.post("/api/login", json={"name": "Frecuente", "password": "mate-cocido-7"})
        assert answer.status_code == 429 and answer.json()["code"] == "login_rate"


class CountingHasher:
    """argon2's hasher, counting how many of its hashes run at once."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def _count(self, work: Any, *args: Any) -> Any:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            return work(*args)
        finally:
            with self.lock:
                self.running -= 1

    def hash(self, password: str) -> str:
        return str(self._count(self.real.hash, password))

    def verify(self, hashed: str, password: str) -> bool:
        return bool(self._count(self.real.verify, hashed, password))


@pytest.mark.parametrize("workers", [1, 2])
def test_parallel_logins_never_run_more_argon2_at_once_than_the_workers(
    workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ServerConfig(
        **OPEN_PLAY,
        db_url="sqlite://",
        login_rate="1000/minute",
        http_rate="100000/minute",
        password_workers=workers,
    )
    counting = CountingHasher(accounts._hasher)
    monkeypatch.setattr(accounts, "_hasher", counting)
    with LiveServer(config) as live:
        sign_up(browser(live), "Concurrida")
        slow = httpx.Client(base_url=live.url, timeout=180)  # argon2 one or two at a time
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: login(slow, "Concurrida"), range(8)))
        assert answers == [200] * 8
        assert counting.most == workers


# ------------------------------------------------------------------ renaming
def test_an_account_renames_itself_and_keeps_its_id(server: LiveServer) -> None:
    http = browser(server)
    first = sign_up(http, fresh("Viejo")).json()
    new = fresh("Nuevo")
    renamed = http.patch("/api/me", json={"name": new})
    assert renamed.status_code == 200 and renamed.json()["name"] == new
    me = http.get("/api/me").json()
    assert me["name"] == new and me["id"] == first["id"]
    assert (
        http.post("/api/login", json={"name": new, "password": "mate-cocido-7"}).status_code == 200
    )
    assert browser(server).get(f"/api/players/{first['name']}").status_code == 404
    assert browser(server).get(f"/api/players/{new}").json()["name"] == new


def test_renaming_is_validated_and_cannot_take_another_name(server: LiveServer) -> None:
    taken = fresh("Dueño")
    sign_up(browser(server), taken)
    http = browser(server)
    mine = fresh("Yo")
    sign_up(http, mine)
    assert http.patch("/api/me", json={"name": taken.lower()}).status_code == 409
    assert http.patch("/api/me", json={"name": "Bot difícil"}).status_code == 422
    assert http.patch("/api/me", json={"name": "x"}).status_code == 422
    assert http.get("/api/me").json()["name"] == mine
    # the same name in another case is the account's own: allowed
    assert http.patch("/api/me", json={"name": mine.upper()}).json()["name"] == mine.upper()


def test_guests_and_strangers_cannot_rename_an_account(server: LiveServer) -> None:
    guest = browser(server)
    guest.post("/api/guest", json={"name": "Pirata"})
    assert guest.patch("/api/me", json={"name": fresh()}).status_code == 403
    assert browser(server).patch("/api/me", json={"name": fresh()}).status_code == 401
    forged = browser(server)
    forged.cookies.set(COOKIE, "abc.def")
    assert forged.patch("/api/me", json={"name": fresh()}).status_code == 401


def test_an_account_cannot_turn_into_a_guest_of_the_same_id(server: LiveServer) -> None:
    """POST /api/guest with an account's session would hand out a guest token for the
    account's id: refused."""
    http = browser(server)
    sign_up(http, fresh())
    response = http.post("/api/guest", json={"name": "Otro"})
    assert response.status_code == 409 and "PATCH /api/me" in response.json()["detail"]
    renewed = http.post("/api/session/renew")
    assert renewed.status_code == 200 and renewed.json()["account"] is True


# ------------------------------------------------------------------ guests who sign up
def test_a_guest_who_signs_up_claims_the_seats_of_their_finished_matches(
    server: LiveServer,
) -> None:
    http = browser(server)
    guest = http.post("/api/guest", json={"name": "Invitada"}).json()
    table = http.post(
        "/api/tables",
        json={"rules": {"players": 2, "target": 15}, "seat": 0, "bots": {"1": "random"}},
    ).json()
    client = TableClient(server.ws_url, table["id"], guest["token"])
    while True:  # fold every hand: the bot wins quickly
        state = client.until(
            lambda s: (
                s["view"] is not None and (s["view"]["legal"] or s["view"]["winner"] is not None)
            )
        )
        if state["view"]["winner"] is not None:
            break
        legal = state["view"]["legal"]
        client.act_and_wait(
            "mazo" if "mazo" in legal else next(a for a in legal if not a.startswith("say "))
        )
    client.close()
    recorded(server, table["id"])
    name = fresh("Reclamo")
    account = sign_up(http, name).json()
    assert account["id"] != guest["id"]
    profile = browser(server).get(f"/api/players/{name}").json()
    matches = profile["matches"]
    assert [m["id"] for m in matches] == [table["id"]]
    assert matches[0]["result"] == "lost" and matches[0]["rated"] is False
    assert matches[0]["replay_url"] == f"/replay/{table['id']}"
    assert profile["record"]["1v1"] == {"won": 0, "lost": 1}
    # the stored seat is the account's now; the guest's token reaches no seat of it
    stored = server.app.state.server.store.load(match_id=table["id"])[0]
    assert stored.table["seats"][0]["player_id"] == account["id"]


def recorded(server: LiveServer, match_id: str) -> None:
    """Wait until the server has recorded the result of ``match_id``."""
    engine = server.app.state.server.store.engine
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            if conn.execute(
                select(results_table.c.seq).where(results_table.c.match_id == match_id)
            ).first():
                return
        time.sleep(0.05)
    raise TimeoutError(f"the result of {match_id} was not recorded")


# ------------------------------------------------------------------ persistence
def test_accounts_survive_a_restart_on_sqlite_and_postgresql(db_url: str) -> None:
    config = ServerConfig(**OPEN_PLAY, db_url=db_url, bot_delay=0, turn_seconds=0)
    with LiveServer(config) as first:
        http = browser(first)
        guest = http.post("/api/guest", json={"name": "Antes"}).json()
        created = sign_up(http, "Persistente")
        assert created.status_code == 201
        assert sign_up(browser(first), "PERSISTENTE").status_code == 409
        assert http.patch("/api/me", json={"name": "Persistida"}).status_code == 200
        token = http.cookies[COOKIE]
    with LiveServer(config) as second:
        again = browser(second)
        again.cookies.set(COOKIE, token)  # the session outlives the restart
        me = again.get("/api/me").json()
        assert me["account"] is True and me["id"] == created.json()["id"] != guest["id"]
        assert login(browser(second), "persistida") == 200
        assert login(browser(second), "Persistente") == 401  # the old name is free again
        assert sign_up(browser(second), "Persistida").status_code == 409
        assert sign_up(browser(second), "Persistente").status_code == 201


def test_logins_with_text_no_name_can_have_are_refused_like_any_wrong_login(
    db_url: str,
) -> None:
    """PostgreSQL refuses NUL in text, argon2 lone surrogates: neither may become a 500."""
    with LiveServer(ServerConfig(**OPEN_PLAY, db_url=db_url)) as live:
        http = browser(live)
        sign_up(http, "Común")
        for body in (
            {"name": "Com\x00ún", "password": "mate-cocido-7"},
            {"name": "Común", "password": "contra\ud800seña"},
            {"name": "x" * 100, "password": "mate-cocido-7"},
        ):
            response = http.post(
                "/api/login",
                content=json.dumps(body),  # \ud800 travels as its JSON escape
                headers={"content-type": "application/json"},
            )
            assert response.status_code in (401, 422), response.text
        assert http.get("/api/players/Com%00ún").status_code == 404
        assert login(http, "común") == 200


def test_a_guest_cannot_pass_for_an_account_or_a_bot(server: LiveServer) -> None:
    """Only accounts' names are unique, but a guest may not take one (in any spelling),
    nor a bot's name: the lobby and the table would show the same name for two people."""
    owner = fresh("Dueña")
    assert sign_up(browser(server), owner).status_code == 201
    stranger = browser(server)
    for name in (owner, owner.upper(), f"  {owner} "):
        response = stranger.post("/api/guest", json={"name": name})
        assert response.status_code == 409, name
        assert "account" in response.json()["detail"]
    for name in ("Bot 1 (simple)", "bot-experto", "BOTS"):
        response = stranger.post("/api/guest", json={"name": name})
        assert response.status_code == 422, name
    assert COOKIE not in stranger.cookies  # nothing was handed out
    assert stranger.post("/api/guest", json={"name": "Botana"}).status_code == 200


def test_a_profile_page_is_a_404_for_a_name_no_account_has(server: LiveServer) -> None:
    owner = fresh("Perfil")
    http = browser(server)
    assert sign_up(http, owner).status_code == 201
    assert http.get(f"/u/{owner.lower()}").status_code == 200
    missing = http.get(f"/u/{fresh('Nadie')}")
    assert missing.status_code == 404
    assert "<html" in missing.text.lower()  # still the page, which says there is no such player


# ------------------------------------------------------------------ the password policy
@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("password", "password_common"),
        ("12345678", "password_common"),
        ("qwertyuiop", "password_common"),
        ("argentina", "password_common"),
        ("contraseña", "password_common"),  # the site's words are guessed first too
        ("truco2024", "password_common"),
        ("        ", "password_blank"),
        ("\t \u3000      ", "password_blank"),
        ("{name}", "password_has_name"),
        ("mi{name}2024", "password_has_name"),
        ("1234567", "password_too_short"),
    ],
)
def test_common_blank_and_own_name_passwords_are_refused_with_a_code(
    server: LiveServer, password: str, code: str
) -> None:
    name = fresh("ClaveLarga")
    response = sign_up(browser(server), name, password.format(name=name))
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == code and "\n" not in body["detail"]
    if code == "password_too_short":
        assert body["params"] == {"min": 8}
    assert browser(server).get(f"/api/players/{name}").status_code == 404


def test_a_password_change_needs_the_old_one_and_a_good_new_one(server: LiveServer) -> None:
    http = browser(server)
    name = fresh("Cambia")
    sign_up(http, name)
    wrong = http.post("/api/me/password", json={"old": "no-es-esta-9", "new": "otra-clave-77"})
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password"
    weak = http.post("/api/me/password", json={"old": "mate-cocido-7", "new": "password"})
    assert weak.status_code == 422 and weak.json()["code"] == "password_common"
    done = http.post("/api/me/password", json={"old": "mate-cocido-7", "new": "otra-clave-77"})
    assert done.status_code == 200
    assert login(browser(server), name) == 401
    assert login(browser(server), name, "otra-clave-77") == 200
    guest = browser(server)
    guest.post("/api/guest", json={"name": "Sin Clave"})
    refused = guest.post("/api/me/password", json={"old": "a" * 8, "new": "otra-clave-77"})
    assert refused.status_code == 403 and refused.json()["code"] == "account_only"


# ------------------------------------------------------------------ names that pass for others
@pytest.mark.parametrize(
    "name",
    ["admin", "Moderador", "Sistema", "Truco Argento", "ÁDMIN", "\u0410dmin", "Soporte Oficial",
     "Admin Ana", "moderator", "T r u c o"],
)  # fmt: skip
def test_reserved_names_are_refused_to_guests_and_accounts(server: LiveServer, name: str) -> None:
    guest = browser(server).post("/api/guest", json={"name": name})
    assert guest.status_code == 422 and guest.json()["code"] == "name_reserved", name
    account = sign_up(browser(server), name)
    assert account.status_code == 422 and account.json()["code"] == "name_reserved", name


def test_a_guest_may_still_be_called_invitado(server: LiveServer) -> None:
    assert browser(server).post("/api/guest", json={"name": "Invitado"}).status_code == 200
    assert sign_up(browser(server), "Invitado").json()["code"] == "name_reserved"


def test_names_that_look_like_an_accounts_are_refused(server: LiveServer) -> None:
    """Vіctima with a Cyrillic і, V1ctima, VÍCTIMA: each could be taken for Victima."""
    owner = fresh("Victima")
    assert sign_up(browser(server), owner).status_code == 201
    look_alikes = [
        owner.replace("i", "\u0456", 1),  # Cyrillic і
        owner.replace("c", "\u0441"),  # Cyrillic с
        owner.replace("V", "\u0474"),  # Cyrillic Ѵ
        owner.upper().replace("I", "Í", 1),
        owner.replace("i", "ı", 1),  # dotless ı
    ]
    for name in look_alikes:
        account = sign_up(browser(server), name)
        assert account.status_code == 409, name
        assert account.json()["code"] == "name_confusable"
        assert account.json()["params"] == {"name": name, "other": owner}
        guest = browser(server).post("/api/guest", json={"name": name})
        assert guest.status_code == 409 and guest.json()["code"] == "name_is_account", name
    # nor may another account rename itself to look like it
    http = browser(server)
    sign_up(http, fresh("Otra"))
    renamed = http.patch("/api/me", json={"name": look_alikes[0]})
    assert renamed.status_code == 409 and renamed.json()["code"] == "name_confusable"
    # a name merely close is someone else's
    assert sign_up(browser(server), owner.replace("V", "B")).status_code == 201


def test_refusals_carry_a_code_and_params(server: LiveServer) -> None:
    name = fresh("Código")
    sign_up(browser(server), name)
    taken = sign_up(browser(server), name).json()
    assert taken["code"] == "name_taken" and taken["params"] == {"name": name}
    missing = browser(server).get("/api/players/Nadie%20Acá").json()
    assert missing == {
        "detail": "no player 'Nadie Acá'",
        "code": "player_not_found",
        "params": {"name": "Nadie Acá"},
    }
    anonymous = browser(server).get("/api/me").json()
    assert anonymous["code"] == "no_session"
    short = sign_up(browser(server), "x").json()
    assert short["code"] == "name_length" and short["params"] == {"min": 2, "max": 24}
