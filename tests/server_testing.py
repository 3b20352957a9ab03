"""A live server on 127.0.0.1 in a background thread, for the tests.

``with LiveServer(ServerConfig(db_url="sqlite://")) as server:`` serves on ``server.url``.

Fair play (server/fair_play.py) holds by default in every test server: rated tables only
from the rated queues, no rated match between accounts of one address (every test client is
127.0.0.1), a few rated matches per pair a day, a few sign-ups per address a day, provisional
accounts off the leaderboard. A test about something else that needs rated tables made
directly, many accounts, or a leaderboard of new players opts out with
``ServerConfig(..., **OPEN_PLAY)``; the fair-play tests (tests/test_fair_play.py) keep the
rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

import uvicorn

from truco.actions import is_say, parse_action
from truco.server.config import ServerConfig
from truco.server.people.players import Player
from truco.server.web.app import create_app
from truco.server.web.serving import uvicorn_options
from truco.view import apply_patch

#: the fair-play rules lifted (see the module's documentation): for tests of other things
OPEN_PLAY: dict[str, Any] = {
    "rated_tables_open": True,
    "rated_pair_per_day": 0,
    "rated_same_address": True,
    "signups_per_address_day": 0,
    "leaderboard_min_games": 1,
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Server(uvicorn.Server):
    """uvicorn's server that ends the notice streams as its shutdown begins, as ``truco
    serve`` does (a page left open must not hold the test server's stop)."""

    def __init__(self, config: uvicorn.Config, on_shutdown: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_shutdown = on_shutdown

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_shutdown()
        await super().shutdown(sockets=sockets)


class LiveServer:
    """``with LiveServer(config) as server:`` serves on ``server.url`` until the block ends."""

    def __init__(self, config: ServerConfig, port: int | None = None, **options: Any) -> None:
        """``options``: uvicorn's, over those ``truco serve`` uses (``uvicorn_options``)."""
        self.config = config
        self.port = port or free_port()
        self.app = create_app(config)
        self._server = _Server(
            uvicorn.Config(
                **uvicorn_options(
                    self.app,
                    host="127.0.0.1",
                    port=self.port,
                    log_level="warning",
                    lifespan="on",
                    **options,
                )
            ),
            on_shutdown=self.app.state.server.notices.close,
        )
        self._thread = threading.Thread(
            target=self._server.run, name=f"truco-server-{self.port}", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(30)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class TableClient:
    """A blocking WebSocket client of one table (tests, scripts): keeps the last
    state (each ``patch`` applied to it, and returned as the state it makes), every frame
    received, and the errors."""

    def __init__(
        self,
        ws_url: str,
        table_id: str,
        token: str | None = None,
        since: int | None = None,
    ) -> None:
        import json

        from websockets.sync.client import connect

        self._json = json
        self.token = token
        self.table_id = table_id
        self.ws = connect(f"{ws_url}/ws/{table_id}", open_timeout=10, max_size=None, legacy=True)
        self.sent: list[dict[str, Any] | str] = []
        # who we are goes in the first message, never in the URL
        self.send({"type": "hello", "token": token, "since": since})
        self.frames: list[str] = []
        self.state: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.version = 0
        self.gaps = 0  # patches that did not follow the state held (a sync was asked)

    def send(self, message: dict[str, Any] | str) -> None:
        self.sent.append(message)
        self.ws.send(message if isinstance(message, str) else self._json.dumps(message))

    def act(self, action: str) -> None:
        self.send({"type": "act", "action": action})

    def act_and_wait(self, action: str, timeout: float = 60.0) -> dict[str, Any]:
        """Act, then wait for the answer: an error or a newer state."""
        before = self.version
        self.act(action)
        return self.wait(
            lambda m: m["type"] == "error" or (m["type"] == "state" and m["v"] > before),
            timeout,
        )

    def recv(self, timeout: float = 60.0) -> dict[str, Any]:
        """The next frame (as JSON); remembers states, events and errors."""
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.frames.append(text)
        message: dict[str, Any] = self._json.loads(text)
        if message["type"] == "patch":
            if not self.state or message["base"] != self.version:  # a frame missed
                self.gaps += 1
                self.send({"type": "sync", "since": self.version})
                return message
            # what changed, applied to the state: returned as the state it makes
            message = {
                **apply_patch(self.state, message["set"]),
                "type": "state",
                "protocol": message["protocol"],
                "v": message["v"],
                "full": False,
                "events": message["events"],
            }
        if message["type"] == "state":
            self.state = message
            self.version = message["v"]
            self.events.extend(message["events"])
        elif message["type"] == "error":
            self.errors.append(message)
        return message

    def wait(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 60.0
    ) -> dict[str, Any]:
        """Read frames until ``predicate(message)`` holds; return that message."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the expected message did not come")
            message = self.recv(left)
            if predicate(message):
                return message

    def wait_state(
        self,
        predicate: Callable[[dict[str, Any]], bool] = lambda s: True,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        return self.wait(lambda m: m["type"] == "state" and predicate(m), timeout)

    def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 60.0
    ) -> dict[str, Any]:
        """The current state if ``predicate`` holds for it, else the next one for which it does."""
        if self.state and predicate(self.state):
            return self.state
        return self.wait_state(predicate, timeout)

    @property
    def view(self) -> dict[str, Any] | None:
        return self.state.get("view")

    def close(self) -> None:
        self.ws.close()


def as_states(texts: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Frames as a client holds them: each ``patch`` applied to the state before it and
    given as the ``state`` it makes (with the patch's events), beside the frame's text;
    other frames as they are."""
    held: dict[str, Any] = {}
    out: list[tuple[str, dict[str, Any]]] = []
    for text in texts:
        message: dict[str, Any] = json.loads(text)
        if message["type"] == "patch" and held.get("v") == message["base"]:
            patch = message
            message = {**apply_patch(held, patch["set"]), "v": patch["v"]}
            message |= {"type": "state", "full": False, "events": patch["events"]}
        if message["type"] == "state":
            held = message
        out.append((text, message))
    return out


def guest_token(base_url: str, name: str) -> str:
    """A guest token from the server's lobby API."""
    import httpx

    response = httpx.post(f"{base_url}/api/guest", json={"name": name}, timeout=10)
    response.raise_for_status()
    return str(response.json()["token"])


def create_table(base_url: str, token: str, **body: Any) -> dict[str, Any]:
    """Create a table (``rules``, ``seat``, ``bots``, ``turn_seconds``, ``name``)."""
    import httpx

    response = httpx.post(
        f"{base_url}/api/tables",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result


def drain(client: TableClient) -> None:
    """Read every frame already waiting."""
    while True:
        try:
            client.recv(timeout=0)
        except TimeoutError:
            return


#: How long :func:`play_out` waits for a lagging client to see the newest public action.
CATCH_UP_SECONDS = 1.0


def public_progress(client: TableClient) -> tuple[int, int]:
    """How far the match has gone as ``client`` sees it: the hand, and the actions of it
    every seat is told of (a team's megaphone words and a card committed early are told
    to some clients only, so the state's version is no measure)."""
    view = client.view
    if view is None:
        return (-1, -1)
    public = sum(1 for _, action in view["log"] if not is_say(parse_action(action)))
    return (view["hand_index"], public)


def play_out(
    clients: list[TableClient],
    choose: Callable[[TableClient, dict[str, Any]], str | None],
    max_steps: int = 5000,
    timeout: float = 180.0,
) -> None:
    """Let seated clients act with ``choose(client, view)`` (``None``: pass) until
    the match is over; a client acts once it has seen every public action any client has
    seen (or after :data:`CATCH_UP_SECONDS` without it).
    Frames sent to every client are kept in ``client.frames``."""
    deadline = time.monotonic() + timeout
    seen, seen_at = (-1, -1), 0.0
    for _ in range(max_steps):
        for client in clients:
            drain(client)
        if any(c.view and c.view["winner"] is not None for c in clients):
            return
        acted = False
        # A client on another node may not have the newest state yet: acting on its
        # stale view would be out of turn, so only clients that have caught up act (for
        # a moment: a client whose connection is lost would never catch up).
        newest = max(public_progress(c) for c in clients)
        if newest != seen:
            seen, seen_at = newest, time.monotonic()
        patient = time.monotonic() - seen_at < CATCH_UP_SECONDS
        for client in clients:
            view = client.view
            if patient and public_progress(client) < newest:
                continue
            if view and view["seat"] is not None and view["legal"]:
                action = choose(client, view)
                if action is not None:
                    client.act_and_wait(action)
                    acted = True
                    break
        if not acted:
            with contextlib.suppress(TimeoutError):
                clients[0].recv(timeout=0.05)
        if time.monotonic() > deadline:
            raise TimeoutError("the match did not end in time")
    raise RuntimeError("the match did not end within max_steps")


class Proxy:
    """A connection held elsewhere (another node), or a test's own: only the three members of
    :class:`~truco.server.table.Peer`; it keeps the frames it is sent and the pongs apart."""

    def __init__(self, player: Player | None) -> None:
        self._player = player
        self.frames: list[dict[str, Any]] = []
        self.pongs: asyncio.Queue[int] = asyncio.Queue()
        self.closed: str | None = None

    @property
    def player(self) -> Player | None:
        return self._player

    def send(self, frame: str) -> None:
        message = json.loads(frame)
        if message["type"] == "pong":
            self.pongs.put_nowait(message["v"])
        else:
            self.frames.append(message)

    def close(self, reason: str) -> None:
        self.closed = reason
