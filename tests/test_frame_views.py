"""The table's wire codec: a ``state`` frame on join and resync, then one ``patch`` per
round per audience. Over random matches of every table size, a client that applies each
patch to what it holds has, after every frame, exactly the state a fresh ``state`` frame
would give it (its seat's view as ``SeatView.to_json`` encodes it, the summary, who it
is); a client that misses a frame sees it by the patch's base and gets the whole state
again; every frame says the protocol's version."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from strategies import TABLES, new_match, play_out, seeds, table_id
from truco.actions import action_token, is_say
from truco.game import Game
from truco.rules import Rules
from truco.server.people.players import Player
from truco.server.table.events import EVERYONE, EventLog
from truco.server.table.fanout import Fanout, Round
from truco.view import PROTOCOL_VERSION, apply_patch, seat_view


class Seen:
    """A connection of a test: its player and what it holds (the state, patches applied)."""

    def __init__(self, player: Player | None, seat: int | None, lossy: bool = False) -> None:
        self.player = player
        self.seat = seat
        self.lossy = lossy  # misses every third frame
        self.state: dict[str, Any] = {}
        self.since: int | None = None
        self.got = 0

    def send(self, frame: str) -> None:  # pragma: no cover - the Peer protocol's
        raise AssertionError("not used")

    def close(self, reason: str) -> None:  # pragma: no cover
        raise AssertionError("not used")


@pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_patches_applied_reproduce_the_full_state(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    log = EventLog(1000)
    fanout = Fanout()
    peers = [Seen(Player(f"p{s}", f"p{s}"), s) for s in range(game.players)]
    peers += [Seen(None, None), Seen(Player("w", "w"), None), Seen(Player("l", "l"), 0, True)]
    kinds: dict[str, int] = {"state": 0, "patch": 0, "skipped": 0, "resync": 0}

    def before(game: Game, seat: int, action: int) -> None:
        audience: Any = ("team", seat & 1) if is_say(action) else EVERYONE
        log.emit({"kind": "action", "seat": seat, "action": action_token(action)}, audience)

    def receive(peer: Seen, text: str, round: Round) -> None:
        frame = orjson.loads(text)
        assert frame["protocol"] == PROTOCOL_VERSION and frame["v"] == round.version
        kinds[frame["type"]] += 1
        if frame["type"] == "patch":
            if frame["base"] != peer.state["v"]:  # a frame was missed: ask for the whole
                kinds["resync"] += 1
                again = round.frame(peer, peer.seat, peer.state["v"], answer=True)
                assert again is not None
                receive(peer, again, round)
                return
            frame = {**apply_patch(peer.state, frame["set"]), "v": frame["v"]}
        peer.state = frame
        # exactly what a fresh state frame holds
        view = seat_view(game, peer.seat).to_json()
        assert peer.state["view"] == view
        assert peer.state["table"] == {"id": "t", "version": round.version}
        assert peer.state["you"]["seat"] == peer.seat
        name = None if peer.player is None else peer.player.name
        assert (peer.state["you"]["player"] or {}).get("name") == name

    def check(game: Game) -> None:
        round = Round(fanout, log, {"id": "t", "version": log.version}, game, {}, lambda: None)
        for peer in peers:
            text = round.frame(peer, peer.seat, peer.since, answer=peer.since is None)
            peer.since = round.version
            if text is None:
                kinds["skipped"] += 1  # nothing it may see happened (the rivals' words)
                continue
            peer.got += 1
            if peer.lossy and peer.got % 3 == 0 and peer.state:
                continue
            receive(peer, text, round)

    play_out(game, policy, on_step=check, before=before)
    assert kinds["patch"] > kinds["state"] and kinds["resync"] > 0


def test_a_new_seat_gets_the_whole_state() -> None:
    """A connection that sits down is in another audience: the whole state, not a patch."""
    from strategies import new_match as match

    game, _ = match(Rules(players=2), 1)
    log = EventLog(100)
    fanout = Fanout()
    peer = Seen(Player("a", "a"), None)
    log.emit({"kind": "x"})
    first = Round(fanout, log, {"id": "t"}, game, {}, lambda: None)
    assert orjson.loads(first.frame(peer, None, None) or "")["type"] == "state"
    log.emit({"kind": "seated", "seat": 0})
    second = Round(fanout, log, {"id": "t"}, game, {}, lambda: None)
    frame = orjson.loads(second.frame(peer, 0, first.version) or "")
    assert frame["type"] == "state" and frame["full"] is False
    assert frame["view"] == seat_view(game, 0).to_json()
