"""Accounts at the table: rated tables (accounts only, no bots), rated matches played to the
end over the WebSocket moving the ratings people see (``/api/me``, the leaderboard, the
profile), an abandoned rated match lost, a session that never reaches another account's seat,
and the lobby's hook for the quick-match queue."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from server_testing import OPEN_PLAY, LiveServer, TableClient, play_out
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.lobby.tables import Lobby
from truco.server.people.players import Player
from truco.server.people.ratings import MODES
from truco.server.storage.store import Store
from truco.server.table import TableError

_names = iter(range(10**6))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # a file, not sqlite:// (one connection shared by every thread, transactions mixed)
    config = ServerConfig(
        **OPEN_PLAY,
        db_url=f"sqlite:///{tmp_path_factory.mktemp('db') / 'truco.sqlite3'}",
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=0.3,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        max_tables_per_guest=100,
        max_tables_per_address=100,
    )
    with LiveServer(config) as live:
        yield live


class Account:
    """A signed-up player: their HTTP client (the cookie) and their token (the socket)."""

    def __init__(self, server: LiveServer, prefix: str) -> None:
        self.name = f"{prefix}{next(_names)}"
        self.http = httpx.Client(base_url=server.url, timeout=30)
        answer = self.http.post(
            "/api/accounts", json={"name": self.name, "password": "mate-cocido-7"}
        ).json()
        self.id, self.token = answer["id"], answer["token"]

    def rating(self, mode: str = "1v1") -> dict[str, Any]:
        ratings: dict[str, Any] = self.http.get("/api/me").json()["ratings"][mode]
        return ratings


def rated_table(owner: Account, players: int = 2, rated: bool = True) -> dict[str, Any]:
    response = owner.http.post(
        "/api/tables",
        json={"rules": {"players": players, "target": 15}, "seat": 0, "rated": rated},
    )
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


def until_my_turn_or_end(client: TableClient) -> dict[str, Any]:
    return client.until(
        lambda s: (
            s["view"] is not None and (bool(s["view"]["legal"]) or s["view"]["winner"] is not None)
        )
    )


def fold_until_over(client: TableClient) -> None:
    """Leave every hand (``mazo``; else the first legal action) until the match is over."""
    while True:
        view = until_my_turn_or_end(client)["view"]
        if view["winner"] is not None:
            return
        legal = [a for a in view["legal"] if not a.startswith("say ")]
        client.act_and_wait("mazo" if "mazo" in legal else legal[0])


def play_until_over(clients: list[TableClient], loser: TableClient) -> None:
    """The loser leaves every hand; the others answer with their first calm legal action."""

    def choose(client: TableClient, view: dict[str, Any]) -> str:
        legal = [a for a in view["legal"] if not a.startswith("say ")]
        if client is loser and "mazo" in legal:
            return "mazo"
        calm = [a for a in legal if a in ("quiero", "no-quiero") or a.startswith("play")]
        return (calm or legal)[0]

    play_out(clients, choose)
    for client in clients:
        client.until(lambda s: s["view"] is not None and s["view"]["winner"] is not None)


def recorded(account: Account, games: int, mode: str = "1v1") -> dict[str, Any]:
    """The account's profile once it lists ``games`` finished matches (results are
    recorded just after a match ends)."""
    deadline = time.monotonic() + 60
    while True:
        profile: dict[str, Any] = account.http.get(f"/api/players/{account.name}").json()
        if len(profile["matches"]) >= games or time.monotonic() > deadline:
            return profile
        time.sleep(0.05)


def seat_both(
    server: LiveServer, owner: Account, rival: Account
) -> tuple[TableClient, TableClient]:
    table = rated_table(owner)
    mine = TableClient(server.ws_url, table["id"], owner.token)
    theirs = TableClient(server.ws_url, table["id"], rival.token)
    theirs.wait_state()
    theirs.send({"type": "sit", "seat": 1})
    mine.until(lambda s: s["table"]["status"] == "playing")
    return mine, theirs


# ------------------------------------------------------------------ creating rated tables
def test_only_accounts_create_rated_tables_and_the_summary_says_rated(server: LiveServer) -> None:
    guest = httpx.Client(base_url=server.url, timeout=30)
    guest.post("/api/guest", json={"name": "Invitado Uno"})
    refused = guest.post("/api/tables", json={"rules": {"players": 2}, "seat": 0, "rated": True})
    assert refused.status_code == 409 and refused.json()["code"] == "account_needed"
    owner = Account(server, "Dueño")
    table = rated_table(owner)
    assert table["rated"] is True
    listed = {t["id"]: t for t in guest.get("/api/tables").json()}
    assert listed[table["id"]]["rated"] is True
    casual = guest.post("/api/tables", json={"rules": {"players": 2}, "seat": 0}).json()
    assert casual["rated"] is False  # the default


def test_a_rated_table_refuses_bots_and_guests_with_a_reason(server: LiveServer) -> None:
    owner = Account(server, "Dueña")
    with_bot = owner.http.post(
        "/api/tables",
        json={"rules": {"players": 2}, "seat": 0, "rated": True, "bots": {"1": "random"}},
    )
    assert with_bot.status_code == 409 and with_bot.json()["code"] == "rated_no_bots"
    assert "no bots" in with_bot.json()["detail"]
    table = rated_table(owner, players=4)
    client = TableClient(server.ws_url, table["id"], owner.token)
    client.wait_state()
    client.send({"type": "add_bot", "seat": 1, "level": "random"})
    error = client.wait(lambda m: m["type"] == "error")
    assert error["code"] == "rated_no_bots"
    guest_token = httpx.post(f"{server.url}/api/guest", json={"name": "Colado"}).json()["token"]
    guest = TableClient(server.ws_url, table["id"], guest_token)
    guest.wait_state()
    guest.send({"type": "sit", "seat": 1})
    assert guest.wait(lambda m: m["type"] == "error")["code"] == "account_needed"
    summary = httpx.get(f"{server.url}/api/tables/{table['id']}").json()
    assert [s["kind"] for s in summary["seats"]] == ["human", "empty", "empty", "empty"]
    client.close()
    guest.close()


# ------------------------------------------------------------------ rated matches
def test_a_rated_match_raises_the_winner_lowers_the_loser_everywhere_it_shows(
    server: LiveServer,
) -> None:
    winner, loser = Account(server, "Gana"), Account(server, "Pierde")
    mine, theirs = seat_both(server, winner, loser)
    play_until_over([mine, theirs], loser=theirs)
    assert mine.view is not None and mine.view["winner"] == 0
    profile = recorded(winner, 1)
    won, lost = winner.rating(), loser.rating()
    assert won["rating"] > 1500 > lost["rating"]
    assert won["games"] == lost["games"] == 1 and won["provisional"]
    assert profile["ratings"]["1v1"] == won
    assert profile["record"]["1v1"] == {"won": 1, "lost": 0}
    [match] = profile["matches"]
    assert match["id"] == mine.table_id and match["rated"] and match["result"] == "won"
    assert match["mode"] == "1v1" and match["replay_url"] == f"/replay/{mine.table_id}"
    assert [h["match_id"] for h in profile["history"]["1v1"]] == [mine.table_id]
    assert profile["history"]["1v1"][0]["rating"] == won["rating"]
    assert profile["history"]["2v2"] == profile["history"]["3v3"] == []
    board = httpx.get(f"{server.url}/api/leaderboard", params={"mode": "1v1"}).json()
    assert board["mode"] == "1v1"
    names = [p["name"] for p in board["players"]]
    assert names.index(winner.name) < names.index(loser.name)
    ratings = [p["rating"] for p in board["players"]]
    assert ratings == sorted(ratings, reverse=True)
    assert {"name", "rating", "games", "provisional"} == set(board["players"][0])
    mine.close()
    theirs.close()


def test_a_casual_match_between_accounts_changes_no_rating_but_counts_in_the_record(
    server: LiveServer,
) -> None:
    a, b = Account(server, "Casual"), Account(server, "Casual")
    table = rated_table(a, rated=False)
    mine = TableClient(server.ws_url, table["id"], a.token)
    theirs = TableClient(server.ws_url, table["id"], b.token)
    theirs.wait_state()
    theirs.send({"type": "sit", "seat": 1})
    play_until_over([mine, theirs], loser=mine)
    profile = recorded(b, 1)
    assert profile["record"]["1v1"] == {"won": 1, "lost": 0}
    assert profile["matches"][0]["rated"] is False
    assert a.rating() == b.rating() == {"rating": 1500, "games": 0, "provisional": True}
    assert profile["history"]["1v1"] == []
    mine.close()
    theirs.close()


def test_abandoning_a_rated_match_is_a_loss_even_if_the_cover_bot_wins_it(
    server: LiveServer,
) -> None:
    stays, leaves = Account(server, "Queda"), Account(server, "Huye")
    mine, theirs = seat_both(server, stays, leaves)
    theirs.close()  # gone: past the reconnect window a bot covers the seat to the end
    mine.until(lambda s: s["table"]["seats"][1]["away"], timeout=30)
    fold_until_over(mine)  # the one who stayed folds every hand: the bot wins
    assert mine.view is not None and mine.view["winner"] == 1
    profile = recorded(leaves, 1)
    [match] = profile["matches"]
    assert match["result"] == "lost" and match["abandoned"] is True
    assert profile["record"]["1v1"] == {"won": 0, "lost": 1}
    assert leaves.rating()["rating"] < 1500 and stays.rating()["rating"] < 1500
    mine.close()


# ------------------------------------------------------------------ authorization
def test_one_accounts_session_never_reaches_another_accounts_seat(server: LiveServer) -> None:
    owner, rival, intruder = Account(server, "Uno"), Account(server, "Dos"), Account(server, "Tres")
    mine, theirs = seat_both(server, owner, rival)
    spy = TableClient(server.ws_url, mine.table_id, intruder.token)
    state = spy.wait_state()
    assert state["you"]["seat"] is None and not state["view"]["hand"]  # no cards to see
    spy.send({"type": "act", "action": "mazo"})
    assert spy.wait(lambda m: m["type"] == "error")["code"] in ("not_seated", "spectator")
    # the cookie (the page's way) of the intruder: the same, no seat
    headers = {"Cookie": f"truco_session={intruder.token}", "Origin": server.url}
    with connect(f"{server.ws_url}/ws/{mine.table_id}", additional_headers=headers) as ws:
        first = json.loads(ws.recv(timeout=10))
        assert first["you"]["seat"] is None
        assert first["you"]["player"]["id"] == intruder.id
    # the seats' own sessions are theirs
    assert mine.until(lambda s: s["you"]["seat"] == 0)["you"]["player"]["id"] == owner.id
    assert theirs.until(lambda s: s["you"]["seat"] == 1)["you"]["player"]["id"] == rival.id
    for client in (mine, theirs, spy):
        client.close()


# ------------------------------------------------------------------ the queue's hook
def test_the_lobby_seats_matched_accounts_at_a_rated_table_by_id() -> None:
    async def scenario() -> None:
        config = ServerConfig(**OPEN_PLAY, db_url="sqlite://", bot_delay=0, turn_seconds=0)
        lobby = Lobby(config, Store(config.db_url))
        await lobby.start()
        try:
            people = [Player(f"id{i}", f"Persona {i}", account=True) for i in range(4)]
            table = lobby.create_match(people, Rules(players=4), rated=True)
            await table.until_durable()
            summary = table.summary()
            assert summary["rated"] and summary["status"] == "playing"
            assert [s.player_id for s in table.seats] == ["id0", "id1", "id2", "id3"]
            assert [s["team"] for s in summary["seats"]] == [0, 1, 0, 1]
            guest = Player("g", "Invitado", account=False)
            with pytest.raises(TableError, match="accounts only"):
                lobby.create_match([*people[:3], guest], Rules(players=4), rated=True)
            with pytest.raises(TableError, match="no bots"):
                lobby.create_match(people[:3], Rules(players=4), rated=True, bots={3: "random"})
            with pytest.raises(TableError, match="two seats"):
                lobby.create_match([people[0], people[0]], Rules(players=2), rated=False)
            casual = lobby.create_match([guest], Rules(players=2), rated=False, bots={1: "random"})
            assert casual.status == "playing" and not casual.rated
            assert casual.seats[1].kind == "bot"
        finally:
            await lobby.stop()

    asyncio.run(scenario())


def test_modes_are_the_table_sizes() -> None:
    assert MODES == {2: "1v1", 4: "2v2", 6: "3v3"}
