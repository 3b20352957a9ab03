"""Moderation over HTTP: players report a player (``POST /api/reports``), moderators act
under ``/api/mod/*`` (403 ``moderators_only`` for everyone else), and the moderators' page
``/moderacion`` (``/moderation``) uses them.

Every moderator action goes through :mod:`.moderation` (the same functions as ``truco
admin``), so it is in the audit log with who, what and why; here the running server adds
what only it can do at once: a banned player's sockets close, their seats in this process's
live tables go to bots (:meth:`~.lobby.Lobby.expel`), their quick-match ticket drops.
"""

from __future__ import annotations

import asyncio
from pathlib import Path as PathLib
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from ..guards.limits import MovingWindow, parse_rate
from ..people import integrity, moderation
from ..people.accounts import AccountError
from ..people.players import Player
from ..people.ratings import MODES
from ..refusals import EVERY_ROUTE, refusals
from .deps import ID_RE, PlayerDep, Server, ServerDep

if TYPE_CHECKING:
    from .queue_api import Matchmaker

STATIC = PathLib(__file__).parents[1] / "static"
router = APIRouter(prefix="/api", responses=EVERY_ROUTE)
pages = APIRouter(include_in_schema=False)

#: reports one player may send
REPORT_RATE = "10/hour"
Name = Annotated[str, Path(max_length=100, description="an account's name")]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ReportBody(_Body):
    context: Literal["table", "replay", "profile"]
    reason: Literal["abuse", "cheating", "farming", "name", "other"]
    comment: str = Field(default="", max_length=2000)
    #: a table's or a replay's: the match and the reported player's seat
    match_id: str | None = Field(default=None, max_length=32)
    seat: int | None = Field(default=None, ge=0, le=5)
    #: a profile's: the account's name
    name: str | None = Field(default=None, max_length=100)


class Why(_Body):
    reason: str = Field(max_length=500, description="why: kept in the audit log")


class RenameBody(Why):
    name: str = Field(max_length=100, description="the new name")


class RoleBody(Why):
    role: Literal["player", "moderator", "admin"]


class RatingBody(Why):
    action: Literal["reset", "freeze", "thaw"]
    mode: Literal["1v1", "2v2", "3v3"] | None = None


class AddressBan(Why):
    address: str = Field(max_length=64)
    hours: float = Field(gt=0, le=moderation.MAX_ADDRESS_BAN / 3600, allow_inf_nan=False)


class AddressUnban(Why):
    address: str = Field(max_length=64)


def _reports_window(request: Request) -> MovingWindow:
    window: MovingWindow | None = getattr(request.app.state, "reports_window", None)
    if window is None:
        window = request.app.state.reports_window = MovingWindow(parse_rate(REPORT_RATE))
    return window


async def moderator(player: PlayerDep, server: ServerDep) -> Player:
    """The request's player if a moderator or an admin; 403 ``moderators_only`` else."""
    role = "player"
    if player.account:
        role = await asyncio.to_thread(moderation.role_of, server.store.engine, player.id)
    if not moderation.may(role, "ban"):
        raise AccountError(403, "that is for moderators only", "moderators_only")
    return player


ModeratorDep = Annotated[Player, Depends(moderator)]


def _actor(player: Player) -> str:
    return f"{player.name} ({player.id})"


async def _over(server: Server, mod: Player, name: str) -> None:
    """A moderator acts on players; on a moderator or an admin, only an admin does (403
    ``admins_only``)."""
    engine = server.store.engine
    target = await asyncio.to_thread(moderation.find, engine, name)
    if target.role != "player":
        mine = await asyncio.to_thread(moderation.role_of, engine, mod.id)
        if not moderation.may(mine, "role"):
            raise AccountError(403, "that is for admins only", "admins_only")


# ------------------------------------------------------------------ reports
async def _reported(server: Server, body: ReportBody) -> moderation.Reported:
    """Whom the report is about, as the server knows them (a seat of the match, or the
    profile's account): never an id the reporter sends."""
    if body.context == "profile":
        if body.name is None:
            raise AccountError(422, "a profile's report names the player", "no_report_target")
        found = await asyncio.to_thread(moderation.find, server.store.engine, body.name)
        return moderation.Reported(found.id, found.name, None)
    if body.match_id is None or body.seat is None or not ID_RE.match(body.match_id):
        raise AccountError(422, "a match's report names the match and the seat", "no_report_target")
    live = server.lobby.tables.get(body.match_id)
    if live is not None:
        seats = [s.to_json() for s in live.seats]
    else:
        rows = await asyncio.to_thread(server.store.load, match_id=body.match_id, limit=1)
        if not rows:
            raise AccountError(
                404, f"no match {body.match_id!r}", "no_match", {"table": body.match_id}
            )
        seats = list(rows[0].table.get("seats", []))
    if body.seat >= len(seats) or seats[body.seat].get("kind") != "human":
        raise AccountError(409, "nobody to report in that seat", "no_report_target")
    seat = seats[body.seat]
    return moderation.Reported(str(seat["player_id"]), str(seat.get("name", "")), body.match_id)


