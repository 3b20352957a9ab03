"""``GET /api/notices``: a page's stream of notices (server-sent events) instead of asking
again every few seconds. With a session it hears ``player:ID`` (its challenges changed);
with ``?tournament=ID``, that tournament changed. An event says only which (``event:
changed``, ``data: ["player:…"]``): the page then asks for what changed, with its own
rights. A comment every :data:`PING_SECONDS` keeps proxies from closing an idle stream.

A stream counts as an open socket of its address and its player (the caps of
:mod:`~..guards.socket_caps`), ends with its session (:meth:`Sessions.watch`) and when the
server begins to stop (:meth:`~..notices.Notices.close`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from ..guards.limits import client_address
from ..refusals import EVERY_ROUTE, refusals
from .deps import ID_PATTERN, MaybePlayerDep, ServerDep

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

#: seconds between the comments that keep an idle stream open
PING_SECONDS = 25.0
#: what a browser waits before it opens a dropped stream again (milliseconds)
RETRY_MS = 5000


class EventStream(StreamingResponse):
    """A stream of server-sent events (what the OpenAPI document names for 200)."""

    media_type = "text/event-stream"


@router.get(
    "/notices",
    response_class=EventStream,
    responses={
        **refusals(400, 403, 429),
        200: {
            "description": "the events, until the stream ends",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
    },
)
async def notices(
    request: Request,
    server: ServerDep,
    player: MaybePlayerDep,
    tournament: Annotated[str | None, Query(pattern=ID_PATTERN, max_length=32)] = None,
) -> EventStream:
    """Server-sent events: ``changed`` with the keys that changed (see the module)."""
    keys = set()
    if player is not None:
        keys.add(f"player:{player.id}")
    if tournament is not None:
        keys.add(f"tournament:{tournament}")
    if not keys:
        raise HTTPException(400, "nothing to hear: a session, or ?tournament=ID")
    address = client_address(request.scope)
    refusal = await server.sockets.admit("address", address)
    if refusal is None and player is not None:
        refusal = await server.sockets.admit("player", player.id)
        if refusal is not None:
            await server.sockets.release("address", address)
    if refusal is not None:
        raise HTTPException(429, refusal)
    subscription = server.notices.subscribe(keys)
    server.sessions.watch(player, subscription)  # its session ends: the stream too

    async def events() -> AsyncIterator[str]:
        yield f"retry: {RETRY_MS}\n: hello\n\n"
        while not subscription.closed:
            changed = await subscription.next(PING_SECONDS)
            if changed:
                yield f"event: changed\ndata: {json.dumps(sorted(changed))}\n\n"
            elif not subscription.closed:
                yield ": ping\n\n"

    async def ended() -> None:
        # after the response, however it ended (the client gone: Starlette cancels the
        # stream, then runs this)
        server.notices.unsubscribe(subscription)
        server.sessions.unwatch(player, subscription)
        await server.sockets.release("address", address)
        if player is not None:
            await server.sockets.release("player", player.id)

    headers: dict[str, Any] = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return EventStream(events(), headers=headers, background=BackgroundTask(ended))
