"""The terminal game on a Truco Argento server: the same screen, the server's table.

The server runs the engine, the clock and the bots; this client gets a guest token,
creates a table (or joins one), and then only reads the ``state`` frames of the table's
WebSocket (its seat's view, the table's seats) and the ``patch`` frames that change them
(docs/protocol.md), and sends ``act`` frames with record tokens. Every refusal comes back
from the server as an ``error`` frame and is shown.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..actions import action_token
from ..cards import card_name, parse_card
from ..game import Game
from ..locale import _
from ..refusals import Refusal
from ..rules import Rules, RulesError
from ..view import SeatView, apply_patch, seat_view
from .reasons import frame_text
from .session import SessionDefaults, SessionError, bot_level, bot_specs, team_names

#: Seconds the client waits for the server's HTTP answers and the WebSocket handshake.
TIMEOUT = 10.0
#: Seconds between attempts to open a dropped connection again.
RECONNECT_WAITS = (1.0, 2.0, 4.0, 8.0)
#: Seconds between looks at a team challenge that waits for the others' yes.
CHALLENGE_POLL = 1.0


class RemoteError(ValueError):
    """The server cannot be reached, or refused to seat us: one line for the person."""


def split_url(url: str) -> tuple[str, str | None]:
    """``(http base URL, table id or None)`` from what a person may paste: the server's
    address, a table's page (``/t/ID``) or its socket (``ws://.../ws/ID``)."""
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise RemoteError(
            _("not a server address: {url} (try http://host:port)").format(url=repr(url))
        )
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    words = [w for w in parts.path.split("/") if w]
    table = words[1] if len(words) >= 2 and words[0] in ("t", "ws") else None
    return urlunsplit((scheme, parts.netloc, "", "", "")), table


def challenge_of(url: str) -> str | None:
    """The challenge of a challenge link (``/desafio/ID``), or ``None``."""
    words = [w for w in urlsplit(url if "://" in url else "http://" + url).path.split("/") if w]
    return words[1] if len(words) >= 2 and words[0] == "desafio" else None


def view_from_json(data: Mapping[str, Any], rules: Rules | None = None) -> SeatView:
    """The :class:`~truco.view.SeatView` a server sent as JSON (``SeatView.to_json``)."""
    return SeatView.from_json(data)


