"""Tournaments over HTTP: ``POST /api/tournaments`` (any account organises one; official
ones are moderators'), ``GET /api/tournaments`` (open, running, finished; ``?player=``
one player's), ``GET /api/tournaments/{id}`` (the page's: standings, games and their
tables), ``POST /api/tournaments/{id}/join``, ``/withdraw`` and ``/start`` (the
organiser, early). The page polls the tournament every 2 seconds; the director
(:mod:`.tournaments.director`) pairs it. See docs/online.md, "Tournaments"."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator

from ..lobby.challenges import table_rules
from ..lobby.tournaments import records
from ..people import accounts, moderation
from ..people.friends import FriendError
from ..refusals import EVERY_ROUTE, refusals
from .deps import ID_PATTERN, PlayerDep, ServerDep
from .tables_api import RULE_KEYS

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

TournamentId = Annotated[str, Path(pattern=ID_PATTERN, max_length=32, description="its code")]


class NewTournamentBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field(min_length=1, max_length=80)
    format: Literal["swiss", "arena"]
    rules: dict[str, Any] = Field(
        default_factory=dict, max_length=len(RULE_KEYS), description="options of /api/options"
    )
    rated: StrictBool = False
    rounds: int = Field(default=5, ge=1, le=15, strict=True, description="Swiss: its rounds")
    minutes: int = Field(default=30, ge=5, le=240, strict=True, description="arena: its length")
    starts_in: int = Field(
        default=0, ge=0, le=records.MAX_DAYS_AHEAD * 86400, strict=True, description="seconds"
    )
    max_entrants: int = Field(default=64, ge=2, le=256, strict=True)
    official: StrictBool = False

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(rules) - set(RULE_KEYS))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (one of {', '.join(RULE_KEYS)})")
        return rules


def _printable(text: str) -> str:
    return " ".join("".join(ch for ch in text if ch.isprintable()).split())


@router.post("/tournaments", responses=refusals(400, 401, 403))
async def create(body: NewTournamentBody, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Organise a tournament (accounts): 1v1, 2v2 or 3v3 (``rules.players``: teams enter
    with their partners), Swiss of ``rounds`` or arena of ``minutes``, starting in
    ``starts_in`` seconds."""
    if not player.account:
        raise FriendError(403, "account_only")
    if body.official:  # the moderators' (and admins')
        role = await asyncio.to_thread(moderation.role_of, server.store.engine, player.id)
        if not moderation.may(role, "official"):
            raise FriendError(403, "tournament_official")
    rules = table_rules(body.rules)
    name = _printable(body.name)
    if not name:
        raise FriendError(400, "tournament_name")
    spec = records.NewTournament(
        name=name,
        format=body.format,
        rules=rules.to_dict(),
        rated=body.rated,
        rounds=body.rounds,
        minutes=body.minutes,
        starts_at=time.time() + body.starts_in,
        max_entrants=body.max_entrants,
        official=body.official,
    )
    engine = server.store.engine
    tournament_id = await asyncio.to_thread(records.create, engine, player, spec)
    return await asyncio.to_thread(records.view, engine, tournament_id)


@router.get("/tournaments", responses=refusals(404))
async def listing(
    server: ServerDep,
    player: Annotated[str | None, Query(max_length=100, description="an account's name")] = None,
) -> dict[str, Any]:
    """Open (soonest first), running and finished tournaments; with ``player``, only
    those the account entered."""
    engine = server.store.engine
    player_id = None
    if player is not None:
        found = await asyncio.to_thread(accounts.by_name, engine, player)
        if found is None:
            raise FriendError(404, "player_not_found", name=player[:24])
        player_id = found.id
    return await asyncio.to_thread(records.listing, engine, player_id)


@router.get("/tournaments/{tournament_id}", responses=refusals(404))
async def one(tournament_id: TournamentId, server: ServerDep) -> dict[str, Any]:
    """The tournament: its settings, standings (best first) and every game with its
    table (spectate it live, or replay it at ``/replay/{table}``)."""
    return await asyncio.to_thread(records.view, server.store.engine, tournament_id)


class JoinBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    partners: list[Annotated[StrictStr, Field(max_length=100)]] = Field(
        default_factory=list, max_length=2, description="2v2/3v3: your partners' names"
    )


@router.post("/tournaments/{tournament_id}/join", responses=refusals(400, 401, 403, 404, 409))
async def join(
    tournament_id: TournamentId,
    server: ServerDep,
    player: PlayerDep,
    body: JoinBody | None = None,
) -> dict[str, Any]:
    """Enter (accounts): a Swiss tournament until it starts, an arena until it ends; a
    2v2 or 3v3 one as the captain of a team naming its ``partners`` (accounts)."""
    engine = server.store.engine
    partners = [n.strip() for n in body.partners] if body else []
    await asyncio.to_thread(records.join, engine, tournament_id, player, partners)
    server.notices.publish(f"tournament:{tournament_id}")
    return await asyncio.to_thread(records.view, engine, tournament_id)


@router.post("/tournaments/{tournament_id}/withdraw", responses=refusals(401, 404, 409))
async def withdraw(
    tournament_id: TournamentId, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    """Be paired no more (the games played still count)."""
    engine = server.store.engine
    await asyncio.to_thread(records.withdraw, engine, tournament_id, player)
    server.notices.publish(f"tournament:{tournament_id}")
    return await asyncio.to_thread(records.view, engine, tournament_id)


@router.post("/tournaments/{tournament_id}/start", responses=refusals(401, 403, 404, 409))
async def start(
    tournament_id: TournamentId, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    """The organiser starts it now (at least two entrants)."""
    engine = server.store.engine
    await asyncio.to_thread(records.start_now, engine, tournament_id, player)
    server.notices.publish(f"tournament:{tournament_id}")
    return await asyncio.to_thread(records.view, engine, tournament_id)
