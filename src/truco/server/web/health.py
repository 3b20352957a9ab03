"""The operator's routes: health for load balancers, ``GET /healthz`` (the process
answers) and ``GET /readyz`` (this node should be sent players), and ``GET /metrics`` for
Prometheus (:mod:`.metrics`).

Ready means: the database answers; in cluster mode Redis answers and the node's lease
keeper renewed within a lease's time (so it holds its tables and may take more); and the
node is not being stopped. A node told to stop turns unready first (``--drain-seconds``:
it goes on serving meanwhile, so that the balancer sees it and sends nobody new), then
hands its tables over and exits (docs/operations.md, docs/cluster.md).

Neither route is rate-limited (a balancer probes often, from one address); what
``/readyz`` asks of the database and Redis is kept for :data:`CHECK_SECONDS`, so probes
cost one ``SELECT 1`` a second at most, however many arrive.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import text

from .. import metrics
from .deps import ServerDep
from .serving import first_line

router = APIRouter(include_in_schema=False)

#: how long a readiness verdict is reused
CHECK_SECONDS = 1.0
#: the longest a dependency may take to answer before it counts as down
ANSWER_SECONDS = 2.0


class Readiness:
    """Whether this node should take players, checked at most once a second."""

    def __init__(self) -> None:
        self.draining = False
        self._checked_at = -CHECK_SECONDS
        self._checks: dict[str, str] = {}
        self._lock = asyncio.Lock()

    def drain(self) -> None:
        """The node is being stopped: unready from now on."""
        self.draining = True

    async def checks(self, server: Any) -> dict[str, str]:
        """Each dependency's state: ``"ok"`` or why not."""
        async with self._lock:  # one check at a time; the others reuse its verdict
            if time.monotonic() - self._checked_at >= CHECK_SECONDS:
                self._checks = await _check(server)
                self._checked_at = time.monotonic()
        checks = dict(self._checks)
        if self.draining or server.lobby.stopping:
            checks["node"] = "stopping"
        return checks


async def _answers(name: str, work: Any) -> str:
    try:
        await asyncio.wait_for(work, ANSWER_SECONDS)
    except TimeoutError:
        return f"{name} did not answer within {ANSWER_SECONDS:g} s"
    except Exception as exc:  # whatever the driver raises: the node is not ready
        return f"{name}: {first_line(exc)}"
    return "ok"


async def _check(server: Any) -> dict[str, str]:
    def select_one() -> None:
        with server.store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    checks = {
        "database": await _answers("the database", asyncio.to_thread(select_one)),
        "node": "ok",
    }
    lobby = server.lobby
    redis = getattr(lobby, "redis", None)
    if redis is not None:  # a cluster node
        checks["redis"] = await _answers("Redis", redis.ping())
        keeper = getattr(lobby, "keeper", None)
        fresh = keeper is not None and keeper.renewed_within(lobby.lease_ms / 1000)
        checks["leases"] = "ok" if fresh else "not renewed within a lease's time"
    return checks


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process answers (a liveness probe: restart the node when this fails)."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request, server: ServerDep) -> JSONResponse:
    """200 when this node should be sent players, else 503; the body says which check
    failed."""
    readiness: Readiness = request.app.state.readiness
    checks = await readiness.checks(server)
    ready = all(state == "ok" for state in checks.values())
    return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)


@router.get("/metrics")
async def metrics_route(request: Request, server: ServerDep) -> Response:
    """Prometheus' scrape (``Authorization: Bearer <--metrics-token>``); 404 without the
    token or when the server has none, so that the public does not learn it exists."""
    token = server.config.metrics_token
    if not token or not metrics.token_matches(request.headers.get("authorization"), token):
        raise HTTPException(404, "Not Found")
    counts = await request.app.state.matchmaker.backend.counts()
    metrics.LIVE.queued = {str(queue): int(n) for queue, n in counts.items()}
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)