class RemoteSession(SessionDefaults):
    """A seat at a server's table (a :class:`~truco.tui.session.TableSession`)."""

    mode = "remote"

    def __init__(
        self, base: str, table_id: str, token: str, table: Mapping[str, Any], seat: int | None
    ) -> None:
        self.base = base
        self.table_id = table_id
        self.token = token
        self.wanted_seat = seat
        self.table: dict[str, Any] = dict(table)
        self.rules = Rules.from_dict(self.table["rules"])
        self.seat: int | None = None
        self.committed: int | None = None
        self.version = 0
        self._acted_on: int | None = None  # the state version the last action was sent on
        self._view_data: dict[str, Any] | None = None
        self._state: dict[str, Any] | None = None  # the last state, patches applied
        self._sending: set[asyncio.Task[None]] = set()  # frames on their way out
        self._notices: list[str] = []
        self._socket: Any = None
        self._closing = False
        self._clock_seen = time.monotonic()  # when the table's clock was last reported

    # ------------------------------------------------------------------ joining
    @classmethod
    def connect(
        cls,
        url: str,
        *,
        name: str = "player",
        table: str | None = None,
        rules: Rules | None = None,
        bots: Sequence[str] = (),
        seat: int = 0,
        password: str | None = None,
        waiting: Callable[[], None] | None = None,
    ) -> RemoteSession:
        """Get a guest token (with ``password``: log in to the account ``name``); create
        a table with ``rules`` and ``bots`` in the other seats (and sit at ``seat``), or
        join the table ``table`` (from the URL too), or accept the challenge of a
        challenge link (``/desafio/ID``: an open one, or one sent to this account) and
        sit at its table; a team challenge's table is made at the last yes, and
        ``waiting`` is called once while the others have not said it."""
        import httpx

        base, from_url = split_url(url)
        table = table or from_url
        challenge = challenge_of(url)
        try:
            with httpx.Client(base_url=base, timeout=TIMEOUT) as http:
                if password is None:
                    token = _json(http.post("/api/guest", json={"name": name}))["token"]
                else:
                    login = {"name": name, "password": password}
                    token = _json(http.post("/api/login", json=login))["token"]
                if challenge is not None:
                    table = _challenge_table(http, challenge, token, waiting)
                    summary = _json(http.get(f"/api/tables/{table}"))
                    ours = 1  # an open link: the challenger sits first
                    if password is not None:  # an account's name is its own at a table
                        names = [s["name"] for s in summary["seats"]]
                        ours = names.index(name) if name in names else ours
                    return cls(base, table, token, summary, ours)
                if table is None:
                    rules = rules or Rules()
                    if not 0 <= seat < rules.players:
                        raise RemoteError(
                            _("there is no seat {seat} at a {players}-player table").format(
                                seat=seat, players=rules.players
                            )
                        )
                    try:
                        specs = bot_specs(rules.players, seat, bots)
                    except SessionError as exc:
                        raise RemoteError(str(exc)) from None
                    body = {
                        "rules": rules.to_dict(),
                        "seat": seat,
                        "bots": specs,
                        "name": _("{name}'s table").format(name=name),
                    }
                    summary = _json(
                        http.post(
                            "/api/tables", json=body, headers={"Authorization": f"Bearer {token}"}
                        )
                    )
                    return cls(base, summary["id"], token, summary, seat)
                summary = _json(http.get(f"/api/tables/{table}"))
                return cls(base, table, token, summary, seat)
        except httpx.HTTPError as exc:
            raise RemoteError(
                _("cannot reach the server at {url}: {error}").format(url=base, error=exc)
            ) from None
        except (RulesError, KeyError, TypeError) as exc:
            raise RemoteError(
                _("the server at {url} answered something unexpected: {error}").format(
                    url=base, error=exc
                )
            ) from None

    @property
    def socket_url(self) -> str:
        ws = "wss" + self.base[5:] if self.base.startswith("https") else "ws" + self.base[4:]
        return f"{ws}/ws/{self.table_id}"

    def hello(self) -> str:
        """The first message on a connection: the token (never in the URL) and, on a
        reconnect, the last version seen."""
        return json.dumps({"type": "hello", "token": self.token, "since": self.version or None})

    # ------------------------------------------------------------------ the socket
    async def listen(self, changed: Callable[[], None]) -> None:
        """Read the table's frames until we close; call ``changed`` after each. A dropped
        connection is opened again (asking for the events since the last version seen)."""
        attempt = 0
        while not self._closing:
            reason, permanent, got_frames = await self._read(changed)
            if self._closing:
                return
            attempt = 0 if got_frames else attempt + 1
            if permanent or attempt > len(RECONNECT_WAITS):
                self._notices.append(
                    _("{reason}. Disconnected from the server.").format(reason=reason)
                )
                changed()
                return
            wait = RECONNECT_WAITS[max(attempt - 1, 0)]
            self._notices.append(
                _("{reason}; connecting again in {seconds} s…").format(
                    reason=reason, seconds=f"{wait:g}"
                )
            )
            changed()
            await asyncio.sleep(wait)

    async def _read(self, changed: Callable[[], None]) -> tuple[str, bool, bool]:
        """One connection: ``(why it ended, whether retrying is pointless, any frames)``."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        got_frames = False
        try:
            async with connect(self.socket_url, open_timeout=TIMEOUT, max_size=None) as socket:
                await socket.send(self.hello())
                self._socket = socket
                async for frame in socket:
                    got_frames = True
                    self._receive(json.loads(frame))
                    changed()
            return _("The server closed the connection"), False, got_frames
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else 1006
            reason = exc.rcvd.reason if exc.rcvd and exc.rcvd.reason else _("connection lost")
            return (
                _("The server closed the connection: {reason}").format(reason=reason),
                code in (1008, 4400, 4401, 4404, 4410),
                got_frames,
            )
        except (TimeoutError, OSError, InvalidHandshake) as exc:
            return _("Cannot connect to the table: {error}").format(error=exc), False, got_frames
        finally:
            self._socket = None

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "error":
            self._acted_on = None
            reason = frame_text(message, self.names)
            self._notices.append(_("Server: {reason}").format(reason=reason))
        elif kind == "patch":
            if self._state is None or message["base"] != self.version:
                # a frame was missed (or none came yet): the whole state again
                self._send({"type": "sync", "since": self.version})
                return
            state = apply_patch(self._state, message["set"])
            self._take({**state, "v": message["v"], "events": message["events"]})
        elif kind == "state":
            self._take(message)

    def _take(self, message: dict[str, Any]) -> None:
        """The table's state (a ``state`` frame, or a ``patch`` applied to the last)."""
        self._state = message
        self.version = message["v"]
        self.table = message.get("table") or self.table
        self._clock_seen = time.monotonic()
        you = message.get("you") or {}
        self.seat = you.get("seat")
        committed = you.get("committed")
        self.committed = None if committed is None else parse_card(committed)
        self._view_data = message.get("view")
        if self.seat is None and self.table.get("status") == "waiting":
            self._sit()

    def _sit(self) -> None:
        free = [s["seat"] for s in self.table.get("seats", []) if s["kind"] == "empty"]
        if not free:
            self._notices.append(_("The table is full: you are watching."))
            return
        seat = self.wanted_seat if self.wanted_seat in free else free[0]
        self._send({"type": "sit", "seat": seat})

    def _send(self, message: dict[str, Any]) -> bool:
        """Send ``message``; false (and a notice) when not connected."""
        if self._socket is None:
            self._notices.append(_("Not connected to the server."))
            return False
        sending = asyncio.get_running_loop().create_task(self._socket.send(json.dumps(message)))
        self._sending.add(sending)  # (kept until sent: the loop holds tasks weakly)
        sending.add_done_callback(self._sending.discard)
        return True

    def close(self) -> None:
        self._closing = True

    # ------------------------------------------------------------------ what the screen reads
    @property
    def names(self) -> tuple[str, ...]:
        """The seats as the server names them for every client ("Rosa"; its level is a note)."""
        seats = self.table.get("seats", [])
        names = []
        for s in range(self.rules.players):
            info = seats[s] if s < len(seats) else {}
            if s == self.seat:
                names.append(_("You"))
            elif info.get("kind", "empty") != "empty" and info.get("name"):
                names.append(str(info["name"]))
            else:
                names.append(_("Seat {seat}").format(seat=s + 1))
        return tuple(names)

    @property
    def seat_notes(self) -> tuple[str, ...]:
        """What the names do not say: a free seat, a bot's level, a person a bot covers."""
        seats = self.table.get("seats", [])
        notes = []
        for s in range(self.rules.players):
            info = seats[s] if s < len(seats) else {}
            if info.get("kind", "empty") == "empty":
                notes.append(_("free"))
            elif info.get("kind") == "bot":
                notes.append(bot_level(str(info.get("bot") or "")))
            else:
                notes.append(_("away: a bot covers") if info.get("away") else "")
        return tuple(notes)

    @property
    def team_names(self) -> tuple[str, str]:
        return team_names(self.seat)

    def caption(self) -> str:
        status = self.table.get("status", "")
        text = _("table {code}").format(code=self.table_id)
        if status == "waiting":
            seated = sum(1 for s in self.table.get("seats", []) if s["kind"] != "empty")
            text += " · " + _("waiting for players ({seated}/{players})").format(
                seated=seated, players=self.rules.players
            )
        if self.committed is not None:
            text += " · " + _("{card} goes down on your turn").format(
                card=card_name(self.committed)
            )
        clock = self.table.get("clock")
        if clock and self.seat in clock.get("actors", []):
            left = clock["remaining"] - (time.monotonic() - self._clock_seen)
            text += " · " + _("your clock: {seconds} s").format(seconds=max(0, round(left)))
        return text

    def view(self) -> SeatView:
        if self._view_data is None:  # the match has not started: an empty table
            return seat_view(Game(self.rules, manual_deal=True), self.seat)
        return view_from_json(self._view_data, self.rules)

    def open_hands(self) -> Mapping[int, tuple[int, ...]]:
        return {}

    def act(self, action: int) -> Refusal | None:
        """Send ``action``, once per state the server sent: a key pressed twice before the
        answer must not carry the action into the next hand (a second mazo would throw
        that hand away too). A refusal lets the person try again."""
        if self.seat is None:
            return Refusal.of("not_seated")
        if self._acted_on == self.version:
            return None
        if self._send({"type": "act", "action": action_token(action)}):
            self._acted_on = self.version
        return None

    def come_back(self) -> None:
        """Take the seat back from the bot that covered it."""
        self._send({"type": "back"})

    def away(self) -> bool:
        seats = self.table.get("seats", [])
        return (
            self.seat is not None and self.seat < len(seats) and bool(seats[self.seat].get("away"))
        )

    def pop_notice(self) -> str | None:
        return self._notices.pop(0) if self._notices else None

    def record(self) -> dict[str, Any] | None:
        if self.table.get("status") != "finished" and (self._view_data or {}).get("winner") is None:
            return None
        import httpx

        try:
            response = httpx.get(f"{self.base}/api/matches/{self.table_id}/record", timeout=TIMEOUT)
            record: dict[str, Any] = _json(response)
            return record
        except (httpx.HTTPError, RemoteError) as exc:
            self._notices.append(_("The server did not give the record: {error}").format(error=exc))
            return None


