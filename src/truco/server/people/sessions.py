"""Sessions: where a guest's token travels, and never in a URL.

The page gets its token as an HttpOnly, SameSite=Strict cookie (``POST /api/guest``
sets it; scripts cannot read it, other sites cannot send it); its HTTP calls and its
WebSocket carry it by themselves. Other clients (the terminal game, scripts) keep the
token the same call returns and send it as ``Authorization: Bearer <token>`` over HTTP
and in the ``hello`` message that opens a WebSocket. The token names a session kept by
the server (:mod:`truco.server.people.session_store`): ``POST /api/session/renew`` moves its
expiry (up to a maximum lifetime); ``DELETE /api/session`` and ``POST /api/logout`` end
it (and forget the cookie), for every copy of the token. A request
that changes something and is authenticated by the cookie must come from this server's
pages (:func:`cross_origin_refusal`): SameSite=Strict already keeps other sites' requests
from carrying it, the ``Origin`` check holds where a browser does not honour SameSite.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from starlette.responses import Response

COOKIE = "truco_session"


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if it has one."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def session_token(headers: Mapping[str, str], cookies: Mapping[str, str]) -> str | None:
    """The token of an HTTP request: the Bearer header first, then the cookie."""
    return bearer(headers.get("authorization")) or cookies.get(COOKIE) or None


def same_origin(headers: Mapping[str, str]) -> bool:
    """A WebSocket opened by a page of this server (or by a client that sends no
    ``Origin``): only then does the cookie speak for the player."""
    origin = headers.get("origin")
    if origin is None:
        return True
    try:
        return urlsplit(origin).netloc == headers.get("host", "")
    except ValueError:
        return False


#: methods that only read: the Origin check below leaves them alone
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def cross_origin_refusal(method: str, headers: Mapping[str, str]) -> str | None:
    """Why a request that the session cookie authenticates is refused, or ``None``: a
    request that changes something must come from a page of this server (its ``Origin``,
    when the browser sends one, is this server). Requests with a Bearer token are not
    asked: another site cannot make a browser send one."""
    if method in SAFE_METHODS or same_origin(headers):
        return None
    return (
        f"cross-origin request refused: the session cookie only works from this server's "
        f"pages (Origin {headers.get('origin', '')[:80]!r})"
    )


def set_session_cookie(
    response: Response, token: str, lifetime: float, secure: bool = False
) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(lifetime),
        httponly=True,
        samesite="strict",
        secure=secure,
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
