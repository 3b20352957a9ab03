"""The lobby API under ``/api``: guests and sessions, options, tables, history, replays.

Every body is a strict schema (unknown keys refused, numbers finite and in range,
strings bounded); every refusal is a 4xx with a one-line ``detail``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import fields
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    field_validator,
)

from ...record import RecordError, record_from_json, replay
from ...rules import FALTA_ENVIDO_VARIANTS, Rules, RulesError
from ..people import accounts, moderation
from ..people.accounts import AccountError
from ..people.players import Player, clean_name
from ..people.sessions import clear_session_cookie, set_session_cookie
from ..refusals import EVERY_ROUTE, HTTPRefusal, refusals
from ..storage.rows import MatchRow
from ..table.bot_pool import check_bot_spec, offered_bots
from ..table.durability import TableNotHosted, TableStopped
from .deps import MaybePlayerDep, NoSession, PlayerDep, Server, ServerDep, TableId
from .replays import replay_steps

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

RULE_KEYS = tuple(f.name for f in fields(Rules))
MAX_TURN_SECONDS = 600.0
SeatNumber = Annotated[int, Field(ge=0, le=5, strict=True)]
#: a seat as a key of a JSON object (whose keys are text: ``"1"``)
SeatKey = Annotated[int, Field(ge=0, le=5)]
BotSpec = Annotated[
    str, Field(max_length=40, strict=True, description="one of /api/options 'bots'")
]


def _printable(text: str) -> str:
    """Text without control or format characters (NUL, bidi overrides), spaces collapsed:
    PostgreSQL refuses NUL in text, and a table name is shown to every guest in the lobby."""
    return " ".join("".join(ch for ch in text if ch.isprintable()).split())


class _Body(BaseModel):
    """A request body: no unknown key, and every value of its field's own JSON type
    (``"rated": 0`` is not a boolean, ``"seat": "1"`` not a number)."""

    model_config = ConfigDict(extra="forbid")


class GuestRequest(_Body):
    name: StrictStr = Field(default="", max_length=100)


class CreateTableRequest(_Body):
    rules: dict[str, Any] = Field(
        default_factory=dict, max_length=len(RULE_KEYS), description="options of /api/options"
    )
    name: StrictStr = Field(default="", max_length=80)
    turn_seconds: float | None = Field(
        default=None,
        strict=True,
        ge=0,
        le=MAX_TURN_SECONDS,
        allow_inf_nan=False,
        description="0 (no clock), or from the server's minimum (/api/options) to 600",
    )
    bots: dict[SeatKey, BotSpec] = Field(default_factory=dict, max_length=6)
    seat: SeatNumber | None = None
    rated: StrictBool = Field(
        default=False, description="accounts only, no bots (see /api/leaderboard)"
    )

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(rules) - set(RULE_KEYS))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (one of {', '.join(RULE_KEYS)})")
        return rules

    @field_validator("bots")
    @classmethod
    def _offered_bots(cls, bots: dict[int, str]) -> dict[int, str]:
        for spec in bots.values():
            check_bot_spec(spec)
        return bots


def session_answer(response: Response, server: ServerDep, player: Player) -> dict[str, Any]:
    """Set ``player``'s session token as the cookie; the session as ``POST /api/guest``
    answers it."""
    token = server.sessions.token(player)
    lifetime = max(1.0, player.expires - time.time())
    set_session_cookie(response, token, lifetime, server.config.secure_cookies)
    return {
        "token": token,
        "id": player.id,
        "name": player.name,
        "expires": player.expires,
        "account": player.account,
    }


def client_summary(request: Request) -> tuple[str | None, str | None]:
    """What a new session records of where it was opened: User-Agent and address."""
    return request.headers.get("user-agent"), request.client.host if request.client else None


# ------------------------------------------------------------------ sessions
@router.post("/guest", responses=refusals(400, 403, 409))
async def guest(
    body: GuestRequest,
    request: Request,
    response: Response,
    server: ServerDep,
    known: MaybePlayerDep,
) -> dict[str, Any]:
    """A guest session (the cookie, and the token for other clients); with a live
    session already, the same session under a new name (an account renames itself with
    ``PATCH /api/me``)."""
    if known is not None and known.account:
        raise AccountError(
            409,
            "you are logged in to an account: rename it with PATCH /api/me, or log out",
            "logged_in_account",
        )
    name = clean_name(body.name)
    accounts.check_guest_name(name)
    owner = await asyncio.to_thread(accounts.look_alike, server.store.engine, name)
    if owner is not None:
        raise AccountError(
            409,
            f"name: {name!r} is (or looks like) an account's: log in, or choose another",
            "name_is_account",
            {"name": name, "other": owner.name},
        )
    if known is not None:
        await server.sessions.rename(known.id, name)
        player = Player(known.id, name, known.expires, False, known.session)
    else:
        agent, address = client_summary(request)
        if await moderation.address_barred(request.app.state.address_bans, address):
            raise AccountError(
                403, "new guests from your address are barred for now", "address_banned"
            )
        player = await server.sessions.open(name, agent=agent, address=address)
    return session_answer(response, server, player)


@router.post("/session/renew", responses=refusals(401, 403))
async def renew(response: Response, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """The same session with a new expiry (it must still be live; never past its
    maximum lifetime)."""
    renewed = await server.sessions.renew(player)
    if renewed is None:  # ended between the lookup and now
        raise NoSession()
    return session_answer(response, server, renewed)


@router.delete("/session", status_code=204, responses=refusals(403))
async def forget(response: Response, server: ServerDep, player: MaybePlayerDep) -> None:
    """End the session (every copy of its token) and forget the page's cookie."""
    if player is not None:
        await server.sessions.end(player.session)
    clear_session_cookie(response)


