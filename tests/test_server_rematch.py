"""The end of a match: its recorded result with each rated player's rating before and
after (``/api/matches/{id}/result``), and the rematch (``{"type": "rematch"}``): a new
table with the same rules and seats once every person seated accepts, none when one
refuses or leaves, never at a third party's word."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from server_testing import OPEN_PLAY, LiveServer, TableClient, create_table, guest_token, play_out
from truco.server import ServerConfig

_names = iter(range(10**6))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    config = ServerConfig(
        **OPEN_PLAY,
        db_url=f"sqlite:///{tmp_path_factory.mktemp('db') / 'truco.sqlite3'}",
        bot_delay=0,
        turn_seconds=0,
        rate_per_second=1000.0,
        rate_burst=1000,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        max_tables_per_guest=100,
        max_tables_per_address=100,
    )
    with LiveServer(config) as live:
        yield live


def account(server: LiveServer) -> tuple[str, str, httpx.Client]:
    """A new account: its name, its token, its HTTP client."""
    name = f"Cuenta{next(_names)}"
    http = httpx.Client(base_url=server.url, timeout=30)
    answer = http.post("/api/accounts", json={"name": name, "password": "mate-cocido-7"}).json()
    return name, answer["token"], http


def finished_pair(
    server: LiveServer, tokens: tuple[str, str], rated: bool = False, fold: bool = True
) -> tuple[TableClient, TableClient]:
    """A 1v1 to 15 between the two tokens, played to the end (seat 1 leaves every hand
    if ``fold``, else both play their cards out)."""
    http = httpx.Client(base_url=server.url, timeout=30)
    answer = http.post(
        "/api/tables",
        json={"rules": {"players": 2, "target": 15}, "seat": 0, "rated": rated},
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    assert answer.status_code == 201, answer.text
    table = answer.json()
    first = TableClient(server.ws_url, table["id"], tokens[0])
    second = TableClient(server.ws_url, table["id"], tokens[1])
    second.wait_state()
    second.send({"type": "sit", "seat": 1})
    first.until(lambda s: s["table"]["status"] == "playing")

    def choose(client: TableClient, view: dict[str, Any]) -> str:
        legal = [a for a in view["legal"] if not a.startswith("say ")]
        if fold and client is second and "mazo" in legal:
            return "mazo"
        calm = [a for a in legal if a in ("quiero", "no-quiero") or a.startswith("play")]
        return (calm or legal)[0]

    play_out([first, second], choose)
    for client in (first, second):
        client.until(lambda s: s["view"] is not None and s["view"]["winner"] is not None)
    return first, second


def rematch_event(client: TableClient, key: str) -> dict[str, Any]:
    """The next ``rematch`` event holding ``key`` (already received, or to come)."""

    def found() -> dict[str, Any] | None:
        return next((e for e in client.events if e["kind"] == "rematch" and key in e), None)

    known = found()
    if known is not None:
        return known
    client.wait(lambda m: m["type"] == "state" and found() is not None, timeout=30)
    event = found()
    assert event is not None
    return event


def refusal(client: TableClient) -> dict[str, Any]:
    return client.wait(lambda m: m["type"] == "error", timeout=30)


def test_both_accept_a_new_table_with_the_same_rules_and_seats_starts(
    server: LiveServer,
) -> None:
    tokens = guest_token(server.url, "Ana"), guest_token(server.url, "Beto")
    first, second = finished_pair(server, tokens)
    old = first.state["table"]
    first.send({"type": "rematch", "accept": True})
    offered = rematch_event(second, "accepted")
    assert offered["accepted"] == [0] and "table" not in offered
    second.send({"type": "rematch", "accept": True})
    made = rematch_event(first, "table")
    assert rematch_event(second, "table")["table"] == made["table"] != old["id"]
    new = httpx.get(f"{server.url}/api/tables/{made['table']}").json()
    assert new["status"] == "playing" and new["rules"] == old["rules"]
    assert [(s["kind"], s["name"]) for s in new["seats"]] == [("human", "Ana"), ("human", "Beto")]
    assert new["rated"] is False
    # the same people hold the same seats: each plays on at the new table
    again = TableClient(server.ws_url, made["table"], tokens[1])
    assert again.wait_state()["you"]["seat"] == 1
    for client in (first, second, again):
        client.close()


def test_a_refusal_ends_the_offer_and_no_table_is_made(server: LiveServer) -> None:
    first, second = finished_pair(
        server, (guest_token(server.url, "A"), guest_token(server.url, "B"))
    )
    first.send({"type": "rematch", "accept": True})
    second.send({"type": "rematch", "accept": False})
    declined = rematch_event(first, "declined")
    assert declined["declined"] == 1 and "table" not in declined
    second.send({"type": "rematch", "accept": True})  # too late: the offer is off
    assert refusal(second)["code"] == "rematch_closed"
    first.send({"type": "rematch", "accept": True})
    assert refusal(first)["code"] == "rematch_closed"
    time.sleep(0.2)
    assert not any("table" in e for e in first.events + second.events if e["kind"] == "rematch")
    first.close()
    second.close()


def test_a_player_who_leaves_refuses_and_no_table_is_made(server: LiveServer) -> None:
    first, second = finished_pair(
        server, (guest_token(server.url, "A"), guest_token(server.url, "B"))
    )
    first.send({"type": "rematch", "accept": True})
    rematch_event(second, "accepted")
    second.close()
    left = rematch_event(first, "left")
    assert left["left"] == 1
    first.send({"type": "rematch", "accept": True})
    assert refusal(first)["code"] == "rematch_closed"
    first.close()


def test_a_third_party_cannot_accept_and_nobody_before_the_end(server: LiveServer) -> None:
    tokens = guest_token(server.url, "A"), guest_token(server.url, "B")
    first, second = finished_pair(server, tokens)
    outsider = TableClient(server.ws_url, first.table_id, guest_token(server.url, "Intruso"))
    outsider.wait_state()
    outsider.send({"type": "rematch", "accept": True})
    assert refusal(outsider)["code"] == "not_seated"
    outsider.send({"type": "rematch", "accept": False})  # nor refuse for the players
    assert refusal(outsider)["code"] == "not_seated"
    first.send({"type": "rematch", "accept": True})
    offered = rematch_event(second, "accepted")
    assert offered["accepted"] == [0]  # the outsider counted for nobody
    outsider.close()  # a spectator leaving refuses nothing
    second.send({"type": "rematch", "accept": True})
    assert "table" in rematch_event(first, "table")
    # during a match there is nothing to answer
    playing = create_table(
        server.url, tokens[0], rules={"players": 2}, seat=0, bots={"1": "random"}
    )
    during = TableClient(server.ws_url, playing["id"], tokens[0])
    during.wait_state()
    during.send({"type": "rematch", "accept": True})
    assert refusal(during)["code"] == "not_over"
    for client in (first, second, during):
        client.close()


def test_bots_keep_their_seats_and_levels_in_the_rematch(server: LiveServer) -> None:
    token = guest_token(server.url, "Sola")
    table = create_table(
        server.url, token, rules={"players": 2, "target": 15}, seat=0, bots={"1": "random"}
    )
    me = TableClient(server.ws_url, table["id"], token)
    play_out([me], lambda client, view: "mazo" if "mazo" in view["legal"] else view["legal"][0])
    me.until(lambda s: s["view"] is not None and s["view"]["winner"] is not None)
    me.send({"type": "rematch", "accept": True})  # the only person seated: made at once
    made = rematch_event(me, "table")
    new = httpx.get(f"{server.url}/api/tables/{made['table']}").json()
    assert [(s["kind"], s["bot"]) for s in new["seats"]] == [("human", None), ("bot", "random")]
    assert new["status"] == "playing"
    me.close()


def test_a_rated_match_reports_each_rating_change_and_its_rematch_is_rated(
    server: LiveServer,
) -> None:
    (win_name, win_token, _), (lose_name, lose_token, _) = account(server), account(server)
    first, second = finished_pair(server, (win_token, lose_token), rated=True)
    assert first.view is not None and first.view["winner"] == 0
    deadline = time.monotonic() + 30
    url = f"{server.url}/api/matches/{first.table_id}/result"
    while not (result := httpx.get(url).json())["recorded"]:
        assert result == {"id": first.table_id, "recorded": False}
        assert time.monotonic() < deadline, "the result was never recorded"
        time.sleep(0.05)
    assert result["rated"] is True and result["winner"] == 0 and result["mode"] == "1v1"
    by_seat = {r["seat"]: r for r in result["ratings"]}
    assert by_seat[0]["name"] == win_name and by_seat[1]["name"] == lose_name
    assert by_seat[0]["before"] == by_seat[1]["before"] == 1500
    assert by_seat[0]["after"] > 1500 > by_seat[1]["after"]
    me = httpx.get(f"{server.url}/api/me", headers={"Authorization": f"Bearer {win_token}"})
    assert me.json()["ratings"]["1v1"]["rating"] == by_seat[0]["after"]
    first.send({"type": "rematch", "accept": True})
    second.send({"type": "rematch", "accept": True})
    made = rematch_event(first, "table")
    assert httpx.get(f"{server.url}/api/tables/{made['table']}").json()["rated"] is True
    first.close()
    second.close()


def test_an_unknown_match_has_no_result(server: LiveServer) -> None:
    answer = httpx.get(f"{server.url}/api/matches/nosuchmatch/result")
    assert answer.status_code == 404
    assert answer.json() == {
        "detail": "no match 'nosuchmatch'",
        "code": "no_match",
        "params": {"id": "nosuchmatch"},
    }
    # a match being played has no result yet
    token = guest_token(server.url, "A")
    table = create_table(server.url, token, rules={"players": 2}, seat=0, bots={"1": "random"})
    playing = httpx.get(f"{server.url}/api/matches/{table['id']}/result")
    assert playing.json() == {"id": table["id"], "recorded": False}


def test_every_closed_hand_lays_out_its_bazas_with_every_card_played_and_no_other(
    server: LiveServer,
) -> None:
    """The page draws the closed hand from ``story.bazas``: the cards of each baza, the
    deciding one included, and nothing a seat did not put on the table."""
    tokens = guest_token(server.url, "A"), guest_token(server.url, "B")
    first, second = finished_pair(server, tokens, fold=False)
    closed = [e for e in first.events if e["kind"] == "hand_closed"]
    assert closed
    three = 0
    for hand in closed:
        bazas = hand["story"]["bazas"]
        laid = [tuple(card) for baza in bazas for card in baza["cards"]]
        assert laid == [tuple(p) for p in hand["played"]]
        for baza in bazas:
            if baza["finished"] and baza["winner"] is not None:
                assert baza["best"] % 2 == baza["winner"]
        three += len(bazas) == 3 and len(bazas[2]["cards"]) == 2
    assert three, "no hand was decided by its third baza"
    # the first frame of a page that comes in late carries the last hand's story too
    late = TableClient(server.ws_url, first.table_id)
    state = late.wait_state()
    assert state["full"] and state["story"]["bazas"] == closed[-1]["story"]["bazas"]
    for client in (first, second, late):
        client.close()


@pytest.mark.parametrize(
    "message",
    [
        {"type": "rematch"},
        {"type": "rematch", "accept": "yes"},
        {"type": "rematch", "accept": 1},
        {"type": "rematch", "accept": True, "table": "abc"},
    ],
)
def test_a_malformed_rematch_is_refused_and_changes_nothing(
    server: LiveServer, message: dict[str, Any]
) -> None:
    token = guest_token(server.url, "A")
    table = create_table(server.url, token, rules={"players": 2}, seat=0, bots={"1": "random"})
    client = TableClient(server.ws_url, table["id"], token)
    client.wait_state()
    before = client.version
    client.send(message)
    assert refusal(client)["code"] == "bad_message"
    client.send({"type": "ping"})
    assert client.wait(lambda m: m["type"] == "pong")["v"] >= before
    assert not any(e["kind"] == "rematch" for e in client.events)
    client.close()
