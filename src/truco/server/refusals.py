"""What an HTTP refusal looks like, on the wire and in the OpenAPI document.

Every 4xx the server answers is JSON ``{"detail": "<one English sentence>", "code":
"<snake_case>", "params": {...}}`` (:class:`RefusalBody`): a route raises
:class:`HTTPRefusal` (an ``HTTPException`` carrying a registered
:class:`truco.refusals.Refusal`), or FastAPI raises a plain ``HTTPException`` whose code is
then its status's (:data:`STATUS_CODES`). :func:`refusals` is what a route declares it may
answer, so that the document says every status a client can get.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Send

from ..refusals import Param, Refusal

#: the code of a refusal raised without one of its own
STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "body_too_slow",
    409: "conflict",
    413: "body_too_large",
    422: "invalid_request",
    429: "too_many_requests",
    500: "server_error",
    503: "unavailable",
}


class RefusalBody(BaseModel):
    """A refusal: a sentence for scripts, a stable code for programs (a page words it in
    its own language from the code and its parameters)."""

    detail: str = Field(description="one English sentence")
    code: str = Field(description="a stable snake_case name of the refusal")
    params: dict[str, Any] = Field(description="the values the refusal names")


class HTTPRefusal(HTTPException):
    """Refuse a request with ``status`` and the registered refusal ``code`` (with its
    ``params``; see :data:`truco.refusals.CODES`)."""

    def __init__(
        self, status: int, code: str, headers: dict[str, str] | None = None, **params: Param
    ) -> None:
        self.refusal = Refusal.of(code, **params)
        super().__init__(status, self.refusal.reason, headers)


#: what each status means, in the document
MEANINGS = {
    400: "the request cannot be used (a bad option, a body that cannot be read)",
    401: "no valid session",
    403: "not allowed (a cross-origin request on the cookie, or not yours to do)",
    404: "no such thing",
    408: "the request body took too long to arrive",
    409: "in conflict with what exists",
    413: "the request body is too large",
    422: "the request does not follow the schema (params.errors names each problem)",
    429: "too many requests: from the address, the session, or of this kind",
    503: "busy or unavailable: try again later",
}


def refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that may refuse with ``statuses``."""
    return {
        status: {"model": RefusalBody, "description": MEANINGS.get(status, "refused")}
        for status in statuses
    }


#: what any route of the API may answer: the per-address limits and the body's cap
#: (the middleware's), and a request that does not follow the schema
EVERY_ROUTE = refusals(408, 413, 422, 429)


def refusal_body(refusal: Refusal) -> dict[str, Any]:
    """``{"detail": <English>, "code": ..., "params": {...}}``."""
    return {"detail": refusal.reason, "code": refusal.code, "params": refusal.params}


async def send_refusal(
    send: Send, status: int, refusal: Refusal, headers: dict[str, str] | None = None
) -> None:
    """Answer a plain ASGI request with ``status`` and the refusal's JSON (a refusal made
    before any route runs)."""
    body = json.dumps(refusal_body(refusal)).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def refusal_response(
    status: int, refusal: Refusal, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The answer of a route refused with ``refusal``."""
    return JSONResponse(refusal_body(refusal), status, headers=headers)


async def http_refusal(request: Request, exc: Exception) -> JSONResponse:
    """The answer of an ``HTTPException``: a route's :class:`HTTPRefusal`, or FastAPI's
    own 404 and 405 (whose code is their status's, :data:`STATUS_CODES`)."""
    assert isinstance(exc, StarletteHTTPException)
    if isinstance(exc, HTTPRefusal):
        return refusal_response(exc.status_code, exc.refusal, exc.headers)
    code = STATUS_CODES.get(exc.status_code, "refused")
    body = {"detail": str(exc.detail), "code": code, "params": {}}
    return JSONResponse(body, exc.status_code, headers=exc.headers)


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    """422 naming the first problem in one line, every problem in ``params.errors``; the
    offending input is not echoed (it may be huge, or not even JSON: ``NaN``)."""
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": e["type"]}
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request", "type": ""}
    if first["type"] == "json_invalid":
        detail = "body: not valid JSON"
    else:
        where = ".".join(p for p in first["loc"][1:]) or first["loc"][0] if first["loc"] else ""
        detail = f"{where or 'request'}: {first['msg']}"
    body = {"detail": detail, "code": "invalid_request", "params": {"errors": errors}}
    return JSONResponse(body, 422)
