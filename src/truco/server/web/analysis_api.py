"""Post-game analysis of finished matches, on request, off the tables' path.

``POST /api/matches/{id}/analysis`` asks for it, ``GET`` tells how it goes and gives it
when done. The work (:func:`truco.analysis.analyze`, seconds of CPU) runs in one worker
process fed by a bounded queue: a full queue answers 503 at once instead of piling up,
and no table's actor or the event loop ever runs a search. Finished analyses are kept
in memory (the latest :data:`KEEP`), so asking again is free.
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response

from ...actions import is_say
from ...record import RecordError, record_from_json
from ..guards.limits import Windows
from ..refusals import EVERY_ROUTE, HTTPRefusal, refusals
from ..tasks import spawn
from ..worker_process import exit_with_parent
from .deps import PlayerDep, ServerDep, TableId

router = APIRouter(prefix="/api", responses=EVERY_ROUTE)

#: matches waiting for the worker at most (beyond: 503, try later)
QUEUE_SIZE = 4
#: finished analyses kept in memory
KEEP = 64


def analyze_for_viewer(data: dict[str, Any], worlds: int | None = None) -> dict[str, Any]:
    """The analysis of a stored record as the replay viewer shows it (the same as
    ``truco analyze`` gives for the record: same worlds, same grades); each decision
    and graph point also carries ``replay_step``, the viewer's step where its move is
    made (the step that shows the move, its board before it one step back)."""
    from ...analysis import analyze
    from ...analysis.engine import DEFAULT_WORLDS

    record = record_from_json(data)
    result = analyze(record, worlds=worlds or DEFAULT_WORLDS).to_json()
    steps: dict[tuple[int, int], int] = {}
    index = 0
    for h, hand in enumerate(record.hands):
        index += 1  # the deal
        for k, (_, action) in enumerate(hand.actions):
            if not is_say(action):
                steps[(h, k)] = index
                index += 1
    for item in (*result["decisions"], *result["graph"]):
        item["replay_step"] = steps.get((item["hand"], item["step"]), 0)
    return result


@dataclass(frozen=True, slots=True)
class AnalysisQuota:
    """How many analyses a player may ask for (``rate``), counted in ``windows``."""

    rate: str
    windows: Windows


class AnalysisService:
    """One worker process, a bounded queue of match ids, the finished results."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(QUEUE_SIZE)
        self.status: dict[str, str] = {}  # queued, running, failed
        self.done: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.worker: asyncio.Task[None] | None = None
        self.pool: ProcessPoolExecutor | None = None

    def state(self, match_id: str) -> dict[str, Any]:
        if match_id in self.done:
            return {"status": "done", "analysis": self.done[match_id]}
        return {"status": self.status.get(match_id, "none")}

    def submit(self, match_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """Queue a match (once); raises 503 when the queue is full."""
        if match_id in self.done or self.status.get(match_id) in ("queued", "running"):
            return self.state(match_id)
        try:
            self.queue.put_nowait((match_id, record))
        except asyncio.QueueFull:
            raise HTTPException(503, "the analysis queue is full: try again in a minute") from None
        self.status[match_id] = "queued"
        if self.worker is None or self.worker.done():
            self.worker = spawn(self._work(), "truco-analysis")
        return self.state(match_id)

    async def stop(self) -> None:
        """Cancel the worker and let its process go (the server is stopping)."""
        if self.worker is not None:
            self.worker.cancel()
            await asyncio.gather(self.worker, return_exceptions=True)
            self.worker = None
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        if self.pool is None:
            self.pool = _new_pool()
            atexit.register(self.pool.shutdown, wait=False, cancel_futures=True)
        while True:
            match_id, record = await self.queue.get()
            self.status[match_id] = "running"
            try:
                result = await loop.run_in_executor(self.pool, analyze_for_viewer, record)
            except Exception:  # a broken record or a dead worker: say so, keep serving
                self.status[match_id] = "failed"
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = _new_pool()
            else:
                self.status.pop(match_id, None)
                self.done[match_id] = result
                while len(self.done) > KEEP:
                    self.done.popitem(last=False)
            finally:
                self.queue.task_done()


def _new_pool() -> ProcessPoolExecutor:
    """The analysis worker: spawned (no copy of the server's threads), gone with the server."""
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=exit_with_parent)


def _service(request: Request) -> AnalysisService:
    service: AnalysisService | None = getattr(request.app.state, "analysis", None)
    if service is None:
        service = request.app.state.analysis = AnalysisService()
    return service


async def _finished(server: ServerDep, match_id: str) -> dict[str, Any]:
    rows = await asyncio.to_thread(server.store.load, match_id=match_id, limit=1)
    if not rows or rows[0].record is None:
        raise HTTPException(404, f"no match {match_id!r}")
    if rows[0].status != "finished":
        raise HTTPException(403, "the match is still being played: it is analysed when it ends")
    try:
        record_from_json(rows[0].record)
    except RecordError as exc:
        raise HTTPException(500, f"stored record is broken: {exc}") from None
    return rows[0].record


@router.post(
    "/matches/{table_id}/analysis",
    status_code=202,
    responses={200: {"description": "done already: the analysis"}, **refusals(401, 403, 404, 503)},
)
async def request_analysis(
    table_id: TableId, server: ServerDep, request: Request, response: Response, player: PlayerDep
) -> dict[str, Any]:
    """Queue the analysis of a finished match (200 with it if it is already done). It
    takes a session (a guest's will do), and each player may have ``analysis_rate`` of
    them queued (429 ``analysis_quota`` beyond: asking for one done or queued is free)."""
    service = _service(request)
    if table_id in service.done:
        response.status_code = 200
        return service.state(table_id)
    if service.status.get(table_id) in ("queued", "running"):
        return service.state(table_id)
    record = await _finished(server, table_id)
    quota: AnalysisQuota = request.app.state.analysis_quota
    if not service.queue.full() and not await quota.windows.hit(f"analysis:{player.id}"):
        raise HTTPRefusal(429, "analysis_quota", {"Retry-After": "60"}, rate=quota.rate)
    return service.submit(table_id, record)


@router.get("/matches/{table_id}/analysis")
async def analysis_state(table_id: TableId, request: Request) -> dict[str, Any]:
    """``none``, ``queued``, ``running``, ``failed``, or ``done`` with the analysis."""
    return _service(request).state(table_id)