# ------------------------------------------------------------------ tables
@router.get("/options")
async def options(server: ServerDep) -> dict[str, Any]:
    return {
        "players": [2, 4, 6],
        "flor": [False, True],
        "target": [15, 30],
        "chicos": [1, 3],
        "falta_envido": FALTA_ENVIDO_VARIANTS,
        "con_flor_quiero": [False, True],
        "pica_pica": [False, True],
        "defaults": Rules().to_dict(),
        "bots": offered_bots(),
        "turn_seconds": server.config.turn_seconds,
        "quick_bots_after": server.config.quick_bots_after,
        "turn_seconds_range": [server.config.min_turn_seconds, MAX_TURN_SECONDS],
        "max_tables_per_guest": server.config.max_tables_per_guest,
    }


@router.get("/tables")
async def list_tables(server: ServerDep) -> list[dict[str, Any]]:
    return server.lobby.listing()


@router.post("/tables", status_code=201, responses=refusals(400, 401, 403, 409, 503))
async def create_table(
    body: CreateTableRequest, request: Request, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    address = request.client.host if request.client else None
    return await new_table(server, player, body, address)


async def new_table(
    server: Server, player: Player, body: CreateTableRequest, address: str | None
) -> dict[str, Any]:
    """``POST /api/tables`` once the request is read: the new table's summary, once it is
    durable (an ``HTTPException`` or a ``TableError`` if it cannot be made)."""
    try:
        rules = Rules.from_dict(body.rules)
    except RulesError as exc:
        raise HTTPRefusal(400, "bad_rules", problem=str(exc)) from None
    shortest = server.config.min_turn_seconds
    if body.turn_seconds is not None and 0 < body.turn_seconds < shortest:
        raise HTTPRefusal(422, "short_turn", seconds=f"{shortest:g}")
    table = server.lobby.create(
        player,
        rules,
        _printable(body.name),
        body.turn_seconds,
        body.bots,
        body.seat,
        address=address,
        rated=body.rated,
    )
    try:  # write-ahead: the table is in the database before anyone hears of it
        await server.lobby.made(table)
    except TableNotHosted:  # a cluster node without Redis: withdrawn, never to start
        raise HTTPRefusal(503, "no_site") from None
    except TimeoutError:
        raise HTTPRefusal(503, "no_database") from None
    except TableStopped:  # the server stopped before it was: another node makes it
        raise HTTPRefusal(503, "stopping") from None
    return table.summary()


@router.get("/tables/{table_id}", responses=refusals(404))
async def get_table(table_id: TableId, server: ServerDep) -> dict[str, Any]:
    summary = await server.lobby.summary_of(table_id)
    if summary is None:
        raise HTTPRefusal(404, "no_table", table=table_id)
    return summary


# ------------------------------------------------------------------ history, replays
@router.get("/history")
async def history(
    server: ServerDep, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> list[dict[str, Any]]:
    rows = await asyncio.to_thread(server.store.load, unfinished=False, limit=limit)
    return [
        {
            "id": r.id,
            "name": r.name,
            "rules": r.table["rules"],
            "describe": Rules.from_dict(r.table["rules"]).describe(),
            "seats": [s.get("name", "") for s in r.table["seats"]],
            "winner": r.winner,
            "finished_at": r.updated_at,
            "hands": len(r.record["hands"]) if r.record else 0,
        }
        for r in rows
    ]


async def _finished(server: ServerDep, match_id: str) -> tuple[MatchRow, dict[str, Any]]:
    """A finished match's stored row and its record (404 / 403 refusals otherwise)."""
    rows = await asyncio.to_thread(server.store.load, match_id=match_id, limit=1)
    if not rows or rows[0].record is None:
        raise HTTPRefusal(404, "no_match", table=match_id)
    if rows[0].status != "finished":
        raise HTTPRefusal(403, "match_not_over")
    return rows[0], rows[0].record


async def _finished_record(server: ServerDep, match_id: str) -> dict[str, Any]:
    return (await _finished(server, match_id))[1]


def public_seats(table: dict[str, Any]) -> list[dict[str, Any]]:
    """Who sat where as everyone may see it: a person's name, a bot's name and level (the
    seats' private ids left out)."""
    return [
        {"kind": seat.get("kind"), "name": seat.get("name", ""), "bot": seat.get("bot")}
        for seat in table.get("seats", [])
    ]


@router.get("/matches/{table_id}/record", responses=refusals(403, 404))
async def match_record(table_id: TableId, server: ServerDep) -> dict[str, Any]:
    return await _finished_record(server, table_id)


@router.get("/matches/{table_id}/replay", responses=refusals(403, 404))
async def match_replay(table_id: TableId, server: ServerDep) -> dict[str, Any]:
    row, data = await _finished(server, table_id)
    try:
        record = record_from_json(data)
    except RecordError as exc:  # the server wrote it: a broken one is the server's fault
        raise HTTPException(500, f"stored record is broken: {exc}") from None
    return {
        "record": data,
        "seats": public_seats(row.table),
        "summary": replay(record).to_json(),
        "steps": replay_steps(record),
    }
