"""The online table over real WebSocket connections to a live server on 127.0.0.1:
whole matches, hidden information, megaphone, reconnect with resync, committed cards,
bots covering absent players, and every kind of bad input."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as websockets_connect

from server_testing import (
    LiveServer,
    TableClient,
    as_states,
    create_table,
    drain,
    guest_token,
    play_out,
)
from truco.cards import parse_card
from truco.game import Game
from truco.record import record_from_json, replay
from truco.server import ServerConfig

CARD = re.compile(r"^(?:play )?((?:[1-7]|1[012])[eboc])$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    db = tmp_path_factory.mktemp("server") / "truco.sqlite3"
    config = ServerConfig(
        db_url=f"sqlite:///{db}",
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=3600,
        rate_per_second=1000,
        rate_burst=1000,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        min_turn_seconds=0.1,
        max_tables_per_guest=100,
    )
    with LiveServer(config) as live:
        yield live


@pytest.fixture(scope="module")
def strict_server() -> Any:
    """The default limits, and bots cover a disconnected player at once."""
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=0,
        http_write_rate="1000/minute",
    )
    with LiveServer(config) as live:
        yield live


def seated_table(
    server: LiveServer,
    rules: dict[str, Any],
    humans: list[int],
    bots: dict[int, str] | None = None,
    **extra: Any,
) -> tuple[str, list[TableClient]]:
    """A table with people in ``humans`` seats (each its own guest) and bots elsewhere."""
    tokens = [guest_token(server.url, f"P{seat}") for seat in humans]
    table = create_table(
        server.url,
        tokens[0],
        rules=rules,
        bots={str(k): v for k, v in (bots or {}).items()},
        **extra,
    )
    clients = []
    for token, seat in zip(tokens, humans, strict=True):
        client = TableClient(server.ws_url, table["id"], token)
        client.wait_state()
        client.send({"type": "sit", "seat": seat})
        client.wait_state(lambda m, s=seat: m["you"]["seat"] == s)
        clients.append(client)
    for client in clients:
        client.until(lambda m: m["table"]["status"] == "playing")
    return table["id"], clients


def random_chooser(rng: random.Random, talk: bool = True, commit: bool = True):  # type: ignore[no-untyped-def]
    def choose(client: TableClient, view: dict[str, Any]) -> str | None:
        moves = [a for a in view["legal"] if not a.startswith("say ")]
        says = [a for a in view["legal"] if a.startswith("say ")]
        if talk and says and rng.random() < 0.05:
            return rng.choice(says)
        if moves:
            return rng.choice(moves)
        if (
            commit
            and view["hand"]
            and client.state["you"]["committed"] is None
            and rng.random() < 0.05
        ):
            return "play " + rng.choice(view["hand"])
        return None

    return choose


def card_strings(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value (alone or in a play token)."""
    found: set[str] = set()
    if isinstance(value, str):
        m = CARD.match(value)
        if m:
            found.add(m.group(1))
    elif isinstance(value, dict):
        for item in value.values():
            found |= card_strings(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_strings(item)
    return found


def hand_secrets(record: dict[str, Any], index: int, seat: int | None, shown: set[str]) -> set[str]:
    """The cards of hand ``index`` that ``seat`` must not see (others' cards not shown)."""
    deal = record["hands"][index]["deal"]
    others = {c for s, cards in enumerate(deal) if s != seat for c in cards}
    return others - shown


def closed_hand_shown(record: dict[str, Any], index: int, public: dict[str, Any]) -> set[str]:
    played = {
        tok.split()[1] for _, tok in record["hands"][index]["actions"] if tok.startswith("play ")
    }
    revealed = {c for _, cards in public["revealed"] for c in cards}
    return played | revealed


def check_no_leak(client: TableClient, seat: int | None, record: dict[str, Any]) -> int:
    """Every frame the client got: no unrevealed card of another seat, no rival team talk.
    Returns how many frames were checked."""
    team = None if seat is None else seat % 2
    # a patch is checked as the state the client holds once it is applied (its values and
    # events are all in it)
    for text, message in as_states(client.frames):
        if message["type"] == "error":  # a refusal names only the cards the client named
            own = card_strings([m for m in client.sent if isinstance(m, dict)])
            assert card_strings(message) <= own, text
            continue
        if message["type"] != "state":
            assert card_strings(message) == set(), text
            continue
        assert card_strings(message["table"]) == set()
        view = message["view"]
        if view is not None:
            h = view["hand_index"]
            if seat is not None and view["hand"]:
                assert set(view["hand"]) <= set(record["hands"][h]["deal"][seat])
            shown = {c for _, c in view["played"]}
            rest = {k: v for k, v in view.items() if k != "last_hand"}
            assert card_strings(rest) & hand_secrets(record, h, seat, shown) == set(), text
            if view["last_hand"] is not None:
                last = view["last_hand"]
                secret = hand_secrets(
                    record,
                    last["index"],
                    seat,
                    closed_hand_shown(record, last["index"], last),
                )
                assert card_strings(last) & secret == set(), text
            if seat is None:
                assert view["hand"] == [] and view["legal"] == []
            for s, token in view["log"]:
                if token.startswith("say "):
                    assert team is not None and s % 2 == team
        committed = message["you"]["committed"]
        if committed is not None:
            assert (
                seat is not None and committed in record["hands"][view["hand_index"]]["deal"][seat]
            )
        for event in message["events"]:
            if event["kind"] == "deck_revealed":  # fair deals: decks are public once it ends
                assert view is not None and view["winner"] is not None, "a deck revealed early"
                continue
            check_event(event, seat, record)
    return len(client.frames)


def check_event(event: dict[str, Any], seat: int | None, record: dict[str, Any]) -> None:
    """One event a seat (``None``: a spectator) got shows nothing hidden from it."""
    team = None if seat is None else seat % 2
    kind = event["kind"]
    if kind == "action":
        if event["action"].startswith("say "):
            assert team is not None and event["seat"] % 2 == team, (
                "megaphone words reached the rival team"
            )
        elif event["action"].startswith("play "):
            card = event["action"].split()[1]
            assert card in record["hands"][event["hand"]]["deal"][event["seat"]]
    elif kind == "hand_closed":
        secret = hand_secrets(
            record,
            event["index"],
            seat,
            closed_hand_shown(record, event["index"], event),
        )
        assert card_strings(event) & secret == set()
    elif kind == "committed":
        assert event["seat"] == seat, "a committed card reached another seat"
    else:
        assert card_strings(event) == set(), event


def alone_actors(record: dict[str, Any]) -> set[int]:
    """The seats that were, at some point of the recorded match, the only one who could act."""
    parsed = record_from_json(record)
    game = Game(parsed.rules, first_mano=parsed.first_mano, manual_deal=True)
    alone: set[int] = set()
    for hand in parsed.hands:
        assert hand.deal is not None
        game.deal(hand.deal)
        for seat, action in hand.actions:
            actors = game.actors()
            if len(actors) == 1:
                alone.add(actors[0])
            game.apply(seat, action)
    return alone


def finished_record(server: LiveServer, table_id: str) -> dict[str, Any]:
    for _ in range(200):
        response = httpx.get(f"{server.url}/api/matches/{table_id}/record")
        if response.status_code == 200:
            return response.json()  # type: ignore[no-any-return]
        import time

        time.sleep(0.05)  # the writer stores the final record off the hot path
    raise AssertionError(
        f"no finished record for {table_id}: {response.status_code} {response.text}"
    )


# ------------------------------------------------------------------ whole matches
def test_whole_1v1_match_between_two_connected_people(server: LiveServer) -> None:
    table_id, clients = seated_table(server, {"players": 2, "target": 15}, [0, 1])
    play_out(clients, random_chooser(random.Random(1), commit=False))
    for client in clients:
        client.until(lambda m: m["view"]["winner"] is not None)
    a, b = (c.view for c in clients)
    assert a["winner"] == b["winner"] and a["score"] == b["score"] and max(a["score"]) == 15
    assert clients[0].state["table"]["status"] == "finished"
    record = finished_record(server, table_id)
    result = replay(record_from_json(record))
    assert result.error is None and result.winner == a["winner"]
    history = httpx.get(f"{server.url}/api/history").json()
    assert any(h["id"] == table_id and h["winner"] == a["winner"] for h in history)
    steps = httpx.get(f"{server.url}/api/matches/{table_id}/replay").json()["steps"]
    assert steps[0]["action"] is None and len(steps) > len(record["hands"])
    for client in clients:
        client.close()
    # once nobody watches, the finished table leaves memory: a late visitor is sent to the replay
    for _ in range(100):
        if httpx.get(f"{server.url}/api/tables/{table_id}").status_code == 404:
            with pytest.raises(ConnectionClosed) as closed:  # the refusal, then the close
                late = TableClient(server.ws_url, table_id)
                while True:
                    late.recv()
            if closed.value.rcvd is not None and closed.value.rcvd.code == 4410:
                assert f"/replay/{table_id}" in closed.value.rcvd.reason
                return
        import time

        time.sleep(0.05)
    raise AssertionError("the finished table was not released")


def test_2v2_people_and_bots_play_to_the_end(server: LiveServer) -> None:
    table_id, clients = seated_table(
        server,
        {"players": 4, "flor": True, "target": 15},
        [0, 1],
        bots={2: "random", 3: "random"},
    )
    play_out(clients, random_chooser(random.Random(2)))
    record = finished_record(server, table_id)
    for client, seat in zip(clients, (0, 1), strict=True):
        check_no_leak(client, seat, record)
    # the bots play their seats, and only theirs; the people theirs
    by = {(e["seat"], e["by"]) for c in clients for e in c.events if e["kind"] == "action"}
    assert {who for seat, who in by if seat >= 2} <= {"bot"}
    assert {who for seat, who in by if seat < 2} <= {"player", "committed"}
    # every seat that had to act alone did (the match went on): not "every seat acted",
    # since a random match may end before a seat's first turn (a falta envido accepted at
    # 0-0 wins it): 1 random 4-player match in 130 leaves one seat without a turn, 1 in
    # 3000 both bots
    seats = {s for hand in record["hands"] for s, _ in hand["actions"]}
    assert alone_actors(record) <= seats
    assert {seat for seat, who in by if who == "bot"} == seats & {2, 3}
    # the replay tells who sat where as the table did: the bots by name and level, and
    # nobody's private id
    replayed = httpx.get(f"{server.url}/api/matches/{table_id}/replay").json()
    sat = replayed["seats"]
    assert [seat["kind"] for seat in sat] == ["human", "human", "bot", "bot"]
    assert [seat["bot"] for seat in sat[2:]] == ["random", "random"]
    assert [seat["name"] for seat in sat] == record["headers"]["seats"]
    assert all(set(seat) == {"kind", "name", "bot"} for seat in sat)


@pytest.mark.parametrize(
    "rules",
    [
        {"players": 2, "target": 15},
        {"players": 2, "flor": True, "target": 15},
        {"players": 4, "target": 15},
        {"players": 4, "flor": True, "target": 15},
        {"players": 6, "target": 15},
        {"players": 6, "flor": True, "target": 15},
        {"players": 6, "target": 30, "pica_pica": True},
    ],
)
def test_no_message_ever_shows_another_seats_hidden_card(
    server: LiveServer, rules: dict[str, Any]
) -> None:
    """Every seat is a connected person playing at random (calls, megaphone, cards
    committed early) and a spectator watches; every frame to each is checked."""
    n = rules["players"]
    rng = random.Random(n * 10 + rules.get("flor", False))
    total = 0  # frames checked; a match's length depends on its (fair, random) deals
    for _ in range(2 if n < 6 else 1):
        table_id, clients = seated_table(server, rules, list(range(n)))
        spectator = TableClient(server.ws_url, table_id)
        play_out([*clients, spectator], random_chooser(rng))
        spectator.until(lambda m: m["view"] is not None and m["view"]["winner"] is not None)
        record = finished_record(server, table_id)
        checked = sum(check_no_leak(c, seat, record) for seat, c in enumerate(clients))
        checked += check_no_leak(spectator, None, record)
        assert checked > n  # every seat and the spectator got frames with cards to check
        total += checked
        assert spectator.view is not None and spectator.view["winner"] is not None
        for client in [*clients, spectator]:
            client.close()
    assert total > 20


def test_megaphone_reaches_only_the_speakers_team(server: LiveServer) -> None:
    table_id, clients = seated_table(server, {"players": 4}, [0, 1, 2, 3])
    spectator = TableClient(server.ws_url, table_id)
    spectator.wait_state()
    clients[0].act("say voy")
    clients[0].wait_state(lambda m: any(e.get("action") == "say voy" for e in m["events"]))
    clients[2].wait_state(lambda m: any(e.get("action") == "say voy" for e in m["events"]))
    # a later public event reaches everyone; the rivals' frames never carried the word
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    drain(actor)
    actor.act("mazo")
    for client in (clients[1], clients[3], spectator):
        client.wait_state(lambda m: any(e.get("action") == "mazo" for e in m["events"]))
        for frame in map(json.loads, client.frames):
            assert not any(e.get("action") == "say voy" for e in frame.get("events", []))
            assert frame.get("view") is None or [0, "say voy"] not in frame["view"]["log"]
    assert clients[2].view is not None and [0, "say voy"] in clients[2].view["log"]


# ------------------------------------------------------------------ reconnect
def test_reconnect_with_last_version_gets_what_was_missed(server: LiveServer) -> None:
    table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    for c in clients:
        drain(c)
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    other = clients[1] if actor is clients[0] else clients[0]
    seat = other.view["seat"] if other.view else None
    last_seen = other.version
    other.close()
    actor.act("truco")
    actor.wait_state(lambda m: any(e.get("action") == "truco" for e in m["events"]))
    other_token = other.token
    back = TableClient(server.ws_url, table_id, other_token, since=last_seen)
    first = back.wait_state()
    assert first["full"] is False and first["you"]["seat"] == seat
    assert any(e["kind"] == "action" and e["action"] == "truco" for e in first["events"])
    assert all(e["v"] > last_seen for e in first["events"])
    assert first["view"]["pending"]["kind"] == "truco" and "quiero" in first["view"]["legal"]
    # the same seat connecting fresh gets the same view in full
    fresh = TableClient(server.ws_url, table_id, other_token)
    full = fresh.wait_state()
    assert full["full"] is True
    assert (
        full["view"]["hand"] == first["view"]["hand"]
        and full["view"]["legal"] == first["view"]["legal"]
    )
    # sync in the middle of a connection, and a version from the future gives the full state
    back.wait_state(
        lambda m: any(e["kind"] == "presence" for e in m["events"])
    )  # the fresh connection
    back.send({"type": "sync", "since": first["v"]})
    again = back.wait_state()
    assert again["full"] is False and [e["kind"] for e in again["events"]] == ["presence"]
    back.send({"type": "sync", "since": 10**6})
    assert back.wait_state()["full"] is True
    for client in (actor, back, fresh):
        client.close()


# ------------------------------------------------------------------ committed cards
def test_a_card_released_before_its_turn_goes_down_when_the_turn_comes(
    server: LiveServer,
) -> None:
    _table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    for c in clients:
        drain(c)
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    waiting = clients[1] if actor is clients[0] else clients[0]
    assert waiting.view is not None and actor.view is not None
    early = waiting.view["hand"][0]
    waiting.act(f"play {early}")
    note = waiting.wait_state(lambda m: m["you"]["committed"] == early)
    assert any(e["kind"] == "committed" for e in note["events"])
    waiting.act(f"play {waiting.view['hand'][1]}")
    error = waiting.wait(lambda m: m["type"] == "error")
    assert "cannot be taken back" in error["reason"]
    drain(actor)
    assert early not in card_strings(actor.state)  # the rival does not learn it
    actor.act(f"play {actor.view['hand'][0]}")
    done = waiting.wait_state(
        lambda m: any(e.get("action") == f"play {early}" for e in m["events"])
    )
    event = next(e for e in done["events"] if e.get("action") == f"play {early}")
    assert event["by"] == "committed" and early not in done["view"]["hand"]
    for client in clients:
        client.close()


def test_an_action_sent_with_its_version_is_taken_once(server: LiveServer) -> None:
    """A script that sends the same action twice with the version it chose at (``v``)
    gets it taken once: the second is ``stale``, and nothing changes."""
    _table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    for c in clients:
        drain(c)
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    other = clients[1] if actor is clients[0] else clients[0]
    chosen_at = actor.version
    for bad in (-1, "3", 2**60, True):
        actor.send({"type": "act", "action": "truco", "v": bad})
        refused = actor.wait(lambda m: m["type"] == "error")
        assert (refused["code"], refused["params"]["field"]) == ("bad_message", "v"), bad
    actor.send({"type": "act", "action": "truco", "v": chosen_at})
    actor.send({"type": "act", "action": "truco", "v": chosen_at})
    stale = actor.wait(lambda m: m["type"] == "error")
    assert stale["code"] == "stale" and stale["params"]["given"] == chosen_at
    called = other.wait_state(lambda m: any(e.get("action") == "truco" for e in m["events"]))
    assert stale["params"]["version"] == called["v"]
    other.send({"type": "ping"})
    assert other.wait(lambda m: m["type"] == "pong")["v"] == called["v"]  # taken once
    other.send({"type": "act", "action": "quiero", "v": called["v"]})  # the right one: taken
    actor.wait_state(lambda m: any(e.get("action") == "quiero" for e in m["events"]))
    for client in clients:
        client.close()


# ------------------------------------------------------------------ bad input
def test_bad_input_gets_an_error_and_changes_nothing(server: LiveServer) -> None:
    table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    for c in clients:
        drain(c)
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    other = clients[1] if actor is clients[0] else clients[0]
    version = actor.version

    def error_for(client: TableClient, frame: Any) -> dict[str, Any]:
        client.send(frame)
        return client.wait(lambda m: m["type"] == "error")

    assert error_for(actor, "{not json")["code"] == "bad_json"
    assert error_for(actor, "[1, 2]")["code"] == "not_an_object"
    assert error_for(actor, {"type": "dance"})["code"] == "unknown_type"
    assert error_for(actor, {"type": "act"})["code"] == "bad_message"
    assert (
        error_for(actor, {"type": "act", "action": "play 1e", "seat": 1})["code"] == "bad_message"
    )
    assert error_for(actor, {"type": "sit", "seat": "x"})["code"] == "bad_message"
    big = error_for(actor, json.dumps({"type": "ping", "pad": "x" * 5000}))
    assert big["code"] == "too_large"
    actor.ws.send(b"\x00\x01")
    assert actor.wait(lambda m: m["type"] == "error")["code"] == "bad_json"
    assert error_for(actor, {"type": "act", "action": "juggle"})["code"] == "bad_action"
    assert error_for(actor, {"type": "act", "action": "play 8e"})["code"] == "bad_action"
    # acting for the other seat: its cards are not in this seat's hand
    assert other.view is not None
    foreign = other.view["hand"][0]
    wrong = error_for(actor, {"type": "act", "action": f"play {foreign}"})
    assert wrong["code"] == "card_not_held" and wrong["params"] == {"card": foreign}
    # out of turn: a call is refused with the engine's rule, its code and parameters
    illegal = error_for(other, {"type": "act", "action": "truco"})
    assert illegal["code"] == "not_your_turn" and illegal["reason"]
    assert illegal["params"] == {"player": actor.view["seat"]}
    assert error_for(actor, {"type": "act", "action": "quiero"})["code"] == "no_call_to_answer"
    # asking why changes nothing: the same refusal, in a why frame; a legal action: legal
    other.send({"type": "why", "action": "truco"})
    why = other.wait(lambda m: m["type"] == "why")
    assert why == {
        "type": "why",
        "protocol": 2,
        "action": "truco",
        "legal": False,
        **{k: illegal[k] for k in ("code", "params", "reason")},
    }
    actor.send({"type": "why", "action": "mazo"})
    assert actor.wait(lambda m: m["type"] == "why") == {
        "type": "why",
        "protocol": 2,
        "action": "mazo",
        "legal": True,
    }
    assert error_for(actor, {"type": "sit", "seat": 1})["code"] == "started"
    assert error_for(actor, {"type": "add_bot", "seat": 1})["code"] in (
        "not_creator",
        "started",
    )
    # a spectator cannot act
    watcher = TableClient(server.ws_url, table_id)
    watcher.wait_state()
    assert error_for(watcher, {"type": "act", "action": "mazo"})["code"] == "not_seated"
    # nothing changed: the same version, and the table still plays on
    actor.send({"type": "ping"})
    assert actor.wait(lambda m: m["type"] == "pong")["v"] == version
    actor.act("mazo")
    other.wait_state(lambda m: any(e.get("action") == "mazo" for e in m["events"]))
    for client in [*clients, watcher]:
        client.close()


def test_flooding_is_rate_limited_then_closed(strict_server: LiveServer) -> None:
    server = strict_server
    table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    flooder = TableClient(server.ws_url, table_id)
    flooder.wait_state()
    with pytest.raises(ConnectionClosed):
        for _ in range(400):  # the server may close before all are sent
            flooder.send({"type": "ping"})
        while True:
            flooder.recv()
    with pytest.raises(ConnectionClosed) as closed:
        while True:  # what arrived before the close can still be read
            flooder.recv()
    codes = [e["code"] for e in flooder.errors]
    assert codes and set(codes) == {"rate_limited"}
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert "flooding" in closed.value.rcvd.reason
    # the players are unaffected
    clients[0].send({"type": "ping"})
    assert clients[0].wait(lambda m: m["type"] == "pong")
    for client in clients:
        client.close()


def test_bad_token_and_unknown_table_close_with_a_reason(server: LiveServer) -> None:
    frames = []
    with (
        websockets_connect(f"{server.ws_url}/ws/nosuch", open_timeout=10) as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        while True:
            frames.append(json.loads(ws.recv(timeout=10)))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    assert frames == [
        {
            "type": "error",
            "protocol": 2,
            "code": "no_table",
            "params": {"table": "nosuch"},
            "reason": "there is no table nosuch",
        }
    ]
    token = guest_token(server.url, "Eve")
    table = create_table(server.url, token, rules={"players": 2})
    forged = TableClient(server.ws_url, table["id"], token + "forged")
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            forged.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    assert [e["code"] for e in forged.errors] == ["bad_token"]
    spectator = TableClient(server.ws_url, table["id"])
    spectator.wait_state()
    spectator.send({"type": "sit", "seat": 0})
    assert spectator.wait(lambda m: m["type"] == "error")["code"] == "no_player"
    spectator.close()


# ------------------------------------------------------------------ lobby API
def test_lobby_api(server: LiveServer) -> None:
    http = httpx.Client(base_url=server.url, timeout=10)
    options = http.get("/api/options").json()
    assert options["players"] == [2, 4, 6] and "random" in " ".join(options["bots"])
    token = guest_token(server.url, "Lu")
    auth = {"Authorization": f"Bearer {token}"}
    bad = http.post("/api/tables", json={"rules": {"players": 3}}, headers=auth)
    assert bad.status_code == 400 and "players must be one of" in bad.json()["detail"]
    bad = http.post("/api/tables", json={"rules": {"players": 2, "pica_pica": True}}, headers=auth)
    assert bad.status_code == 400 and "pica_pica" in bad.json()["detail"]
    assert http.post("/api/tables", json={}).status_code == 401
    assert http.post("/api/tables", json={"bots": {"1": "nobot"}}, headers=auth).status_code == 422
    made = http.post(
        "/api/tables",
        json={
            "rules": {"players": 4, "flor": True, "target": 15, "chicos": 3},
            "name": "Los pibes",
            "seat": 0,
            "bots": {"1": "random"},
        },
        headers=auth,
    )
    assert made.status_code == 201
    table = made.json()
    assert table["describe"] == "2v2 con flor a 15 al mejor de 3" and table["status"] == "waiting"
    assert [s["kind"] for s in table["seats"]] == ["human", "bot", "empty", "empty"]
    assert any(t["id"] == table["id"] for t in http.get("/api/tables").json())
    assert http.get(f"/api/tables/{table['id']}").json()["name"] == "Los pibes"
    assert http.get("/api/tables/nothere").status_code == 404
    assert http.get(f"/api/matches/{table['id']}/record").status_code == 404
    assert http.get("/api/me", headers=auth).json()["name"] == "Lu"
    assert http.get("/").status_code == 200 and http.get(f"/t/{table['id']}").status_code == 200


def test_unfinished_match_record_is_not_public(server: LiveServer) -> None:
    table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    import time

    for _ in range(100):
        response = httpx.get(f"{server.url}/api/matches/{table_id}/record")
        if response.status_code != 404:
            break
        time.sleep(0.05)
    assert response.status_code == 403  # the deals would show hidden cards
    for client in clients:
        client.close()


def test_card_images() -> None:
    from xml.dom.minidom import parseString

    from truco.cards import card_name
    from truco.server.web.card_art import card_back_svg, card_svg

    names = [card_name(c) for c in range(40)]
    svgs = {card_svg(n) for n in names}
    assert len(svgs) == 40
    for svg in svgs:
        assert svg is not None
        parseString(svg)
    parseString(card_back_svg())
    assert card_svg("8o") is None and card_svg("x") is None
    assert parse_card("12c") == parse_card("12C")


# ------------------------------------------------------------------ absent players
def test_a_disconnected_player_is_covered_by_a_bot_until_they_come_back(
    strict_server: LiveServer,
) -> None:
    server = strict_server
    table_id, clients = seated_table(server, {"players": 2}, [0, 1])
    for c in clients:
        drain(c)
    actor = next(c for c in clients if c.view and c.view["seat"] in c.view["actors"])
    absent = clients[1] if actor is clients[0] else clients[0]
    seat = absent.view["seat"] if absent.view else None
    absent.close()
    actor.wait_state(lambda m: any(e["kind"] == "away" and e["seat"] == seat for e in m["events"]))
    assert actor.state["table"]["seats"][seat]["away"] is True
    actor.act(f"play {actor.view['hand'][0]}" if actor.view else "mazo")
    covered = actor.wait_state(
        lambda m: any(e.get("seat") == seat and e.get("by") == "bot" for e in m["events"])
    )
    assert covered["view"] is not None
    back = TableClient(server.ws_url, table_id, absent.token)
    returned = back.wait_state()
    assert returned["table"]["seats"][seat]["away"] is False
    actor.wait_state(lambda m: any(e["kind"] == "away" and not e["away"] for e in m["events"]))
    for client in (actor, back):
        client.close()


def test_the_turn_clock_hands_a_silent_seat_to_a_bot(server: LiveServer) -> None:
    _table_id, clients = seated_table(server, {"players": 2}, [0, 1], turn_seconds=0.3)
    for c in clients:
        drain(c)
    state = clients[0].state
    assert state["table"]["turn_seconds"] == 0.3
    clock = state["table"]["clock"]
    assert clock is not None and 0 < clock["remaining"] <= 0.3 and clock["total"] == 0.3
    timed_out = clients[0].wait_state(
        lambda m: any(e["kind"] == "away" and e["why"] == "clock" for e in m["events"]),
        10,
    )
    seat = next(e["seat"] for e in timed_out["events"] if e["kind"] == "away")
    owner = clients[seat]
    owner.wait_state(
        lambda m: any(e.get("seat") == seat and e.get("by") == "bot" for e in m["events"]),
        10,
    )
    owner.send({"type": "back"})
    owner.wait_state(lambda m: not m["table"]["seats"][seat]["away"])
    for client in clients:
        client.close()
