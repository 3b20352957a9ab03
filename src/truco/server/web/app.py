"""The online table as one ASGI application.

``create_app(config)`` assembles it: the lobby API under ``/api`` (:mod:`.api`), the
live table at ``/ws/{table}`` (:mod:`.live`), the page at ``/`` (and ``/t/{table}``,
``/replay/{match}``), the card images at ``/cards/{card}.svg``; per-address rate limits
in front of the API and the sockets (:class:`~.limits.HttpLimits`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from limits import RateLimitItem
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import metrics
from ..config import ServerConfig
from ..guards.limits import AddressLimits, HttpLimits, LocalWindows, Windows, parse_rate
from ..guards.socket_caps import SocketCaps
from ..lobby.matchmaking import MemoryQueue
from ..lobby.tables import Lobby
from ..lobby.tournaments.director import Director
from ..logs import RequestIds
from ..pauses import keep_pauses_short
from ..people import accounts, moderation
from ..people.accounts import AccountError
from ..people.friends import FriendError
from ..people.players import TokenSigner
from ..people.session_store import Sessions
from ..refusals import http_refusal, invalid_request, refusal_response
from ..storage.store import Store
from ..table import TableError
from ..tasks import spawn
from . import (
    accounts_api,
    analysis_api,
    challenges_api,
    friends_api,
    health,
    howto,
    live,
    moderation_api,
    notices_api,
    queue_api,
    tournaments_api,
)
from . import (
    tables_api as api,
)
from .card_art import card_back_svg, card_svg
from .deps import ID_RE, NO_SESSION, NoSession, Server, ServerDep

if TYPE_CHECKING:
    from ..cluster.shared_limits import RedisCounts

STATIC = Path(__file__).parents[1] / "static"
#: table refusals that are about how much a guest asks for, not about the request
TOO_MANY = frozenset({"too_many_tables", "too_many_from_address", "full"})

pages = APIRouter(include_in_schema=False)


@pages.get("/")
@pages.get("/ranking")
@pages.get("/como-se-juega")
@pages.get("/how-to-play")
@pages.get("/amigos")
@pages.get("/torneos")
@pages.get("/desafio/{challenge_id}")
@pages.get("/torneos/{tournament_id}")
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
    return refusal_response(status, exc.refusal)


async def _no_session(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(NO_SESSION, status_code=401)


def _cluster_lobby(config: ServerConfig, store: Store) -> Lobby:
    """A node of a cluster (imported here: the embedded server never loads Redis)."""
    from ..cluster.node import ClusterLobby

    assert config.redis_url is not None
    return ClusterLobby(
        config, store, config.redis_url, config.redis_prefix, lease_ms=config.lease_ms
    )


def _shared_limits(
    config: ServerConfig, lobby: Lobby
) -> tuple[Callable[[RateLimitItem], Windows], RedisCounts | None]:
    """Where the per-address windows and the open sockets are counted: in this process,
    or on a cluster in its Redis, so that every node counts the same
    (:mod:`.cluster.shared_limits`)."""
    if config.redis_url is None:
        return LocalWindows, None
    from ..cluster.node import ClusterLobby
    from ..cluster.shared_limits import RedisCounts, redis_windows

    assert isinstance(lobby, ClusterLobby)
    windows = redis_windows(config.redis_url, config.redis_prefix)
    return windows, RedisCounts(config.redis_url, config.redis_prefix, lobby.node)


def queue_backend(config: ServerConfig) -> queue_api.QueueBackend:
    """Where quick match's tickets wait: in the cluster's Redis (every node shares the
    queues), else in this process."""
    if config.redis_url is not None:
        from ..lobby.redis_queue import RedisQueue

        return RedisQueue.from_url(config.redis_url, prefix=f"{config.redis_prefix}queue:")
    return MemoryQueue()


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The whole server as one ASGI application."""
    config = config or ServerConfig()
    for rate in (config.http_rate, config.http_write_rate, config.analysis_rate):
        parse_rate(rate)  # refuse a bad one now
    store = Store(config.db_url)
    lobby = Lobby(config, store) if config.redis_url is None else _cluster_lobby(config, store)
    windows, counts = _shared_limits(config, lobby)
    sockets = SocketCaps(config.max_sockets_per_address, config.max_sockets_per_player, counts)
    sessions = Sessions(
        store,
        TokenSigner(store.secret_key()),
        config.session_seconds,
        config.session_max_seconds,
        config.session_recheck_seconds,
    )
    server = Server(config, store, lobby, sessions, sockets)
    matchmaker = queue_api.Matchmaker(server, queue_backend(config))
    sessions.on_ended_elsewhere = functools.partial(
        moderation_api.expel_if_banned, server, matchmaker
    )
    relay = getattr(lobby, "relay_notices", None)
    if relay is not None:  # a cluster node: notices go to the other nodes and come from them
        server.notices.relay = relay
        lobby.on_notices = server.notices.deliver  # type: ignore[attr-defined]  # (ClusterLobby)
    director = Director(server)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        metrics.LIVE.lobbies.append(lobby)
        await lobby.start()
        await matchmaker.start()
        await director.start()
        sessions.start()
        # what start-up left alive (modules, the engine's tables: most of the heap) is
        # never walked again by the collector, nor what survives each few seconds after
        # (pauses.py; a cluster node's lobby starts its own)
        pauses = None if config.redis_url is not None else spawn(keep_pauses_short(), "gc")
        renewer = None if counts is None else spawn(counts.renew_forever(), "socket-counts")
        try:
            yield
        finally:
            if renewer is not None and counts is not None:
                renewer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewer
                await counts.close()
            if pauses is not None:
                pauses.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pauses
            analysis = getattr(app.state, "analysis", None)
            if isinstance(analysis, analysis_api.AnalysisService):
                await analysis.stop()
            await sessions.stop()
            await director.stop()
            await matchmaker.stop()
            await lobby.stop()
            metrics.LIVE.lobbies.remove(lobby)

    app = FastAPI(title="Truco Argento", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.server = server
    app.state.lobby = lobby

    def shut_down() -> None:
        """The server begins to stop: the notice streams end, the tables stop."""
        server.notices.close()
        lobby.shut_down()

    app.state.shut_down = shut_down
    app.state.config = config
    app.state.login_guard = accounts_api.LoginGuard(
        config.login_rate, config.password_workers, config.login_free_failures
    )
    analysis_rate = parse_rate(config.analysis_rate)
    app.state.analysis_quota = analysis_api.AnalysisQuota(
        config.analysis_rate, windows(analysis_rate)
    )
    app.state.matchmaker = matchmaker
    app.state.director = director
    app.state.readiness = health.Readiness()
    app.state.address_bans = moderation.AddressBans(store.engine, config.session_recheck_seconds)
    app.add_exception_handler(TableError, _table_error)
    app.add_exception_handler(AccountError, accounts_api.account_refusal)
    app.add_exception_handler(NoSession, _no_session)
    app.add_exception_handler(FriendError, friends_api.friend_refusal)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(StarletteHTTPException, http_refusal)
    app.include_router(pages)
    app.include_router(health.router)
    app.include_router(api.router)
    app.include_router(accounts_api.router)
    app.include_router(queue_api.router)  # /ws/queue, before the tables' /ws/{table}
    app.include_router(live.router)
    app.include_router(analysis_api.router)
    app.include_router(howto.router)
    app.include_router(moderation_api.router)
    app.include_router(moderation_api.pages)
    app.include_router(friends_api.router)
    app.include_router(challenges_api.router)
    app.include_router(tournaments_api.router)
    app.include_router(notices_api.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    addresses = AddressLimits(config.http_rate, config.http_write_rate, windows)
    max_body, body_seconds = config.max_body_bytes, config.body_seconds
    app.add_middleware(
        HttpLimits,
        addresses=addresses,
        sockets=sockets,
        max_body=max_body,
        body_seconds=body_seconds,
    )
    app.add_middleware(RequestIds)  # outermost: the limits' refusals have an id too
    return app
