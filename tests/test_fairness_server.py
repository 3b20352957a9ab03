"""Commit-reveal deals at the online table (live server on 127.0.0.1, real WebSockets):
each hand's commitment is published before its deal, no frame carries a deck or a salt
before the match is over, the finished record verifies hand by hand, and a server
restarted in the middle of a hand honours the commitment it published."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import httpx

from server_testing import (
    LiveServer,
    TableClient,
    as_states,
    create_table,
    guest_token,
    play_out,
)
from truco.deal import CommittedDealer
from truco.game import Game
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.storage.store import Store
from truco.server.table import resumed_dealer
from truco.verify import exit_status, verify_record


def config(db_url: str) -> ServerConfig:
    return ServerConfig(
        db_url=db_url,
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=3600,
        rate_per_second=1000,
        rate_burst=1000,
    )


def finished_record(server: LiveServer, table_id: str) -> dict[str, Any]:
    import time

    for _ in range(400):
        response = httpx.get(f"{server.url}/api/matches/{table_id}/record")
        if response.status_code == 200:
            return response.json()  # type: ignore[no-any-return]
        time.sleep(0.05)  # the writer stores the final record off the hot path
    raise AssertionError(f"no finished record for {table_id}")


def choose(rng: random.Random) -> Any:
    def pick(client: TableClient, view: dict[str, Any]) -> str | None:
        moves = [a for a in view["legal"] if not a.startswith("say ")]
        return rng.choice(moves) if moves else None

    return pick


def check_commit_then_reveal(client: TableClient, record: dict[str, Any]) -> None:
    """What one connection saw: each hand's commitment before (or with, earlier in the
    events) its cards; no deck and no salt in any frame before the one that ends the match;
    that frame reveals every hand's deck, the same as the record's."""
    salts = [hand["fairness"]["salt"] for hand in record["hands"]]
    commitments: dict[int, str] = {}
    over_seen = False
    for text, message in as_states(client.frames):
        if message["type"] != "state":
            continue
        kinds = [e["kind"] for e in message["events"]]
        over_here = "over" in kinds
        if not over_seen and not over_here:
            assert '"deck"' not in text and '"salt"' not in text, "a deck went out early"
            assert not any(salt in text for salt in salts), "a salt went out early"
        for event in message["events"]:
            if event["kind"] == "commitment":
                commitments[event["hand"]] = event["commitment"]
            elif event["kind"] == "deal":
                assert event["hand"] in commitments, "a hand dealt before its commitment"
            elif event["kind"] == "deck_revealed":
                position = message["events"].index(event)
                assert over_seen or (over_here and kinds.index("over") < position)
                fair = record["hands"][event["hand"]]["fairness"]
                assert event["deck"] == fair["deck"] and event["salt"] == fair["salt"]
                assert event["commitment"] == commitments.get(event["hand"], fair["commitment"])
        summary = message["table"]["fairness"]
        view = message["view"]
        if view is not None and view["winner"] is None:
            h = view["hand_index"]
            assert summary == {
                "hand": h,
                "scheme": "truco-fair/1",
                "commitment": record["hands"][h]["fairness"]["commitment"],
            }
            commitments.setdefault(h, summary["commitment"])
            if view["hand"]:  # a seat sees its cards only with the hand's commitment known
                assert commitments[h] == record["hands"][h]["fairness"]["commitment"]
        over_seen = over_seen or over_here
    assert over_seen
    revealed = {e["hand"] for e in client.events if e["kind"] == "deck_revealed"}
    assert revealed == set(range(len(record["hands"])))
    for h, published in commitments.items():
        assert published == record["hands"][h]["fairness"]["commitment"]


def test_a_whole_match_verifies_and_no_deck_goes_out_before_the_end(tmp_path: Path) -> None:
    with LiveServer(config(f"sqlite:///{tmp_path / 'truco.sqlite3'}")) as server:
        tokens = [guest_token(server.url, name) for name in ("Ana", "Beto")]
        table = create_table(server.url, tokens[0], rules={"players": 4, "target": 15})
        clients = []
        for seat, token in enumerate(tokens):
            client = TableClient(server.ws_url, table["id"], token)
            client.wait_state()
            client.send({"type": "sit", "seat": seat})
            client.wait_state(lambda m, s=seat: m["you"]["seat"] == s)
            clients.append(client)
        clients[0].send({"type": "add_bot", "seat": 2, "level": "random"})
        clients[0].send({"type": "add_bot", "seat": 3, "level": "random"})
        spectator = TableClient(server.ws_url, table["id"])
        for client in clients:
            client.until(lambda m: m["table"]["status"] == "playing")
        play_out([*clients, spectator], choose(random.Random(11)))
        for client in [*clients, spectator]:
            client.until(lambda m: any(e["kind"] == "deck_revealed" for e in m["events"]))
        record = finished_record(server, table["id"])
        checks = verify_record(json.dumps(record))
        assert [c.status for c in checks] == ["ok"] * len(record["hands"])
        assert exit_status(checks) == 0
        assert_tampering_fails(record)
        for client in [*clients, spectator]:
            check_commit_then_reveal(client, record)
            client.close()


def assert_tampering_fails(record: dict[str, Any]) -> None:
    """The real record carries the match key and its result; copies with the last hand
    removed, the last action cut or the result edited do not verify (exit 1)."""
    assert set(record["fairness"]) == {"scheme", "key", "first_hand"}
    assert record["headers"]["result"].startswith("team ")
    without_last = copy.deepcopy(record)
    del without_last["hands"][-1]
    cut_short = copy.deepcopy(record)
    del cut_short["hands"][-1]["actions"][-1]
    edited = copy.deepcopy(record)
    edited["headers"]["result"] = (
        "team 1 wins 0-1" if record["headers"]["result"].startswith("team 0") else "team 0 wins 1-0"
    )
    for tampered in (without_last, cut_short, edited):
        checks = verify_record(json.dumps(tampered))
        assert exit_status(checks) == 1, checks
        assert [c.status for c in checks].count("mismatch") == 1, checks


def test_a_restart_in_the_middle_of_a_hand_honours_its_commitment(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'truco.sqlite3'}"
    rng = random.Random(4)
    with LiveServer(config(db_url)) as server:
        token = guest_token(server.url, "Ana")
        table = create_table(
            server.url, token, rules={"players": 2, "target": 30}, seat=0, bots={"1": "random"}
        )
        client = TableClient(server.ws_url, table["id"], token)
        # act until a card is on the table and it is this seat's turn again: the restart
        # comes in the middle of a hand
        for _ in range(50):
            before = client.until(
                lambda m: (
                    m["view"] is not None
                    and (bool(m["view"]["legal"]) or m["view"]["winner"] is not None)
                )
            )
            if before["view"]["played"] or before["view"]["winner"] is not None:
                break
            legal = before["view"]["legal"]
            plays = [a for a in legal if a.startswith("play ")]
            # refuse every call (a falta envido accepted could end the match at once)
            client.act_and_wait(plays[0] if plays else "no-quiero")
        client.close()
    assert before["view"]["winner"] is None and before["view"]["played"]
    hand = before["view"]["hand_index"]
    published = before["table"]["fairness"]
    assert published["hand"] == hand

    # stored: the open hand's commitment in the record, its secret only with the table
    store = Store(db_url)
    row = store.load(match_id=table["id"])[0]
    store.engine.dispose()
    stored = row.record["hands"][hand].get("fairness")  # (None when journaled after a checkpoint)
    assert stored is None or set(stored) == {"scheme", "commitment"}
    assert len(bytes.fromhex(row.table["fair_deals"]["key"])) == 32

    with LiveServer(config(db_url)) as server:
        client = TableClient(server.ws_url, table["id"], token)
        after = client.wait_state()
        assert after["table"]["fairness"] == published
        assert after["view"]["hand"] == before["view"]["hand"]
        play_out([client], lambda c, view: rng.choice(view["legal"]))
        client.until(lambda m: any(e["kind"] == "deck_revealed" for e in m["events"]))
        record = finished_record(server, table["id"])
        client.close()
    assert record["hands"][hand]["fairness"]["commitment"] == published["commitment"]
    checks = verify_record(json.dumps(record))
    assert [c.status for c in checks] == ["ok"] * len(record["hands"]), checks
    # the revealed deck of the hand across the restart gave the cards seen before it
    deck = record["hands"][hand]["fairness"]["deck"]
    assert before["view"]["dealt"] == deck[0:3]


def test_a_restored_match_goes_on_with_its_key_or_a_new_one_for_the_hands_to_come() -> None:
    dealer = CommittedDealer()
    game = Game(Rules(players=2), dealer=dealer)
    game.play(game.actors()[0], "mazo")  # hand 1 in progress
    stored = {"key": dealer.key.hex(), "first_hand": 0}
    again = resumed_dealer(stored, game, "t")
    assert again.key == dealer.key and again.sealed(1) == dealer.sealed(1)
    # stored before fair deals, or a key that does not give the hand in progress: a new key
    # for the hands still to come, none for those already dealt
    for data in (None, {}, {"key": "zz", "first_hand": 0}, {"key": "00" * 32, "first_hand": 0}):
        fresh = resumed_dealer(data, game, "t")
        assert fresh.key != dealer.key and fresh.first_hand == 2
        assert fresh.sealed(1) is None and fresh.sealed(2) is not None
