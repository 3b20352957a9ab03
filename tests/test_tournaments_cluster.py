"""A tournament on a two-node cluster (real PostgreSQL and Redis): eight accounts sign up
on either node, a Swiss tournament of three rounds is organised on one and directed by
whichever node holds its lease; each player plays through their own node, with moves a
bot chooses; the standings equal a recomputation from the matches' records, and both
nodes show the same tournament."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select
from tests.cluster_testing import Node, nodes, redis_prefix, redis_unreachable
from tests.databases import postgres_schema, postgres_unreachable, service_missing
from tests.server_testing import TableClient, play_out

from truco.actions import action_token, parse_action
from truco.bots import make_bot
from truco.refusals import CODES
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.lobby.tournaments.matching import Game, swiss_standings
from truco.server.storage.store import matches_table
from truco.view import SeatView


@pytest.fixture
def site() -> Iterator[tuple[str, str]]:
    reason = postgres_unreachable() or redis_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema("truco_tournaments") as db_url, redis_prefix() as prefix:
        yield db_url, prefix


#: refusals of an action sent on a view a node had already moved past (on a loaded machine
#: play_out lets a client act on a view a second old): the rules', answered by the next view
STALE = tuple(code for code, entry in CODES.items() if entry.origin == "engine")


def patient_bot(rules: Rules) -> Any:
    """The ``simple`` bot's moves; refusals answered as the protocol says ("moving":
    again at once; "rate_limited": again after a message's worth of time; a stale view:
    the next one)."""
    bot = make_bot("simple")
    per_message = 1 / ServerConfig().rate_per_second

    def choose(client: TableClient, view: dict[str, Any]) -> str | None:
        while client.errors:
            code = client.errors.pop()["code"]
            assert code in ("moving", "rate_limited", *STALE), code
            if code == "rate_limited":
                time.sleep(per_message)
        legal = [parse_action(a) for a in view["legal"] if not a.startswith("say")]
        if not legal:
            return None
        return action_token(bot.choose(SeatView.from_json(view), legal, rules))

    return choose


def tournament(node: Node, tid: str) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(f"{node.url}/api/tournaments/{tid}", timeout=30).json()
    return data


def wait_for(node: Node, tid: str, predicate: Any, timeout: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while not predicate(data := tournament(node, tid)):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the tournament did not get there: {data}")
        time.sleep(0.3)
    return data


@pytest.mark.slow
def test_a_swiss_tournament_of_eight_on_two_nodes(site: tuple[str, str]) -> None:
    db_url, prefix = site
    with nodes(db_url, prefix, 2, "--signups-per-address", "0") as (a, b):
        people: dict[str, tuple[Node, str]] = {}
        browsers: dict[str, httpx.Client] = {}
        for i in range(8):
            node = (a, b)[i % 2]
            name = f"Nodo{i}"
            http = httpx.Client(base_url=node.url, timeout=30)
            answer = http.post("/api/accounts", json={"name": name, "password": "mate-cocido-7"})
            assert answer.status_code == 201, answer.text
            people[name] = (node, str(answer.json()["token"]))
            browsers[name] = http
        made = browsers["Nodo0"].post(
            "/api/tournaments",
            json={"name": "Copa", "format": "swiss", "rounds": 3, "starts_in": 3600,
                  "rules": {"target": 15}},
        )  # fmt: skip
        assert made.status_code == 200, made.text
        tid = made.json()["id"]
        for http in browsers.values():  # each on their own node
            assert http.post(f"/api/tournaments/{tid}/join").status_code == 200
        assert browsers["Nodo0"].post(f"/api/tournaments/{tid}/start").status_code == 200
        rules = Rules(target=15)
        tables: list[str] = []
        for number in (1, 2, 3):
            data = wait_for(
                (a, b)[number % 2],
                tid,
                lambda t, n=number: t["round"] == n and all(g["table"] for g in t["games"]),
            )
            for game in (g for g in data["games"] if g["round"] == number):
                seated = [people[game["first"]], people[game["second"]]]
                clients = [TableClient(node.ws_url, game["table"], token) for node, token in seated]
                try:
                    for client in clients:  # the match under way as each one sees it
                        client.until(lambda s: s["table"]["status"] == "playing")
                    play_out(clients, patient_bot(rules), timeout=240)
                finally:
                    for client in clients:
                        client.close()
                tables.append(game["table"])
        final = wait_for(b, tid, lambda t: t["status"] == "finished")
        assert tournament(a, tid) == final  # the same on both nodes: the database's
        pairs = [frozenset((g["first"], g["second"])) for g in final["games"]]
        assert len(pairs) == 12 and len(set(pairs)) == 12
        engine = create_engine(db_url)
        with engine.connect() as conn:
            winners = dict(
                conn.execute(
                    select(matches_table.c.id, matches_table.c.winner).where(
                        matches_table.c.id.in_(tables)
                    )
                ).all()
            )
        engine.dispose()
        games = [
            Game(g["first"], g["second"], (g["first"], g["second"])[winners[g["table"]]])
            for g in final["games"]
        ]
        expected = swiss_standings(list(people), games)
        shown = [(s["name"], s["points"], s["buchholz"]) for s in final["standings"]]
        assert sorted(shown) == sorted((s.id, s.points, s.buchholz) for s in expected)
        for http in browsers.values():
            http.close()