@router.post("/reports", status_code=201, responses=refusals(400, 401, 403, 404, 409, 429))
async def report(
    body: ReportBody, request: Request, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    """Report a player to the moderators from a table, a replay (the match and the seat)
    or a profile (the name), with a reason; any session may (10 an hour)."""
    reported = await _reported(server, body)
    if reported.player_id == player.id:
        raise AccountError(409, "you cannot report yourself", "report_self")
    if not _reports_window(request).hit(player.id):
        raise AccountError(429, "too many reports", "report_rate", {"retry_after": 600})
    engine = server.store.engine
    report_id = await server.store.in_writer(
        lambda: moderation.file_report(
            engine, player.id, player.name, reported, body.context, body.reason, body.comment
        )
    )
    return {"id": report_id, "player": reported.name}


@router.get("/mod/reports", responses=refusals(401, 403))
async def list_reports(
    server: ServerDep,
    _: ModeratorDep,
    status: Literal["open", "closed", "all"] = "open",
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    """Reports, the latest first, each with its replay's address."""
    which = None if status == "all" else status
    found = await asyncio.to_thread(moderation.reports, server.store.engine, which, limit)
    return {"reports": found}


@router.post("/mod/reports/{report_id}/close", responses=refusals(400, 401, 403, 404))
async def close_report(
    report_id: Annotated[int, Path(ge=1)], body: Why, server: ServerDep, mod: ModeratorDep
) -> dict[str, Any]:
    engine = server.store.engine
    await server.store.in_writer(
        lambda: moderation.close_report(engine, _actor(mod), report_id, body.reason)
    )
    return {"closed": report_id}


# ------------------------------------------------------------------ accounts
@router.get("/mod/players/{name}", responses=refusals(401, 403, 404))
async def standing(name: Name, server: ServerDep, _: ModeratorDep) -> dict[str, Any]:
    """An account's role, ban and rating freeze, and the audit entries about it."""
    engine = server.store.engine
    found = await asyncio.to_thread(moderation.find, engine, name)
    log = await asyncio.to_thread(moderation.audit_log, engine, found.name, 50)
    return {**found.to_json(), "audit": log}


@router.post("/mod/players/{name}/ban", responses=refusals(400, 401, 403, 404, 422))
async def ban(
    name: Name, body: Why, request: Request, server: ServerDep, mod: ModeratorDep
) -> dict[str, Any]:
    """Ban an account: it cannot log in, every session of it ends, its seats in live
    matches go to bots, its quick-match ticket drops."""
    await _over(server, mod, name)
    engine = server.store.engine
    found, _ = await server.store.in_writer(
        lambda: moderation.ban(engine, _actor(mod), name, body.reason, end_sessions=False)
    )
    matchmaker = getattr(request.app.state, "matchmaker", None)
    return {**found.to_json(), **await expel(server, matchmaker, found.id)}


async def expel(server: Server, matchmaker: Matchmaker | None, player_id: str) -> dict[str, int]:
    """What a ban does to a running server: sessions end (their sockets close), seats go
    to bots, the queue ticket drops."""
    ended = await server.sessions.end_all(player_id)
    tables = server.lobby.expel(player_id)
    dropped = 0
    if matchmaker is not None:
        dropped = int(await matchmaker.backend.leave(player_id))
    return {"sessions_ended": ended, "tables": tables, "tickets_dropped": dropped}


async def expel_if_banned(
    server: Server, matchmaker: Matchmaker | None, player_ids: list[str]
) -> None:
    """Expel those of ``player_ids`` who are banned: their sessions ended elsewhere (a
    ban by ``truco admin``, or a moderator on another node), so this node's seats and
    ticket are theirs to settle (:attr:`~.session_store.Sessions.on_ended_elsewhere`)."""
    engine = server.store.engine
    for player_id in sorted(await asyncio.to_thread(moderation.banned_among, engine, player_ids)):
        await expel(server, matchmaker, player_id)


@router.post("/mod/players/{name}/unban", responses=refusals(400, 401, 403, 404, 422))
async def unban(name: Name, body: Why, server: ServerDep, mod: ModeratorDep) -> dict[str, Any]:
    engine = server.store.engine
    found = await server.store.in_writer(
        lambda: moderation.unban(engine, _actor(mod), name, body.reason)
    )
    return found.to_json()


@router.post("/mod/players/{name}/rename", responses=refusals(400, 401, 403, 404, 409, 422))
async def force_rename(
    name: Name, body: RenameBody, server: ServerDep, mod: ModeratorDep
) -> dict[str, Any]:
    """Rename an account whose name offends (the new name is checked as any name)."""
    await _over(server, mod, name)
    engine = server.store.engine
    found = await server.store.in_writer(
        lambda: moderation.force_rename(engine, _actor(mod), name, body.name, body.reason)
    )
    await server.sessions.rename(found.id, found.name)
    return found.to_json()


@router.post("/mod/players/{name}/rating", responses=refusals(400, 401, 403, 404, 422))
async def rating(
    name: Name, body: RatingBody, server: ServerDep, mod: ModeratorDep
) -> dict[str, Any]:
    """Reset an account's rating (a mode's, or all) or freeze / thaw it."""
    await _over(server, mod, name)
    engine, actor = server.store.engine, _actor(mod)
    if body.action == "reset":
        found = await server.store.in_writer(
            lambda: moderation.reset_rating(engine, actor, name, body.mode, body.reason)
        )
    else:
        frozen = body.action == "freeze"
        found = await server.store.in_writer(
            lambda: moderation.freeze_rating(engine, actor, name, frozen, body.reason)
        )
    return found.to_json()


@router.post("/mod/players/{name}/role", responses=refusals(400, 401, 403, 404, 422))
async def role(name: Name, body: RoleBody, server: ServerDep, mod: ModeratorDep) -> dict[str, Any]:
    """Make an account a player, a moderator or an admin (admins only)."""
    engine = server.store.engine
    mine = await asyncio.to_thread(moderation.role_of, engine, mod.id)
    if not moderation.may(mine, "role"):
        raise AccountError(403, "that is for admins only", "admins_only")
    found = await server.store.in_writer(
        lambda: moderation.set_role(engine, _actor(mod), name, body.role, body.reason)
    )
    return found.to_json()


# ------------------------------------------------------------------ addresses, log, signals
@router.get("/mod/address-bans", responses=refusals(401, 403))
async def address_bans(server: ServerDep, _: ModeratorDep) -> dict[str, Any]:
    return {"bans": await asyncio.to_thread(moderation.address_bans, server.store.engine)}


@router.post("/mod/address-bans", responses=refusals(400, 401, 403, 422))
async def ban_address(
    body: AddressBan, request: Request, server: ServerDep, mod: ModeratorDep
) -> dict[str, Any]:
    """Bar new guests (and sign-ups) from an address for some hours; the guest sessions
    it opened end."""
    engine, seconds = server.store.engine, body.hours * 3600
    until, ended = await server.store.in_writer(
        lambda: moderation.ban_address(
            engine, _actor(mod), body.address, seconds, body.reason, end_sessions=False
        )
    )
    for session_id in ended:
        await server.sessions.end(session_id)  # and its sockets close
    request.app.state.address_bans.forget()
    return {"address": body.address, "until": until, "sessions_ended": len(ended)}


@router.post("/mod/address-bans/remove", responses=refusals(400, 401, 403, 422))
async def unban_address(
    body: AddressUnban, request: Request, server: ServerDep, mod: ModeratorDep
) -> dict[str, Any]:
    engine = server.store.engine
    removed = await server.store.in_writer(
        lambda: moderation.unban_address(engine, _actor(mod), body.address, body.reason)
    )
    request.app.state.address_bans.forget()
    return {"address": body.address, "removed": removed}


@router.get("/mod/audit", responses=refusals(401, 403))
async def audit(
    server: ServerDep,
    _: ModeratorDep,
    target: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    """The audit log, newest first: who did what to whom, and why."""
    log = await asyncio.to_thread(moderation.audit_log, server.store.engine, target, limit)
    return {"entries": log}


@router.get("/mod/signals", responses=refusals(401, 403))
async def signals(server: ServerDep, _: ModeratorDep) -> dict[str, Any]:
    """Rated-play integrity signals (:mod:`.integrity`): for a moderator to look at, not
    sanctions."""

    def read() -> list[dict[str, Any]]:
        with server.store.engine.connect() as conn:
            return [s.to_json() for s in integrity.current_signals(conn)]

    return {"signals": await asyncio.to_thread(read), "modes": list(MODES.values())}


# ------------------------------------------------------------------ the page
@pages.get("/moderacion")
@pages.get("/moderation")
async def moderation_page() -> FileResponse:
    """The moderators' page (it asks ``/api/mod/*``, which answers moderators only)."""
    return FileResponse(STATIC / "moderation.html")
