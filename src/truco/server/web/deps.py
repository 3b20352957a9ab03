"""What the routes share: the server's parts, and the player a request speaks for."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Cookie, Depends, Header, HTTPException, Path
from starlette.requests import HTTPConnection, Request

from ..parts import Server as Server  # what the routes share, with the player
from ..people.players import Player
from ..people.sessions import COOKIE, bearer, cross_origin_refusal

#: table and match ids: short codes of letters, digits, ``-`` and ``_``
ID_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
ID_RE = re.compile(ID_PATTERN)
TableId = Annotated[
    str, Path(pattern=ID_PATTERN, max_length=32, description="a table's code (ex. 'k3xq7p')")
]


#: the longest Authorization header and session cookie a request may carry
MAX_HEADER = 1024


def server_of(connection: HTTPConnection) -> Server:
    server: Server = connection.app.state.server
    return server


async def _server(connection: HTTPConnection) -> Server:
    # the dependencies are coroutines: FastAPI runs a plain function's in a worker
    # thread, a hop that cost more than the whole request's own work
    return server_of(connection)


ServerDep = Annotated[Server, Depends(_server)]


async def optional_player(
    request: Request,
    server: ServerDep,
    authorization: Annotated[str | None, Header(max_length=MAX_HEADER)] = None,
    truco_session: Annotated[str | None, Cookie(alias=COOKIE, max_length=MAX_HEADER)] = None,
) -> Player | None:
    """The player of the request's token (Bearer header, else the page's cookie); 403
    for a request that changes something on the cookie's word from another site."""
    token = bearer(authorization)
    if token is None and truco_session:
        refusal = cross_origin_refusal(request.method, request.headers)
        if refusal is not None:
            raise HTTPException(403, refusal)
        token = truco_session
    return await server.sessions.player(token)


#: the 401 of a request without a live session
NO_SESSION = {
    "detail": "a valid guest session is needed: POST /api/guest "
    "(then the cookie, or 'Authorization: Bearer <token>')",
    "code": "no_session",
    "params": {},
}


class NoSession(Exception):
    """No live session: 401 with :data:`NO_SESSION` (the app's handler answers it)."""


async def current_player(player: Annotated[Player | None, Depends(optional_player)]) -> Player:
    """The player of the request's token; 401 without a live session (none, expired,
    logged out)."""
    if player is None:
        raise NoSession()
    return player


PlayerDep = Annotated[Player, Depends(current_player)]
MaybePlayerDep = Annotated[Player | None, Depends(optional_player)]
