"""The online table as one ASGI application.

``create_app(config)`` assembles it: the lobby API under ``/api`` (:mod:`.api`), the
live table at ``/ws/{table}`` (:mod:`.live`), the page at ``/`` (and ``/t/{table}``,
``/replay/{match}``), the card images at ``/cards/{card}.svg``; per-address rate limits
in front of the API and the sockets (:class:`~.limits.HttpLimits`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from . import accounts, accounts_api, analysis_api, api, health, live, metrics, queue_api
from .card_art import card_back_svg, card_svg
from .config import ServerConfig
from .deps import ID_RE, Server, ServerDep
from .limits import AddressLimits, Attempts, HttpLimits, parse_rate
from .lobby import Lobby
from .logs import RequestIds
from .matchmaking import MemoryQueue
from .pauses import keep_pauses_short
from .players import TokenSigner
from .store import Store
from .table import TableError
from .tasks import spawn

STATIC = Path(__file__).parent / "static"
#: table refusals that are about how much a guest asks for, not about the request
TOO_MANY = frozenset({"too_many_tables", "full"})

pages = APIRouter(include_in_schema=False)


@pages.get("/")
@pages.get("/ranking")
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@pages.get("/u/{player_name}")
async def profile_page(player_name: str, server: ServerDep) -> FileResponse:
    """The page; for a name no account has, with status 404 (the page then says so)."""
    known = await asyncio.to_thread(accounts.by_name, server.store.engine, player_name)
    return FileResponse(STATIC / "index.html", status_code=200 if known else 404)


async def _known_match(server: Server, match_id: str) -> bool:
    """Whether ``match_id`` names a table being played or a stored match."""
    if match_id in server.lobby.tables:
        return True
    if not ID_RE.match(match_id):
        return False
    rows = await asyncio.to_thread(server.store.load, match_id=match_id, limit=1)
    return bool(rows)


@pages.get("/t/{table_id}")
@pages.get("/replay/{table_id}")
async def match_page(table_id: str, server: ServerDep) -> FileResponse:
    """The page; for a table or match that does not exist, with status 404 (the page
    then says so in its language)."""
    status = 200 if await _known_match(server, table_id) else 404
    return FileResponse(STATIC / "index.html", status_code=status)


@pages.get("/cards/{name}.svg")
async def card_image(name: str) -> Response:
    svg = card_back_svg() if name == "back" else card_svg(name)
    if svg is None:
        raise HTTPException(404, f"no card {name[:20]!r}")
    return Response(
        svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"}
    )


async def _table_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, TableError)
    return table_error_response(exc)


def table_error_response(exc: TableError) -> JSONResponse:
    """What a request refused by a table gets."""
    status = 429 if exc.code in TOO_MANY else 409
    return JSONResponse({"detail": exc.reason, "code": exc.code}, status_code=status)


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    """422 naming the first problem in one line; the offending input is not echoed
    (it may be huge, or not even JSON: ``NaN``)."""
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": e["type"]}
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request", "type": ""}
    if first["type"] == "json_invalid":
        return JSONResponse({"detail": "body: not valid JSON", "errors": errors}, status_code=422)
    where = ".".join(p for p in first["loc"][1:]) or first["loc"][0] if first["loc"] else "request"
    return JSONResponse({"detail": f"{where}: {first['msg']}", "errors": errors}, status_code=422)


def _cluster_lobby(config: ServerConfig, store: Store) -> Lobby:
    """A node of a cluster (imported here: the embedded server never loads Redis)."""
    from .cluster.node import ClusterLobby

    assert config.redis_url is not None
    return ClusterLobby(
        config, store, config.redis_url, config.redis_prefix, lease_ms=config.lease_ms
    )


def queue_backend(config: ServerConfig) -> queue_api.QueueBackend:
    """Where quick match's tickets wait: in the cluster's Redis (every node shares the
    queues), else in this process."""
    if config.redis_url is not None:
        from .redis_queue import RedisQueue

        return RedisQueue.from_url(config.redis_url, prefix=f"{config.redis_prefix}queue:")
    return MemoryQueue()


class Site(FastAPI):
    """The FastAPI application, with the tables' sockets answered before its middleware
    and routing: their frames are the server's busiest path, and need neither (they
    still pass the per-address limits, sharing the API's windows)."""

    table_sockets: ASGIApp | None = None
    #: ``POST /api/tables``'s fast path (it hands what it does not take to FastAPI)
    create_tables: api.CreateTables | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.table_sockets is not None and live.table_path(scope):
            await self.table_sockets(scope, receive, send)
        elif self.create_tables is not None and api.CreateTables.wanted(scope):
            await self.create_tables(scope, receive, send, super().__call__)
        else:
            await super().__call__(scope, receive, send)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The whole server as one ASGI application."""
    config = config or ServerConfig()
    parse_rate(config.http_rate), parse_rate(config.http_write_rate)  # refuse a bad one now
    store = Store(config.db_url)
    lobby = Lobby(config, store) if config.redis_url is None else _cluster_lobby(config, store)
    server = Server(config, store, lobby, TokenSigner(store.secret_key(), config.session_seconds))
    matchmaker = queue_api.Matchmaker(server, queue_backend(config))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metrics.LIVE.lobbies.append(lobby)
        await lobby.start()
        await matchmaker.start()
        # what start-up left alive (modules, the engine's tables: most of the heap) is
        # never walked again by the collector, nor what survives each few seconds after
        # (pauses.py; a cluster node's lobby starts its own)
        pauses = None if config.redis_url is not None else spawn(keep_pauses_short(), "gc")
        try:
            yield
        finally:
            if pauses is not None:
                pauses.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pauses
            analysis = getattr(app.state, "analysis", None)
            if isinstance(analysis, analysis_api.AnalysisService):
                await analysis.stop()
            await matchmaker.stop()
            await lobby.stop()
            metrics.LIVE.lobbies.remove(lobby)

    app = Site(title="Truco Argento", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.server = server
    app.state.lobby = lobby
    app.state.signer = server.signer
    app.state.config = config
    app.state.login_attempts = Attempts(config.login_rate)
    app.state.matchmaker = matchmaker
    app.state.readiness = health.Readiness()
    app.add_exception_handler(TableError, _table_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.include_router(pages)
    app.include_router(health.router)
    app.include_router(api.router)
    app.include_router(accounts_api.router)
    app.include_router(queue_api.router)
    app.include_router(analysis_api.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    addresses = AddressLimits(config.http_rate, config.http_write_rate)
    app.add_middleware(HttpLimits, addresses=addresses)
    app.add_middleware(RequestIds)  # outermost: the limits' refusals have an id too
    limits = HttpLimits(live.TableSockets(server), addresses=addresses)
    app.table_sockets = RequestIds(limits)
    app.create_tables = api.CreateTables(server, addresses, limits.max_body, table_error_response)
    return app
