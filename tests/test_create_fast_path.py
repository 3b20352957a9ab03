"""``POST /api/tables`` taken by its fast path (:class:`truco.server.api.CreateTables`)
answers exactly as the FastAPI route does: the same status, headers and body bytes for
good and bad requests alike, and the per-address limits count each request once."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from server_testing import LiveServer, guest_token
from truco.server import ServerConfig
from truco.server.api import CreateTables

CONFIG = dict(
    db_url="sqlite://",
    bot_delay=0,
    turn_seconds=0,
    http_rate="100000/minute",
    http_write_rate="100000/minute",
    max_tables_per_guest=3,
    max_tables_per_address=100,
)


@pytest.fixture(scope="module")
def servers() -> Any:
    """Two servers: the fast path on, and off (every request through FastAPI)."""
    with LiveServer(ServerConfig(**CONFIG)) as fast, LiveServer(ServerConfig(**CONFIG)) as slow:
        slow.app.create_tables = None  # type: ignore[attr-defined]
        yield fast, slow


def _same(text: str) -> str:
    """A body with what differs from one table to the next (its id, the fairness
    commitment, a player's id) taken out."""
    text = re.sub(r'"id":"[^"]*"', '"id":_', text)
    text = re.sub(r'"creator":"[^"]*"', '"creator":_', text)
    return re.sub(r'"fairness":\{[^}]*\}', '"fairness":_', text)


def _answer(response: httpx.Response) -> tuple[int, list[tuple[str, str]], str]:
    headers = [(k, v) for k, v in response.headers.items() if k not in ("date", "content-length")]
    return response.status_code, headers, _same(response.text)


CASES: list[tuple[str, dict[str, str] | None]] = [
    ('{"rules": {"players": 2, "target": 15}, "name": "bench", "turn_seconds": 0}', None),
    ('{"rules": {"players": 4}, "name": "  a\\u0000b  ", "seat": 1}', None),
    ('{"bots": {"1": "random"}, "seat": 0}', None),
    ('{"rules": {"players": 3}}', None),  # 400 from the rules
    ('{"turn_seconds": 1}', None),  # 422 from the route (below the minimum)
    ('{"turn_seconds": NaN}', None),
    ('{"rules": {"players": 2, "colour": "red"}}', None),
    ('{"seat": 6}', None),
    ("[1, 2]", None),
    ("{not json", None),
    ("", None),
    ('{"rated": true}', None),  # a guest: refused by the table (409)
    ('{"name": "no token"}', {}),  # 401
    ('{"name": "bad token"}', {"Authorization": "Bearer nope"}),  # 401
    ('{"name": "form"}', {"Content-Type": "text/plain"}),
]


@pytest.mark.parametrize(("body", "headers"), CASES)
def test_the_fast_path_answers_as_the_route_does(
    servers: tuple[LiveServer, LiveServer], body: str, headers: dict[str, str] | None
) -> None:
    answers = []
    for server in servers:
        token = guest_token(server.url, "Rápido")
        sent = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        if headers is not None:
            sent = {k: v for k, v in sent.items() if k == "Content-Type"} | headers
        r = httpx.post(f"{server.url}/api/tables", content=body, headers=sent, timeout=10)
        answers.append(_answer(r))
    assert answers[0] == answers[1]


def test_a_guest_over_its_table_cap_gets_the_same_429(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    answers = []
    for server in servers:
        token = guest_token(server.url, "Muchas")
        sent = {"Authorization": f"Bearer {token}"}
        statuses = [
            httpx.post(f"{server.url}/api/tables", json={}, headers=sent, timeout=10)
            for _ in range(4)
        ]
        answers.append([_answer(r) for r in statuses])
    assert [a[0] for a in answers[0]] == [201, 201, 201, 429]
    assert answers[0] == answers[1]


def test_the_address_limit_counts_a_fast_create_once() -> None:
    config = ServerConfig(**{**CONFIG, "http_write_rate": "3/minute", "max_tables_per_guest": 9})
    with LiveServer(config) as server:
        assert isinstance(server.app.create_tables, CreateTables)  # type: ignore[attr-defined]
        token = guest_token(server.url, "Limitado")  # one write of the three
        sent = {"Authorization": f"Bearer {token}"}
        codes = [
            httpx.post(f"{server.url}/api/tables", json={}, headers=sent, timeout=10).status_code
            for _ in range(3)
        ]
        assert codes == [201, 201, 429]


def test_a_plain_create_does_not_go_through_fastapi(
    servers: tuple[LiveServer, LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = servers[0]
    taken: list[bool] = []
    fast = server.app.create_tables  # type: ignore[attr-defined]
    original = fast.__call__

    async def counting(scope: Any, receive: Any, send: Any, fallback: Any) -> None:
        async def handed(*args: Any) -> None:
            taken.append(False)
            await fallback(*args)

        await original(scope, receive, send, handed)

    monkeypatch.setattr(server.app, "create_tables", counting)
    token = guest_token(server.url, "Directo")
    body = {"rules": {"players": 2, "target": 15}, "name": "bench", "turn_seconds": 0}
    r = httpx.post(
        f"{server.url}/api/tables",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert r.status_code == 201 and r.json()["turn_seconds"] == 0.0
    assert taken == []
    r = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)  # no token
    assert r.status_code == 401 and taken == [False]
