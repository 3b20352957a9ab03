"""The WebSocket protocol: client messages (validated with pydantic) and the JSON the
server sends. ``docs/protocol.md`` describes it for other clients (the terminal game).

Cards travel in the record notation (``"1e"``) and actions as record tokens
(``"play 1e"``, ``"real-envido"``): the notation of docs/record-format.md is the wire format too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError

from ..actions import ActionError, action_token, parse_action
from ..refusals import Param, Refusal
from ..view import PROTOCOL_VERSION
from .metrics import ERRORS
from .people.players import MAX_TOKEN


class ProtocolError(ValueError):
    """A client message that cannot be understood: ``refusal`` says why (its ``code``,
    ``params``, and ``reason`` the English sentence)."""

    def __init__(self, code: str, **params: Param) -> None:
        refusal = Refusal.of(code, **params)
        super().__init__(refusal.reason)
        self.refusal = refusal
        self.code = code
        self.reason = refusal.reason


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


#: the longest action token a client may send
ACTION_MAX = 40
#: the pydantic error type of an action not written as the notation writes it
BAD_ACTION = "bad_action"

#: the action tokens met that are written as the notation writes them (a bounded set)
_CANONICAL: set[str] = set()


def check_action_token(token: str) -> str:
    """An action exactly as the record notation writes it (``"mazo"``, ``"play 1e"``):
    no other spelling, spacing or case is taken for it (the models' validator of
    ``action``)."""
    if token in _CANONICAL:
        return token
    try:
        canonical = action_token(parse_action(token))
    except ActionError:
        canonical = None
    if token != canonical:
        raise PydanticCustomError(
            BAD_ACTION, "not an action of the record notation", {"given": repr(token)[:50]}
        )
    _CANONICAL.add(token)
    return token


#: an action token as a client sends it: at most :data:`ACTION_MAX` characters, canonical
ActionToken = Annotated[str, Field(max_length=ACTION_MAX), AfterValidator(check_action_token)]


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
    and goes down when the turn comes. ``v``, when given, is the version the action was
    chosen at: if the table is at another one, it is refused (``stale``), so that the
    same action sent twice is taken once."""

    type: Literal["act"]
    action: ActionToken
    v: int | None = Field(default=None, ge=0, le=2**53)


class Why(_Message):
    """Why may I not take ``action`` now? Answered with a ``why`` frame; nothing changes
    (a client explains a key pressed for an action that is not legal)."""

    type: Literal["why"]
    action: ActionToken


class Back(_Message):
    """I am here again: take my seat back from the bot that covered it."""

    type: Literal["back"]


class Rematch(_Message):
    """After the match: ``accept`` (or refuse) a new table with the same rules and seats.
    It is made once every person seated accepted; a refusal, or a seated person leaving,
    ends the offer."""

    type: Literal["rematch"]
    accept: bool


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
    Sit | Stand | AddBot | RemoveBot | Act | Why | Back | Rematch | Sync | Ping | Hello,
    Field(discriminator="type"),
]
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
#: the ``type`` of every client message
MESSAGE_TYPES = (
    "hello", "sit", "stand", "add_bot", "remove_bot", "act", "why", "back", "rematch", "sync",
    "ping",
)  # fmt: skip


def parse_client_message(text: str) -> ClientMessage:
    """Parse one client frame with the models above (pydantic reads the JSON too); raise
    :class:`ProtocolError` with the refusal of the first thing they refuse."""
    try:
        return _CLIENT_MESSAGE.validate_json(text)
    except ValidationError as exc:
        raise _refusal(exc) from None


def _refusal(exc: ValidationError) -> ProtocolError:
    """What a client is told of the models' first objection."""
    first = exc.errors(include_url=False, include_input=False)[0]
    kind, loc, context = first["type"], first["loc"], first.get("ctx") or {}
    if kind == "json_invalid":
        return ProtocolError("bad_json")
    if not loc and kind in ("dict_type", "model_type"):
        return ProtocolError("not_an_object")
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return ProtocolError("unknown_type", type=repr(context.get("tag"))[:40])
    if kind == BAD_ACTION:
        return ProtocolError("bad_action", given=str(context.get("given", ""))[:50])
    where = ".".join(str(p) for p in loc[1:]) or str(loc[0] if loc else "")
    return ProtocolError("bad_message", type=str(loc[0]) if loc else "", field=where[:40])


def close_reason(text: str) -> str:
    """``text`` cut to what a WebSocket close frame holds (123 bytes of UTF-8)."""
    data = text.encode()
    if len(data) <= 120:
        return text
    return data[:117].decode(errors="ignore") + "..."


# ---------------------------------------------------------------- server -> client
#: every frame the server sends says the protocol's version (``"protocol"``)
PROTOCOL = PROTOCOL_VERSION


def error_message(refusal: Refusal) -> dict[str, Any]:
    """A refusal as the ``error`` frame: ``{"type": "error", "code", "params", "reason"}``."""
    ERRORS.labels(refusal.code).inc()
    return {"type": "error", "protocol": PROTOCOL, **refusal.to_json()}


def why_message(action: str, refusal: Refusal | None) -> dict[str, Any]:
    """The answer to a ``why`` message: ``legal``, and the refusal's fields when not."""
    if refusal is None:
        return {"type": "why", "protocol": PROTOCOL, "action": action, "legal": True}
    why = {"type": "why", "protocol": PROTOCOL, "action": action, "legal": False}
    return why | refusal.to_json()


def pong_message(version: int) -> dict[str, Any]:
    """The answer to a ``ping``: the table's version."""
    return {"type": "pong", "protocol": PROTOCOL, "v": version}
