"""HTTP routes and the WebSocket endpoint of the online table.

``create_app(config)`` builds the FastAPI application: the lobby API under ``/api``,
the live table at ``/ws/{table}``, the page at ``/`` (and ``/t/{table}`` for a link to
a table), the card images at ``/cards/{card}.svg``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, HTTPException, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.websockets import WebSocketDisconnect, WebSocketState

from ..record import RecordError, record_from_json, replay
from ..rules import FALTA_ENVIDO_VARIANTS, Rules, RulesError
from .card_art import card_back_svg, card_svg
from .config import ServerConfig
from .limits import TokenBucket
from .lobby import Lobby, bot_levels
from .players import Player, TokenSigner
from .protocol import ProtocolError, error_message, parse_client_message
from .replays import replay_steps
from .store import Store
from .table import Client, Command, Join, Leave, TableError

STATIC = Path(__file__).parent / "static"


class GuestRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(default="", max_length=100)


class CreateTableRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rules: dict[str, Any] = Field(default_factory=dict)
    name: str = Field(default="", max_length=80)
    turn_seconds: float | None = Field(default=None, ge=0, le=600)
    bots: dict[int, str] = Field(default_factory=dict)
    seat: int | None = Field(default=None, ge=0, le=5)


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The whole server as one ASGI application."""
    config = config or ServerConfig()
    store = Store(config.db_url)
    signer = TokenSigner(store.secret_key())
    lobby = Lobby(config, store)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await lobby.start()
        try:
            yield
        finally:
            await lobby.stop()

    app = FastAPI(title="Truco Argento", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.lobby = lobby
    app.state.signer = signer
    app.state.config = config

    def player_of(authorization: str | None) -> Player:
        token = (authorization or "").removeprefix("Bearer ").strip()
        player = signer.verify(token) if token else None
        if player is None:
            raise HTTPException(
                401,
                "a guest token is needed: POST /api/guest, then send 'Authorization: Bearer <token>'",
            )
        return player

    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse({"detail": exc.reason, "code": exc.code}, status_code=409)

    # ------------------------------------------------------------------ page
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/replay/{match_id}", include_in_schema=False)
    async def replay_page(match_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/cards/{name}.svg", include_in_schema=False)
    async def card_image(name: str) -> Response:
        svg = card_back_svg() if name == "back" else card_svg(name)
        if svg is None:
            raise HTTPException(404, f"no card {name!r}")
        return Response(
            svg,
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    # ------------------------------------------------------------------ lobby API
    @app.post("/api/guest")
    async def guest(
        body: GuestRequest, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        """A guest token; with a valid token already, the same player under a new name."""
        known = (
            signer.verify((authorization or "").removeprefix("Bearer ").strip())
            if authorization
            else None
        )
        token = signer.issue(body.name, known.id if known else None)
        player = signer.verify(token)
        assert player is not None
        return {"token": token, "id": player.id, "name": player.name}

    @app.get("/api/me")
    async def me(
        authorization: Annotated[str | None, Header()] = None,
    ) -> dict[str, Any]:
        player = player_of(authorization)
        return {"id": player.id, "name": player.name}

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return {
            "players": [2, 4, 6],
            "flor": [False, True],
            "target": [15, 30],
            "chicos": [1, 3],
            "falta_envido": FALTA_ENVIDO_VARIANTS,
            "con_flor_quiero": [False, True],
            "pica_pica": [False, True],
            "defaults": Rules().to_dict(),
            "bots": bot_levels(),
            "turn_seconds": config.turn_seconds,
        }

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        return lobby.listing()

    @app.post("/api/tables", status_code=201)
    async def create_table(
        body: CreateTableRequest, authorization: Annotated[str | None, Header()] = None
    ) -> dict[str, Any]:
        player = player_of(authorization)
        try:
            rules = Rules.from_dict(body.rules)
        except RulesError as exc:
            raise HTTPException(400, f"rules: {exc}") from None
        table = lobby.create(
            player, rules, body.name.strip(), body.turn_seconds, body.bots, body.seat
        )
        try:  # write-ahead: the table is in the database before anyone hears of it
            await asyncio.wait_for(table.until_durable(), 30)
        except TimeoutError:
            raise HTTPException(503, "the database does not answer: try again later") from None
        return table.summary()

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        table = lobby.tables.get(table_id)
        if table is None:
            raise HTTPException(404, f"no table {table_id!r}")
        return table.summary()

    @app.get("/api/history")
    async def history(limit: int = 50) -> list[dict[str, Any]]:
        rows = await asyncio.to_thread(store.load, unfinished=False, limit=max(1, min(limit, 200)))
        return [
            {
                "id": r.id,
                "name": r.name,
                "rules": r.table["rules"],
                "describe": Rules.from_dict(r.table["rules"]).describe(),
                "seats": [s.get("name", "") for s in r.table["seats"]],
                "winner": r.winner,
                "finished_at": r.updated_at,
                "hands": len(r.record["hands"]) if r.record else 0,
            }
            for r in rows
        ]

    async def finished_record(match_id: str) -> dict[str, Any]:
        rows = await asyncio.to_thread(store.load, match_id=match_id, limit=1)
        if not rows or rows[0].record is None:
            raise HTTPException(404, f"no match {match_id!r}")
        if rows[0].status != "finished":
            raise HTTPException(
                403, "the match is still being played: its record is shown when it ends"
            )
        return rows[0].record

    @app.get("/api/matches/{match_id}/record")
    async def match_record(match_id: str) -> dict[str, Any]:
        return await finished_record(match_id)

    @app.get("/api/matches/{match_id}/replay")
    async def match_replay(match_id: str) -> dict[str, Any]:
        data = await finished_record(match_id)
        try:
            record = record_from_json(data)
        except RecordError as exc:
            raise HTTPException(500, f"stored record is broken: {exc}") from None
        return {
            "record": data,
            "summary": replay(record).to_json(),
            "steps": replay_steps(record),
        }

    # ------------------------------------------------------------------ live table
    @app.websocket("/ws/{table_id}")
    async def table_socket(
        websocket: WebSocket,
        table_id: str,
        token: str | None = None,
        since: int | None = None,
    ) -> None:
        await websocket.accept()
        table = lobby.tables.get(table_id)
        if table is None:
            finished = await asyncio.to_thread(store.load, match_id=table_id, limit=1)
            if finished and finished[0].status == "finished":
                await websocket.close(
                    4410, f"the match is over: its replay is at /replay/{table_id}"
                )
            else:  # a close reason is at most 123 bytes: never echo a long code whole
                await websocket.close(4404, f"no table {table_id[:40]!r}")
            return
        player = signer.verify(token) if token else None
        if token and player is None:
            await websocket.close(4401, "the guest token is not valid: ask for a new one")
            return
        client = Client(player, config.outbox_size)
        sender = asyncio.create_task(_send_loop(websocket, client))
        await table.inbox.put(Join(client, since))
        try:
            await _receive_loop(websocket, client, table.inbox, config)
        finally:
            await table.inbox.put(Leave(client))
            if not client.closed:
                client.close("bye")
            try:
                await asyncio.wait_for(sender, 5)
            except TimeoutError:
                sender.cancel()

    return app


async def _send_loop(websocket: WebSocket, client: Client) -> None:
    """Write the client's outbox to the socket; ``None`` closes it with the reason."""
    try:
        while True:
            text = await client.outbox.get()
            if text is None:
                if websocket.client_state == WebSocketState.CONNECTED:
                    code = 1001 if client.close_reason.startswith("the server") else 1008
                    if client.close_reason == "bye":
                        code = 1000
                    await websocket.close(code, client.close_reason[:120])
                return
            await websocket.send_text(text)
    except (WebSocketDisconnect, RuntimeError, OSError):
        return


async def _receive_loop(
    websocket: WebSocket,
    client: Client,
    inbox: asyncio.Queue[Any],
    config: ServerConfig,
) -> None:
    """Read frames, check size, rate and shape, and pass commands to the table."""
    bucket = TokenBucket(config.rate_per_second, config.rate_burst, time.monotonic())
    strikes = 0
    while not client.closed:
        try:
            frame = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        text = frame.get("text")
        if text is None:
            raw = frame.get("bytes") or b""
            size = len(raw)
        else:
            size = len(text.encode())
        if not bucket.allow(time.monotonic()):
            strikes += 1
            if strikes >= config.max_flood_strikes:
                client.close("flooding: too many messages")
                return
            client.send(
                error_message(
                    "rate_limited",
                    f"too many messages: at most {config.rate_per_second:g} a second",
                )
            )
            continue
        if size > config.max_message_bytes:
            client.send(
                error_message(
                    "too_large",
                    f"message of {size} bytes: the limit is {config.max_message_bytes}",
                )
            )
            continue
        if text is None:
            client.send(error_message("bad_json", "send text frames with JSON, not binary frames"))
            continue
        try:
            message = parse_client_message(text)
        except ProtocolError as exc:
            client.send(error_message(exc.code, exc.reason))
            continue
        await inbox.put(Command(client, message))
