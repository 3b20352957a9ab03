"""The WebSocket protocol: client messages (validated with pydantic) and the JSON the
server sends. ``docs/protocol.md`` describes it for other clients (the terminal game).

Cards travel in the record notation (``"1e"``) and actions as record tokens
(``"play 1e"``, ``"real-envido"``): the notation of RECORD.md is the wire format too.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..actions import action_token
from ..cards import card_name
from ..view import PublicHand, SeatView


class ProtocolError(ValueError):
    """A client message that cannot be understood; ``code`` is a stable short name."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    action: str = Field(max_length=40)


class Back(_Message):
    """I am here again: take my seat back from the bot that covered it."""

    type: Literal["back"]


class Sync(_Message):
    """Send me what happened after version ``since`` (or the full state)."""

    type: Literal["sync"]
    since: int = Field(ge=0)


class Ping(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    Sit | Stand | AddBot | RemoveBot | Act | Back | Sync | Ping,
    Field(discriminator="type"),
]
_CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = ("sit", "stand", "add_bot", "remove_bot", "act", "back", "sync", "ping")


def parse_client_message(text: str) -> ClientMessage:
    """Parse one client frame; raise :class:`ProtocolError` with a one-line reason."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object")
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r} (one of {', '.join(MESSAGE_TYPES)})",
        )
    try:
        return _CLIENT_MESSAGE.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or kind
        raise ProtocolError("bad_message", f"{kind}: {where}: {first['msg']}") from None


# ---------------------------------------------------------------- server -> client
def error_message(code: str, reason: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "reason": reason}


def _cards(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [card_name(c) for c in cards]


def _plays(plays: tuple[tuple[int, int], ...]) -> list[list[Any]]:
    return [[seat, card_name(card)] for seat, card in plays]


def _notes(notes: tuple[tuple[int, str, tuple[int, ...]], ...]) -> list[list[Any]]:
    return [[after, kind, list(data)] for after, kind, data in notes]


def public_hand_json(hand: PublicHand) -> dict[str, Any]:
    """A closed hand as everyone may see it (the cards revealed at its close)."""
    return {
        "index": hand.index,
        "mano": hand.mano,
        "why": [list(w) for w in hand.why],
        "points": list(hand.points),
        "score": list(hand.score),
        "chicos": list(hand.chicos),
        "played": _plays(hand.played),
        "revealed": [[seat, _cards(cards)] for seat, cards in hand.revealed],
        "showdowns": [
            [{"seat": d.seat, "tanto": d.tanto} for d in showdown] for showdown in hand.showdowns
        ],
        "notes": _notes(hand.notes),
    }


def view_json(view: SeatView) -> dict[str, Any]:
    """A :class:`~truco.view.SeatView` as JSON: exactly what the seat may see."""
    pending = view.pending
    return {
        "seat": view.seat,
        "team": view.team,
        "hand_index": view.hand_index,
        "mano": view.mano,
        "dealer": view.dealer,
        "score": list(view.score),
        "chicos": list(view.chicos),
        "winner": view.winner,
        "hand": _cards(view.hand),
        "dealt": _cards(view.dealt),
        "played": _plays(view.played),
        "bazas": [_plays(baza) for baza in view.bazas],
        "baza_results": list(view.baza_results),
        "turn": view.turn,
        "actors": list(view.actors),
        "legal": [action_token(a) for a in view.legal],
        "pending": None
        if pending is None
        else {
            "kind": pending.kind,
            "team": pending.team,
            "level": pending.level,
            "chain": list(pending.chain),
        },
        "truco_level": view.truco_level,
        "truco_owner": view.truco_owner,
        "envido_open": view.envido_open,
        "showdowns": [[{"seat": d.seat, "tanto": d.tanto} for d in s] for s in view.showdowns],
        "flor_sung": list(view.flor_sung),
        "in_hand": list(view.in_hand),
        "pica_pica": view.pica_pica,
        "round_seats": list(view.round_seats),
        "log": [[seat, action_token(a)] for seat, a in view.log],
        "last_hand": None if view.last_hand is None else public_hand_json(view.last_hand),
        "notes": _notes(view.notes),
        "scored": [list(w) for w in view.scored],
    }