def _challenge_table(
    http: Any, challenge: str, token: str, waiting: Callable[[], None] | None
) -> str:
    """Accept ``challenge`` and return its table's code, once every invited player said
    yes (a team challenge); a challenge declined or expired meanwhile is a refusal."""
    headers = {"Authorization": f"Bearer {token}"}
    state = _json(http.post(f"/api/challenges/{challenge}/accept", headers=headers))
    told = False
    while state.get("table") is None:
        status = state.get("status")
        if status != "open":
            ended = {
                "declined": _("someone declined the challenge: no table was made"),
                "cancelled": _("the challenger cancelled the challenge: no table was made"),
                "expired": _("the challenge expired: no table was made"),
            }
            raise RemoteError(
                ended.get(str(status), _("the challenge is closed: no table was made"))
            )
        if not told and waiting is not None:
            waiting()
            told = True
        time.sleep(CHALLENGE_POLL)
        state = _json(http.get(f"/api/challenges/{challenge}", headers=headers))
    return str(state["table"])


def _json(response: Any) -> Any:
    """The JSON of a response; a refusal becomes a :class:`RemoteError` with the server's reason."""
    if response.status_code >= 400:
        try:
            detail = frame_text(response.json())  # the shared refusal shape
        except (ValueError, AttributeError):
            detail = response.text[:200]
        raise RemoteError(
            _("the server refused: {reason} (HTTP {status})").format(
                reason=detail, status=response.status_code
            )
        )
    return response.json()
