"""Challenges over HTTP: ``POST /api/challenges`` (to an account by name, or an open
link), ``GET /api/challenges`` (yours, received and sent), ``GET /api/challenges/{id}``
(anyone: the link's page), ``POST /api/challenges/{id}/accept`` and ``/decline``,
``DELETE /api/challenges/{id}`` (cancel). See :mod:`.challenges`."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator

from ..lobby import challenges, team_challenges
from ..lobby.challenges import table_rules
from ..refusals import EVERY_ROUTE, refusals
from .deps import ID_PATTERN, PlayerDep, Server, ServerDep
from .tables_api import RULE_KEYS

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

ChallengeId = Annotated[str, Path(pattern=ID_PATTERN, max_length=32, description="its code")]


class NewChallenge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target: StrictStr | None = Field(
        default=None, max_length=100, description="an account's name; none: an open link"
    )
    rules: dict[str, Any] = Field(
        default_factory=dict, max_length=len(RULE_KEYS), description="options of /api/options"
    )
    rated: StrictBool = False
    partners: list[Annotated[StrictStr, Field(max_length=100)]] = Field(
        default_factory=list, max_length=2, description="2v2/3v3: your partners' names"
    )
    rivals: list[Annotated[StrictStr, Field(max_length=100)]] = Field(
        default_factory=list, max_length=3, description="2v2/3v3: the rival team's names"
    )

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, rules: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(rules) - set(RULE_KEYS))
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (one of {', '.join(RULE_KEYS)})")
        return rules


async def _link(server: Server, challenge: challenges.Challenge) -> dict[str, Any]:
    seats = []
    if challenge.team:
        seats = await asyncio.to_thread(
            team_challenges.seats_json, server.store.engine, challenge.id
        )
    return {**challenge.to_json(), "seats": seats, "link": f"/desafio/{challenge.id}"}


async def _changed(server: Server, challenge: challenges.Challenge) -> dict[str, Any]:
    """:func:`_link`, after telling everyone in ``challenge`` that it changed (their
    pages' streams: :mod:`~..notices`)."""
    players = {challenge.challenger_id, challenge.target_id}
    if challenge.team:
        players.update(
            await asyncio.to_thread(team_challenges.players_of, server.store.engine, challenge.id)
        )
    server.notices.publish(*sorted(f"player:{p}" for p in players if p))
    return await _link(server, challenge)


@router.post("/challenges", responses=refusals(400, 401, 403, 404, 409))
async def create(body: NewChallenge, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Challenge the account ``target`` (or make an open link) to a 1v1 with ``rules``;
    rated: both accounts. It stays open 10 minutes."""
    rules = table_rules(body.rules)
    target = body.target.strip() if body.target is not None else None
    names = [n.strip() for n in body.partners], [n.strip() for n in body.rivals]
    challenge = await asyncio.to_thread(
        challenges.create, server.store.engine, player, target or None, rules, body.rated, *names
    )
    return await _changed(server, challenge)


@router.get("/challenges", responses=refusals(401, 403))
async def mine(server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """The open challenges you received, and those you sent (with the table of an
    accepted one)."""
    return await asyncio.to_thread(challenges.mine, server.store.engine, player.id)


@router.get("/challenges/{challenge_id}", responses=refusals(404))
async def one(challenge_id: ChallengeId, server: ServerDep) -> dict[str, Any]:
    challenge = await asyncio.to_thread(challenges.get, server.store.engine, challenge_id)
    return await _link(server, challenge)


@router.post("/challenges/{challenge_id}/accept", responses=refusals(401, 403, 404, 409, 503))
async def accept(challenge_id: ChallengeId, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Accept: both of you are seated at a new table (its code in ``table``)."""
    return await _changed(server, await challenges.accept(server, challenge_id, player))


@router.post("/challenges/{challenge_id}/decline", responses=refusals(401, 403, 404, 409))
async def decline(
    challenge_id: ChallengeId, server: ServerDep, player: PlayerDep
) -> dict[str, Any]:
    engine = server.store.engine
    challenge = await asyncio.to_thread(challenges.decline, engine, challenge_id, player)
    return await _changed(server, challenge)


@router.delete("/challenges/{challenge_id}", responses=refusals(401, 403, 404, 409))
async def cancel(challenge_id: ChallengeId, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    engine = server.store.engine
    challenge = await asyncio.to_thread(challenges.cancel, engine, challenge_id, player)
    return await _changed(server, challenge)
