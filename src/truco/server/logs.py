"""The server's log: plain text by default, one JSON object per line with
``--log-format json``; every line says what it is about (request id, table, account,
node) and no line carries a secret.

What a line is about comes from context variables: :class:`RequestIds` sets the request
id of each HTTP request and WebSocket (the client's ``X-Request-ID`` when it is a sane
one, else a new one, sent back in the response); :func:`about` sets the table, the account
or the node for a block of code, and a task started inside it keeps them (asyncio copies
the context into every task it creates). :class:`Secrets` scrubs what must never be
written: tokens (``Bearer ...``, the session cookie, ``"token": ...``) and passwords.

>>> line = logging.LogRecord("truco", logging.INFO, "", 0, "hello %s", ("Bearer abc.def",), None)
>>> Secrets().filter(line), line.getMessage()
(True, 'hello Bearer [secret]')
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import time
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: what a line is about: each field is absent from the line while unset
FIELDS = ("request_id", "table", "account", "node")
_CONTEXT: dict[str, ContextVar[str | None]] = {f: ContextVar(f, default=None) for f in FIELDS}
FORMATS = ("plain", "json")

access = logging.getLogger("truco.server.access")


@contextlib.contextmanager
def about(**fields: str | None) -> Iterator[None]:
    """Lines logged inside the block (and by tasks started in it) carry ``fields``."""
    tokens = [(_CONTEXT[name], _CONTEXT[name].set(value)) for name, value in fields.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def set_node(node: str) -> None:
    """Every line of this process says which node it comes from (cluster mode)."""
    _CONTEXT["node"].set(node)


class Context(logging.Filter):
    """Puts the context's fields that are set on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _CONTEXT.items():
            value = var.get()
            if value is not None:
                setattr(record, name, value)
        return True


#: secrets in text: a Bearer token, the session cookie, a token or password as JSON or form
_SECRET = re.compile(
    r"(?P<keep>(?i:bearer)\s+|truco_session=|"
    r"[\"']?(?i:token|password|old_password|new_password|secret)[\"']?\s*[:=]\s*[\"']?)"
    r"(?P<secret>[^\s\"',;&}]+)"
)


def scrub(text: str) -> str:
    """``text`` with every secret it shows replaced by ``[secret]``."""
    return _SECRET.sub(lambda m: f"{m['keep']}[secret]", text)


class Secrets(logging.Filter):
    """Scrubs secrets from the message, and from the traceback of a failure (whose
    locals are not printed, but whose exception messages may quote a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        return True


class _Plain(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        about = " ".join(f"{f}={getattr(record, f)}" for f in FIELDS if getattr(record, f, None))
        return f"{line} [{about}]" if about else line


def configure(log_format: str = "plain", level: str = "warning") -> None:
    """Send the server's log (and uvicorn's) to stderr in ``log_format``."""
    if log_format not in FORMATS:
        raise ValueError(f"--log-format must be one of {', '.join(FORMATS)} (got {log_format!r})")
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(Context())
    handler.addFilter(Secrets())
    if log_format == "json":
        from pythonjsonlogger.core import RESERVED_ATTRS
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(
            JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
                reserved_attrs=[*RESERVED_ATTRS, "color_message"],  # uvicorn's, for terminals
            )
        )
    else:
        handler.setFormatter(_Plain("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())


#: a request id a client may choose: short, and nothing that could forge a log line
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class RequestIds:
    """ASGI middleware: each request and WebSocket gets an id (the client's sane
    ``X-Request-ID``, else a new one), sent back as ``X-Request-ID`` and carried by
    every line logged while it is handled; each HTTP request's outcome goes to the
    ``truco.server.access`` logger at INFO (method, path without its query, status,
    milliseconds), never its headers or body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        asked = dict(scope.get("headers", [])).get(b"x-request-id", b"").decode("latin-1")
        request_id = asked if _REQUEST_ID.match(asked) else uuid.uuid4().hex
        started, status = time.perf_counter(), [0]

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                headers = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
                message = {**message, "headers": headers}
            await send(message)

        if scope["type"] == "websocket":  # its frames pass untouched
            with about(request_id=request_id):
                await self.app(scope, receive, send)
            return
        with about(request_id=request_id):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                if access.isEnabledFor(logging.INFO):
                    access.info(
                        "%s %s %d %.1f ms",
                        scope.get("method", ""),
                        scope.get("path", "")[:200],
                        status[0],
                        (time.perf_counter() - started) * 1000,
                        extra=_address(scope),
                    )


def _address(scope: Scope) -> dict[str, Any]:
    client = scope.get("client")
    return {"address": client[0] if client else None}
