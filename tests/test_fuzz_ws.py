"""Fuzz the WebSocket protocol with hypothesis: junk frames from seated players and a
spectator get error frames and change nothing (same version, same view, the socket
open), and junk first messages end in a close frame with a code and a reason, never
in a dropped socket.

The examples are few (CI's time is bounded); ``TRUCO_FUZZ_EXAMPLES`` raises them."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_testing import LiveServer, TableClient, create_table, drain, guest_token
from truco.server import ServerConfig
from truco.server.protocol import MESSAGE_TYPES, Hello, ProtocolError, Sit, parse_client_message

EXAMPLES = int(os.environ.get("TRUCO_FUZZ_EXAMPLES", "25"))

# ------------------------------------------------------------------ junk
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | text
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
near_tokens = st.sampled_from(
    ["mazo", "truco", "envido", "real-envido", "quiero", "play 1e", "say voy", "flor"]
).flatmap(
    lambda token: st.sampled_from(
        [token.upper(), f"  {token}  ", token.replace(" ", "  "), token + "\n", token.title()]
    )
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from([*MESSAGE_TYPES, "Act", "", "act "])},
    optional={
        "action": near_tokens | text | json_values,
        "seat": st.integers() | text | st.floats(),
        "since": st.integers() | st.floats() | text,
        "level": text,
        "token": text | json_values,
        "extra": json_values,
    },
)
# actions written almost as the notation does: the actor's legal ones among them
near_acts = st.builds(lambda a: json.dumps({"type": "act", "action": a}), near_tokens)
frames = (
    near_acts
    | messages.map(json.dumps)
    | json_values.map(json.dumps)
    | text
    | st.binary(max_size=40)
    | st.builds(lambda n: json.dumps({"type": "ping", "pad": "x" * n}), st.integers(4096, 6000))
)


def harmless(frame: str | bytes, client: TableClient) -> bool:
    """Not a valid move for this client: junk must change nothing."""
    if isinstance(frame, bytes):
        return True
    try:
        message = parse_client_message(frame)
    except ProtocolError:
        return True
    action = getattr(message, "action", None)
    view = client.view or {}
    if action is None:
        return True  # sit, stand, bots during play are refused; back, sync change nothing
    card = action.removeprefix("play ")
    return action not in view.get("legal", []) and card not in view.get("hand", [])


# ------------------------------------------------------------------ the table
@pytest.fixture(scope="module")
def live() -> Any:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        disconnect_grace=3600,
        rate_per_second=100000,
        rate_burst=100000,
        http_rate="100000/minute",
        http_write_rate="100000/minute",
        hello_seconds=1.0,
    )
    with LiveServer(config) as server:
        yield server


@pytest.fixture(scope="module")
def table(live: LiveServer) -> Any:
    tokens = [guest_token(live.url, name) for name in ("Ana", "Beto")]
    made = create_table(live.url, tokens[0], rules={"players": 2}, seat=0)
    clients = [TableClient(live.ws_url, made["id"], token) for token in tokens]
    clients[0].wait_state()
    clients[1].wait_state()
    clients[1].send({"type": "sit", "seat": 1})
    for client in clients:
        client.until(lambda m: m["table"]["status"] == "playing")
    spectator = TableClient(live.ws_url, made["id"])
    spectator.wait_state()
    yield made["id"], [*clients, spectator]
    for client in [*clients, spectator]:
        client.close()


def test_junk_from_players_and_spectators_changes_nothing(table: Any) -> None:
    _table_id, clients = table
    for client in clients:
        drain(client)
    version = clients[0].version
    views = [client.view for client in clients]

    actor = next(i for i, c in enumerate(clients) if c.view and c.view["seat"] in c.view["actors"])
    others = [i for i in range(len(clients)) if i != actor]

    @given(frame=frames, who=st.sampled_from([actor, actor, *others]))
    @settings(
        max_examples=EXAMPLES * 8,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def junk(frame: str | bytes, who: int) -> None:
        client = clients[who]
        if not harmless(frame, client):
            return
        client.ws.send(frame)
        client.send({"type": "ping"})
        while True:  # until our pong: only errors, or (a sync) the same version again
            message = client.recv(timeout=10)
            if message["type"] == "pong":
                assert message["v"] == version
                return
            if message["type"] == "state":
                assert message["v"] == version
            else:
                assert message["type"] == "error" and message["reason"], message

    junk()
    for client, view in zip(clients, views, strict=True):
        client.send({"type": "sync", "since": 0})
        state = client.wait_state()
        assert state["v"] == version and state["view"] == view  # the table as it was


@given(first=frames)
@settings(
    max_examples=EXAMPLES * 2,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_a_bad_first_message_closes_with_a_code_and_a_reason(
    live: LiveServer, table: Any, first: str | bytes
) -> None:
    table_id, _ = table
    with connect(f"{live.ws_url}/ws/{table_id}", open_timeout=10) as ws:
        ws.send(first)
        try:
            while True:
                frame = json.loads(ws.recv(timeout=10))
                assert frame["type"] in ("state", "error")  # a hello after all: joined
                if frame["type"] == "state":
                    return
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, "dropped without a close frame"
            assert closed.rcvd.code in (4400, 4401, 4408) and closed.rcvd.reason


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "sit", "seat": true}',
        '{"type": "sit", "seat": 1.0}',
        '{"type": "sit", "seat": "1"}',
        '{"type": "sync", "since": "3"}',
        '{"type": "hello", "since": true}',
    ],
)
def test_numbers_are_taken_only_as_json_numbers(frame: str) -> None:
    """Messages are strict: `true`, `1.0` or `"1"` were quietly read as seat 1 or version 3."""
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(frame)
    assert caught.value.code == "bad_message"


def test_plain_json_numbers_still_parse() -> None:
    assert parse_client_message('{"type": "sit", "seat": 1}') == Sit(type="sit", seat=1)
    assert parse_client_message('{"type": "hello", "since": 3}') == Hello(type="hello", since=3)
