"""The lobby API under ``/api``: guests and sessions, options, tables, history, replays.

Every body is a strict schema (unknown keys refused, numbers finite and in range,
strings bounded); every refusal is a 4xx with a one-line ``detail``.
"""

from __future__ import annotations

import asyncio
from dataclasses import fields
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..record import RecordError, record_from_json, replay
from ..rules import FALTA_ENVIDO_VARIANTS, Rules, RulesError
from . import accounts
from .bot_pool import check_bot_spec, offered_bots
from .deps import MaybePlayerDep, PlayerDep, ServerDep, TableId
from .players import clean_name
from .replays import replay_steps
from .sessions import clear_session_cookie, set_session_cookie
from .table.durability import TableStopped

router = APIRouter(prefix="/api")

RULE_KEYS = tuple(f.name for f in fields(Rules))
MAX_TURN_SECONDS = 600.0
SeatNumber = Annotated[int, Field(ge=0, le=5)]
BotSpec = Annotated[str, Field(max_length=40, description="one of /api/options 'bots'")]


def _printable(text: str) -> str:
    """Text without control or format characters (NUL, bidi overrides), spaces collapsed:
    PostgreSQL refuses NUL in text, and a table name is shown to every guest in the lobby."""
    return " ".join("".join(ch for ch in text if ch.isprintable()).split())


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GuestRequest(_Body):
    name: str = Field(default="", max_length=100)


class CreateTableRequest(_Body):
    rules: dict[str, Any] = Field(
        default_factory=dict, max_length=len(RULE_KEYS), description="options of /api/options"
    )
    name: str = Field(default="", max_length=80)
    turn_seconds: float | None = Field(
        default=None,
        ge=0,
        le=MAX_TURN_SECONDS,
        allow_inf_nan=False,
        description="0 (no clock), or from the server's minimum (/api/options) to 600",
    )
    bots: dict[SeatNumber, BotSpec] = Field(default_factory=dict, max_length=6)
    seat: SeatNumber | None = None
    rated: bool = Field(default=False, description="accounts only, no bots (see /api/leaderboard)")

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


def session_answer(response: Response, server: ServerDep, token: str) -> dict[str, Any]:
    """Set ``token`` as the session cookie; the session as ``POST /api/guest`` answers it."""
    player = server.signer.verify(token)
    assert player is not None
    set_session_cookie(response, token, server.signer.lifetime, server.config.secure_cookies)
    return {
        "token": token,
        "id": player.id,
        "name": player.name,
        "expires": player.expires,
        "account": player.account,
    }


# ------------------------------------------------------------------ sessions
@router.post("/guest")
async def guest(
    body: GuestRequest, response: Response, server: ServerDep, known: MaybePlayerDep
) -> dict[str, Any]:
    """A guest session (the cookie, and the token for other clients); with a valid
    session already, the same player under a new name (an account renames itself with
    ``PATCH /api/me``)."""
    if known is not None and known.account:
        raise HTTPException(
            409, "you are logged in to an account: rename it with PATCH /api/me, or log out"
        )
    name = clean_name(body.name)
    if accounts.looks_like_a_bot(name):
        raise HTTPException(422, "name: names whose first word is 'Bot' are the bots'")
    if await asyncio.to_thread(accounts.by_name, server.store.engine, name) is not None:
        raise HTTPException(409, f"name: {name!r} is an account's: log in, or choose another")
    token = server.signer.issue(name, known.id if known else None)
    return session_answer(response, server, token)


@router.post("/session/renew")
async def renew(response: Response, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """The same player with a new expiry (the session must still be valid)."""
    token = server.signer.issue(player.name, player.id, account=player.account)
    return session_answer(response, server, token)


@router.delete("/session", status_code=204)
async def forget(response: Response) -> None:
    """Forget the page's cookie (a token already given out stays valid until it expires)."""
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
        "turn_seconds_range": [server.config.min_turn_seconds, MAX_TURN_SECONDS],
        "max_tables_per_guest": server.config.max_tables_per_guest,
    }


@router.get("/tables")
async def list_tables(server: ServerDep) -> list[dict[str, Any]]:
    return server.lobby.listing()


@router.post("/tables", status_code=201)
async def create_table(
    body: CreateTableRequest, request: Request, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    try:
        rules = Rules.from_dict(body.rules)
    except RulesError as exc:
        raise HTTPException(400, f"rules: {exc}") from None
    shortest = server.config.min_turn_seconds
    if body.turn_seconds is not None and 0 < body.turn_seconds < shortest:
        raise HTTPException(
            422, f"turn_seconds: 0 (no clock) or at least {shortest:g} seconds a turn"
        )
    table = server.lobby.create(
        player,
        rules,
        _printable(body.name),
        body.turn_seconds,
        body.bots,
        body.seat,
        address=request.client.host if request.client else None,
        rated=body.rated,
    )
    try:  # write-ahead: the table is in the database before anyone hears of it
        await asyncio.wait_for(table.until_durable(), 30)
    except TimeoutError:
        raise HTTPException(503, "the database does not answer: try again later") from None
    except TableStopped as exc:  # the server stopped before it was: another node makes it
        raise HTTPException(503, str(exc)) from None
    return table.summary()


@router.get("/tables/{table_id}")
async def get_table(table_id: TableId, server: ServerDep) -> dict[str, Any]:
    summary = await server.lobby.summary_of(table_id)
    if summary is None:
        raise HTTPException(404, f"no table {table_id!r}")
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


async def _finished_record(server: ServerDep, match_id: str) -> dict[str, Any]:
    rows = await asyncio.to_thread(server.store.load, match_id=match_id, limit=1)
    if not rows or rows[0].record is None:
        raise HTTPException(404, f"no match {match_id!r}")
    if rows[0].status != "finished":
        raise HTTPException(
            403, "the match is still being played: its record is shown when it ends"
        )
    return rows[0].record


@router.get("/matches/{table_id}/record")
async def match_record(table_id: TableId, server: ServerDep) -> dict[str, Any]:
    return await _finished_record(server, table_id)


@router.get("/matches/{table_id}/replay")
async def match_replay(table_id: TableId, server: ServerDep) -> dict[str, Any]:
    data = await _finished_record(server, table_id)
    try:
        record = record_from_json(data)
    except RecordError as exc:  # the server wrote it: a broken one is the server's fault
        raise HTTPException(500, f"stored record is broken: {exc}") from None
    return {"record": data, "summary": replay(record).to_json(), "steps": replay_steps(record)}
