"""The WebSocket protocol: client messages (validated with pydantic) and the JSON the
server sends. ``docs/protocol.md`` describes it for other clients (the terminal game).

Cards travel in the record notation (``"1e"``) and actions as record tokens
(``"play 1e"``, ``"real-envido"``): the notation of docs/record-format.md is the wire format too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..actions import ActionError, action_token, parse_action
from ..view import PublicHand, SeatView
from .metrics import ERRORS
from .players import MAX_TOKEN


class ProtocolError(ValueError):
    """A client message that cannot be understood; ``code`` is a stable short name."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


#: the longest action token a client may send
ACTION_MAX = 40


class Sit(_Message):
    """Take an empty seat (before the match starts)."""

    type: Literal["sit"]
    seat: int = Field(ge=0, le=5)


class Stand(_Message):
    """Leave one's seat (before the match starts)."""

    type: Literal["stand"]


class AddBot(_Message):
    """Seat a bot (the table's creator, before the match starts)."""

    type: Literal["add_bot"]
    seat: int = Field(ge=0, le=5)
    level: str = Field(default="random", max_length=40)


class RemoveBot(_Message):
    type: Literal["remove_bot"]
    seat: int = Field(ge=0, le=5)


class Act(_Message):
    """An action in the record notation. A ``play`` before one's turn is committed
    and goes down when the turn comes."""

    type: Literal["act"]
    action: str = Field(max_length=ACTION_MAX)


class Back(_Message):
    """I am here again: take my seat back from the bot that covered it."""

    type: Literal["back"]


class Sync(_Message):
    """Send me what happened after version ``since`` (or the full state)."""

    type: Literal["sync"]
    since: int = Field(ge=0, le=2**53)


class Ping(_Message):
    type: Literal["ping"]


class Hello(_Message):
    """The first message of a connection without the page's cookie: who I am (no
    token: a spectator) and, on a reconnect, the last version I saw."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=MAX_TOKEN)
    since: int | None = Field(default=None, ge=0, le=2**53)


ClientMessage = Annotated[
    Sit | Stand | AddBot | RemoveBot | Act | Back | Sync | Ping | Hello,
    Field(discriminator="type"),
]
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = ("hello", "sit", "stand", "add_bot", "remove_bot", "act", "back", "sync", "ping")


def parse_client_message(text: str) -> ClientMessage:
    """Parse one client frame; raise :class:`ProtocolError` with a one-line reason."""
    try:
        data = orjson.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object")
    kind = data.get("type")
    if kind == "act" and len(data) == 2:  # the busiest message, checked by hand
        action = data.get("action")
        if type(action) is str and len(action) <= ACTION_MAX:
            known = _ACTS.get(action)
            if known is None:
                check_action_token(action)
                # only tokens as the notation writes them get here: a bounded set
                known = _ACTS[action] = Act.model_construct(type="act", action=action)
            return known
    if kind == "sit" and len(data) == 2:  # once per seat of every table: checked by hand
        seat = data.get("seat")
        if type(seat) is int and 0 <= seat <= 5:
            return _SITS[seat]
    if kind == "hello" and len(data) <= 3:  # the first message of every connection
        token, since = data.get("token"), data.get("since")
        if (
            len(data) == 1 + ("token" in data) + ("since" in data)
            and (token is None or (type(token) is str and len(token) <= MAX_TOKEN))
            and (since is None or (type(since) is int and 0 <= since <= 2**53))
        ):
            return Hello.model_construct(type="hello", token=token, since=since)
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r} (one of {', '.join(MESSAGE_TYPES)})",
        )
    try:
        message = _CLIENT_MESSAGE.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or kind
        raise ProtocolError("bad_message", f"{kind}: {where}: {first['msg']}") from None
    if isinstance(message, Act):
        check_action_token(message.action)
    return message


#: the ``act`` message of each action token met (messages are frozen: one serves all)
_ACTS: dict[str, Act] = {}
#: the ``sit`` message of each seat
_SITS = [Sit.model_construct(type="sit", seat=seat) for seat in range(6)]


def check_action_token(token: str) -> None:
    """An action exactly as the record notation writes it (``"mazo"``, ``"play 1e"``):
    no other spelling, spacing or case is taken for it."""
    try:
        canonical = action_token(parse_action(token))
    except ActionError as exc:
        raise ProtocolError("bad_action", str(exc)) from None
    if token != canonical:
        raise ProtocolError(
            "bad_action", f"write the action as the notation does: {canonical!r}, not {token!r}"
        )


def close_reason(text: str) -> str:
    """``text`` cut to what a WebSocket close frame holds (123 bytes of UTF-8)."""
    data = text.encode()
    if len(data) <= 120:
        return text
    return data[:117].decode(errors="ignore") + "..."


# ---------------------------------------------------------------- server -> client
def error_message(code: str, reason: str) -> dict[str, Any]:
    ERRORS.labels(code).inc()
    return {"type": "error", "code": code, "reason": reason}


def public_hand_json(hand: PublicHand) -> dict[str, Any]:
    """A closed hand as everyone may see it (the cards revealed at its close)."""
    return hand.to_json()


def view_json(view: SeatView) -> dict[str, Any]:
    """A :class:`~truco.view.SeatView` as JSON: exactly what the seat may see."""
    return view.to_json()
