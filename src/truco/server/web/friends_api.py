"""Friends over HTTP, for accounts: ``GET /api/friends`` (whom you follow and where they
are, your followers, whom you blocked, whether you hide your presence), ``PUT`` and
``DELETE /api/friends/{name}`` (follow, unfollow), ``PUT`` and ``DELETE
/api/blocks/{name}`` (block, unblock), ``PUT /api/me/presence`` (hide it or show it).
See :mod:`.friends`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, StrictBool
from sqlalchemy.engine import Engine

from ...refusals import Refusal
from ..people import accounts, friends
from ..people.friends import FriendError
from ..people.players import Player
from ..refusals import EVERY_ROUTE, refusal_response, refusals
from .deps import PlayerDep, Server, ServerDep

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

PlayerName = Annotated[str, Path(min_length=1, max_length=100, description="an account's name")]


class Presence(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hidden: StrictBool


async def friend_refusal(request: Request, exc: Exception) -> JSONResponse:
    """The answer of a :class:`~.friends.FriendError` (the app's handler)."""
    assert isinstance(exc, FriendError)
    return refusal_response(exc.http, Refusal.of(exc.code, **exc.params))


def account_of(player: Player) -> Player:
    if not player.account:
        raise FriendError(403, "account_only")
    return player


async def account_named(server: Server, name: str) -> accounts.Account:
    found = await asyncio.to_thread(accounts.by_name, server.store.engine, name)
    if found is None:
        raise FriendError(404, "player_not_found", name=name[:24])
    return found


@router.get("/friends", responses=refusals(401, 403))
async def my_friends(server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Whom you follow (playing at a table, online or offline; a hidden one offline),
    who follows you, whom you blocked, and whether you hide your presence."""
    me = account_of(player)
    listing = server.lobby.listing()
    return await asyncio.to_thread(friends.friends_of, server.store.engine, me.id, listing)


async def _between(
    server: Server, player: Player, name: str, change: Callable[[Engine, str, str], None]
) -> str:
    """``change(engine, your id, their id)`` for the account ``name``; its name as stored."""
    me = account_of(player)
    other = await account_named(server, name)
    await asyncio.to_thread(change, server.store.engine, me.id, other.id)
    return other.name


@router.put("/friends/{name}", responses=refusals(401, 403, 404, 409))
async def follow(name: PlayerName, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Follow the account ``name`` (not one that blocked you, nor one you blocked)."""
    return {"following": await _between(server, player, name, friends.follow)}


@router.delete("/friends/{name}", responses=refusals(401, 403, 404))
async def unfollow(name: PlayerName, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    return {"unfollowed": await _between(server, player, name, friends.unfollow)}


@router.put("/blocks/{name}", responses=refusals(401, 403, 404, 409))
async def block(name: PlayerName, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Block the account ``name``: neither can challenge or follow the other, and casual
    quick match never seats you together."""
    return {"blocked": await _between(server, player, name, friends.block)}


@router.delete("/blocks/{name}", responses=refusals(401, 403, 404))
async def unblock(name: PlayerName, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    return {"unblocked": await _between(server, player, name, friends.unblock)}


@router.put("/me/presence", responses=refusals(400, 401, 403))
async def presence(body: Presence, server: ServerDep, player: PlayerDep) -> dict[str, Any]:
    """Hide your presence from those who follow you (or show it again)."""
    me = account_of(player)
    await asyncio.to_thread(friends.set_hidden, server.store.engine, me.id, body.hidden)
    return {"hidden": body.hidden}
