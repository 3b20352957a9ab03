"""Every input a client can send gets a clean 4xx or an error naming the problem, and
changes nothing: the cases found by trying the server as a hostile user would."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_testing import LiveServer, TableClient, create_table, drain, guest_token
from truco.server import ServerConfig


@pytest.fixture(scope="module")
def server() -> Any:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        max_tables_per_guest=100,
        max_tables_per_address=100,
    )
    with LiveServer(config) as live:
        yield live


@pytest.fixture(scope="module")
def auth(server: LiveServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {guest_token(server.url, 'Hostil')}"}


def post_raw(server: LiveServer, auth: dict[str, str], text: str) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/tables",
        content=text,
        headers={**auth, "Content-Type": "application/json"},
        timeout=10,
    )


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ('{"turn_seconds": NaN}', "turn_seconds"),
        ('{"turn_seconds": Infinity}', "turn_seconds"),
        ('{"turn_seconds": -Infinity}', "turn_seconds"),
        ('{"turn_seconds": 1e-9}', "turn_seconds"),
        ('{"turn_seconds": 601}', "turn_seconds"),
        ('{"turn_seconds": -1}', "turn_seconds"),
        ('{"rules": {"players": 2, "colour": "red"}}', "unknown option 'colour'"),
        ('{"rules": {"players": 2}, "table": 1}', "table"),
        ('{"bots": {"1": "random:../../etc"}}', "no bot"),
        ('{"bots": {"9": "random"}}', "bots.9"),
        ('{"seat": 6}', "seat"),
        # every value of its own JSON type: nothing is taken for what it resembles
        ('{"rated": 0}', "rated: Input should be a valid boolean"),
        ('{"rated": "true"}', "rated: Input should be a valid boolean"),
        ('{"seat": "1"}', "seat: Input should be a valid integer"),
        ('{"seat": 1.0}', "seat: Input should be a valid integer"),
        ('{"seat": true}', "seat: Input should be a valid integer"),
        ('{"turn_seconds": "30"}', "turn_seconds: Input should be a valid number"),
        ('{"turn_seconds": false}', "turn_seconds: Input should be a valid number"),
        ('{"name": 5}', "name: Input should be a valid string"),
        ('{"bots": {"1": 3}}', "bots.1: Input should be a valid string"),
        ('{"name": "' + "x" * 81 + '"}', "name"),
        ("[1, 2]", "body: Input should be a valid dictionary"),
        ("{not json", "body: not valid JSON"),
    ],
)
def test_bad_table_bodies_get_a_422_naming_the_field(
    server: LiveServer, auth: dict[str, str], body: str, where: str
) -> None:
    response = post_raw(server, auth, body)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert where in detail and len(detail) < 300
    assert "NaN" not in response.text and "Infinity" not in response.text  # input not echoed


def test_a_good_clock_and_rules_still_work(server: LiveServer, auth: dict[str, str]) -> None:
    response = post_raw(server, auth, '{"turn_seconds": 0, "rules": {"players": 4}}')
    assert response.status_code == 201 and response.json()["turn_seconds"] == 0
    response = post_raw(server, auth, '{"turn_seconds": 20.5, "seat": 1}')
    assert response.status_code == 201 and response.json()["turn_seconds"] == 20.5


def test_a_table_name_loses_its_control_characters(
    server: LiveServer, auth: dict[str, str]
) -> None:
    """A NUL in a table name made every PostgreSQL commit of that table fail forever (503)."""
    response = post_raw(server, auth, '{"name": "Mesa\\u0000 de\\u202e  \\u0007todos "}')
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "Mesa de todos"
    response = post_raw(server, auth, '{"name": "\\u0000\\u0001"}')
    assert response.status_code == 201 and response.json()["name"] == "Mesa de Hostil"


def test_the_table_body_of_the_protocol_doc_is_accepted_as_written(
    server: LiveServer, auth: dict[str, str]
) -> None:
    """docs/protocol.md's example asked for a bot level the server refuses ('simple:easy')."""
    doc = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text("utf-8")
    example = doc.split("`POST /api/tables` body (every field optional):")[1]
    body = example.split("```json")[1].split("```")[0]
    response = post_raw(server, auth, body)
    assert response.status_code == 201, response.text
    assert [s["kind"] for s in response.json()["seats"]] == ["human", "bot", "empty", "bot"]


