"""An HTTP route's refusal in the shared shape: ``{"detail", "code", "params"}``.

``detail`` is the English sentence (for scripts); the page words ``code`` with its
``params`` (``refusal.<code>`` of its catalogs). Codes are registered in
:data:`truco.refusals.CODES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse

from ..refusals import Param, Refusal


class HTTPRefusal(HTTPException):
    """Refuse a request with ``status`` and the refusal ``code`` (with its ``params``)."""

    def __init__(
        self, status: int, code: str, headers: dict[str, str] | None = None, **params: Param
    ) -> None:
        self.refusal = Refusal.of(code, **params)
        super().__init__(status, self.refusal.reason, headers)


def refusal_body(refusal: Refusal) -> dict[str, Any]:
    """``{"detail": <English>, "code": ..., "params": {...}}``."""
    return {"detail": refusal.reason, "code": refusal.code, "params": refusal.params}


def refusal_response(
    status: int, refusal: Refusal, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(refusal_body(refusal), status_code=status, headers=headers)


async def http_refusal_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPRefusal)
    return refusal_response(exc.status_code, exc.refusal, exc.headers)