def test_ids_and_queries_of_any_length_and_charset_get_a_4xx(server: LiveServer) -> None:
    http = httpx.Client(base_url=server.url, timeout=10)
    for path in (
        "/api/tables/" + "a" * 5000,
        "/api/tables/%C3%A9",
        "/api/matches/" + "b" * 5000 + "/record",
        "/api/history?limit=-1",
        "/api/history?limit=abc",
        "/api/history?limit=99999999999999999999999",
        "/cards/" + "c" * 5000 + ".svg",
    ):
        response = http.get(path)
        assert 400 <= response.status_code < 500 and len(response.text) < 1000, path
    assert http.post("/api/guest", content=b"x" * 100_000).status_code == 413


def test_a_5000_character_table_id_closes_with_a_short_final_reason(server: LiveServer) -> None:
    with (
        connect(f"{server.ws_url}/ws/{'a' * 5000}", open_timeout=10) as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        error = json.loads(ws.recv(timeout=10))  # the refusal first, then the close
        assert error["type"] == "error" and error["code"] == "bad_table_code"
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400
    assert (
        len(closed.value.rcvd.reason.encode()) <= 123 and "table code" in closed.value.rcvd.reason
    )
    with (
        connect(f"{server.ws_url}/ws/abcdef?since=-3", open_timeout=10) as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_since"
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400


@pytest.mark.parametrize(
    "token", ["  mazo  ", "MAZO", "Mazo", "mazo ", "play  1e", "PLAY 1E", "say  voy", "truco\n"]
)
def test_actions_are_taken_only_as_the_notation_writes_them(server: LiveServer, token: str) -> None:
    owner = guest_token(server.url, "Ana")
    table = create_table(server.url, owner, rules={"players": 2}, seat=0)
    rival = guest_token(server.url, "Beto")
    clients = [TableClient(server.ws_url, table["id"], t) for t in (owner, rival)]
    clients[0].wait_state()
    clients[1].wait_state()
    clients[1].send({"type": "sit", "seat": 1})
    for c in clients:
        c.until(lambda m: m["table"]["status"] == "playing")
        drain(c)
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    version = actor.version
    actor.send({"type": "act", "action": token})
    error = actor.wait(lambda m: m["type"] == "error")
    assert error["code"] == "bad_action"
    actor.send({"type": "ping"})
    assert actor.wait(lambda m: m["type"] == "pong")["v"] == version  # nothing happened
    for c in clients:
        c.close()


def test_a_table_event_never_carries_a_client_supplied_bot_name(server: LiveServer) -> None:
    owner = guest_token(server.url, "Ana")
    table = create_table(server.url, owner, rules={"players": 4}, seat=0)
    client = TableClient(server.ws_url, table["id"], owner)
    client.wait_state()
    client.send({"type": "add_bot", "seat": 2, "level": "random:../../etc"})
    assert client.wait(lambda m: m["type"] == "error")["code"] == "bad_bot"
    summary = httpx.get(f"{server.url}/api/tables/{table['id']}", timeout=10).json()
    assert all("etc" not in seat["name"] for seat in summary["seats"])
    assert json.dumps(summary).count("../") == 0
    client.close()


def test_every_route_of_the_server_is_in_the_protocol_doc(server: LiveServer) -> None:
    """The analysis endpoints were served but not documented in docs/protocol.md."""
    doc = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text("utf-8")
    documented = {re.sub(r"\{\w+\}", "{}", p) for p in re.findall(r"`(?:[A-Z]+ )?(/[^`? ]*)", doc)}
    served = [*server.app.openapi()["paths"], "/ws/{table_id}"]
    assert len(served) > 10
    for path in served:
        assert re.sub(r"\{\w+\}", "{}", path) in documented, path
