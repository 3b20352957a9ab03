"""Short garbage-collection pauses for a server holding many tables (the embedded
server and every node of a cluster).

CPython's collections walk every tracked object of the generations they collect. A node
with a thousand tables holds a few hundred thousand objects, and keeps replacing them by new
ones (each action's state, views, frames...), so without care every collection is a pause of
tens of milliseconds: the p99 of the site. So:

- after start-up, everything alive (modules, the engine's tables) is frozen: never walked;
- every :data:`FREEZE_SECONDS` (0.1 s) the young generations are collected and what
  survived is frozen as well, so that every collection walks at most the last tenth of a
  second's objects. Freezing costs nothing per object, and frozen objects are still freed
  by their reference counts: only cyclic garbage that was alive when frozen waits for a
  thaw. Freezing every 5 s left the young generations to grow: CPython starts a collection
  when 700 more objects were allocated than freed, and freeing old (even frozen) objects
  counts, so at 400-1,000 tables collections of the young generations took 10-70 ms about
  once a second (at 400 tables: 19 of them in 15 s, 17.7 ms each; freezing every 0.1 s: 138,
  1.7 ms each, none over 20 ms). Every minute, before that, left full collections of
  80-260 ms at 400 tables;
- everything is unfrozen and collected once (one longer pause, logged) every
  :data:`THAW_SECONDS`, so that cyclic garbage frozen while in use is freed after all.
  There is little of it: a thaw after minutes at 400-1,000 tables freed 70-150 objects
  (``TRUCO_GARBAGE=1`` counts it by type).
  An optional growth rule (``thaw_growth``: a thaw once the frozen heap has grown by that
  factor) thawed whenever the heap doubled; while tables are being added it doubles
  legitimately, and those thaws walked everything: 224-637 ms pauses. It is off by default.

``TRUCO_STALLS=FILE`` turns on a probe (:class:`StallProbe`) that writes every collection and
every late turn of the event loop over 20 ms to FILE (``benchmarks/cluster.py --stalls``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Callable

from .tasks import spawn

log = logging.getLogger("truco.server")

FREEZE_SECONDS = 0.1
CHECK_SECONDS = 5.0
THAW_SECONDS = 900.0
#: thaw once the frozen heap has grown by this factor of what the last thaw left (None: no)
THAW_GROWTH: float | None = None


class Pauses:
    """The collector's schedule (:meth:`step` every :data:`FREEZE_SECONDS`); see the
    module's docstring."""

    def __init__(
        self,
        thaw_seconds: float = THAW_SECONDS,
        thaw_growth: float | None = THAW_GROWTH,
        clock: Callable[[], float] = time.monotonic,
        check_seconds: float = CHECK_SECONDS,
    ) -> None:
        self.thaw_seconds = thaw_seconds
        self.thaw_growth = thaw_growth
        self.check_seconds = check_seconds
        self.clock = clock
        self.thaws = 0
        gc.collect()
        gc.freeze()
        self.thawed = self.checked = clock()
        self.baseline = gc.get_freeze_count()  # what the last thaw (or start-up) left
        self.last_thaw: tuple[int, float] | None = None  # objects freed, seconds taken

    def step(self) -> None:
        """Collect the young generations, freeze the survivors, thaw if it is time (the
        frozen heap is counted every :data:`CHECK_SECONDS`: counting walks it)."""
        gc.collect(1)  # (the young cyclic garbage: not frozen)
        gc.freeze()
        now = self.clock()
        grown = False
        if self.thaw_growth is not None and now - self.checked >= self.check_seconds:
            self.checked = now
            grown = gc.get_freeze_count() > self.baseline * (1.0 + self.thaw_growth)
        if grown or now - self.thawed >= self.thaw_seconds:
            self.thaw()
            self.thawed = now

    def thaw(self) -> int:
        """Unfreeze and collect everything once (the cyclic garbage frozen while alive);
        how many objects were freed."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        took = time.perf_counter() - started
        log.info("garbage collection: %d objects freed in %.0f ms", found, 1000 * took)
        self.thaws += 1
        self.baseline = gc.get_freeze_count()
        self.last_thaw = (found, took)
        return found


def _knobs() -> dict[str, float]:
    """(Measurement) ``TRUCO_GC=freeze=0.1,growth=1,thaw=900``: the schedule's figures."""
    knobs = {}
    for item in os.environ.get("TRUCO_GC", "").split(","):
        if "=" in item:
            name, value = item.split("=", 1)
            knobs[name.strip()] = float(value)
    return knobs


async def keep_pauses_short(
    freeze_seconds: float = FREEZE_SECONDS,
    thaw_seconds: float = THAW_SECONDS,
    thaw_growth: float | None = THAW_GROWTH,
) -> None:
    """Run for the life of the server (cancel it to stop); see the module's docstring."""
    path = os.environ.get(STALLS_ENV)
    probe = StallProbe(path) if path else None
    stamping = spawn(probe.stamp(), name="stall-probe") if probe else None
    census = probe is not None and os.environ.get("TRUCO_GARBAGE") == "1"
    knobs = _knobs()
    freeze_seconds = knobs.get("freeze", freeze_seconds)
    pauses = Pauses(knobs.get("thaw", thaw_seconds), knobs.get("growth", thaw_growth))
    if census:
        gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        while True:
            await asyncio.sleep(freeze_seconds)
            if census and probe is not None:
                probe.census()
            pauses.step()
    finally:
        gc.set_debug(0)
        if probe is not None:  # what was frozen garbage since the last thaw
            probe.write(
                kind="final", thaws=pauses.thaws, age=round(time.monotonic() - pauses.thawed),
                frozen=gc.get_freeze_count(), freed=pauses.thaw(),
                ms=round(1000 * (pauses.last_thaw or (0, 0.0))[1]),
            )  # fmt: skip
        gc.unfreeze()
        if probe is not None and stamping is not None:
            stamping.cancel()
            probe.stop()


# ---------------------------------------------------------------- the stall probe (opt-in)
#: ``TRUCO_STALLS=FILE`` (read by :func:`keep_pauses_short`): every collection and every late
#: turn of the event loop longer than :data:`STALL_MS` is appended to FILE, one JSON line each
STALLS_ENV = "TRUCO_STALLS"
STALL_MS = 20.0


class StallProbe:
    """Where the loop's time goes when it is late (measurement only, off by default).

    - every collection is timed (``gc.callbacks``): ``{"kind": "gc", "gen", "ms",
      "collected"}`` when longer than :data:`STALL_MS`, and totals per generation;
    - a task stamps the time every few milliseconds, and a thread looks at the stamp as
      often: when it is late by more than :data:`STALL_MS` the thread takes the main
      thread's stack (``sys._current_frames``) each time it looks, and once the loop is back
      writes ``{"kind": "loop", "ms", "stacks": {stack: samples}}`` (a collection, which holds
      the interpreter, shows as the stack that allocated when it began, and as a ``gc`` line).
    """

    def __init__(self, path: str, stall_ms: float = STALL_MS, every: float = 0.01) -> None:
        import threading

        self.path = path
        self.stall = stall_ms / 1000
        self.every = every
        self.file = open(path, "a", buffering=1)  # noqa: SIM115 (closed by stop)
        self.beat = self.counted = time.monotonic()
        self.gc_started = self.gc_cpu = 0.0
        #: per generation: collections, seconds (wall), seconds (this thread's CPU: what a
        #: loaded machine does not inflate)
        self.gc_totals = {g: [0, 0.0, 0.0] for g in (0, 1, 2)}
        self.main = threading.get_ident()
        self.running = True
        self.thread = threading.Thread(target=self._watch, name="stall-probe", daemon=True)
        gc.callbacks.append(self._collected)
        self.thread.start()

    def write(self, **line: object) -> None:
        import json

        self.file.write(json.dumps({"t": round(time.time(), 3), **line}) + "\n")

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.gc_started, self.gc_cpu = time.perf_counter(), time.thread_time()
            return
        took = time.perf_counter() - self.gc_started
        cpu = time.thread_time() - self.gc_cpu
        totals = self.gc_totals[info["generation"]]
        totals[0] += 1
        totals[1] += took
        totals[2] += cpu
        if took > self.stall:
            self.write(
                kind="gc", gen=info["generation"], ms=round(1000 * took, 1),
                cpu_ms=round(1000 * cpu, 1),
                collected=info["collected"], frozen=gc.get_freeze_count(),
                counts=gc.get_count(),
            )  # fmt: skip

    async def stamp(self) -> None:
        while True:
            self.beat = time.monotonic()
            await asyncio.sleep(self.every)

    def _watch(self) -> None:
        import sys
        import traceback
        from collections import Counter

        stacks: Counter[str] = Counter()
        late_since = 0.0
        last_totals = time.monotonic()
        while self.running:
            time.sleep(self.every)
            now = time.monotonic()
            late = now - self.beat > self.stall + self.every
            if late:
                if not late_since:
                    late_since = self.beat
                frame = sys._current_frames().get(self.main)
                if frame is not None:
                    summary = traceback.extract_stack(frame)[-12:]
                    stacks[
                        " < ".join(
                            f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno} {f.name}"
                            for f in reversed(summary)
                        )
                    ] += 1
            elif late_since:
                self.write(
                    kind="loop", ms=round(1000 * (self.beat - late_since), 1),
                    stacks=dict(stacks.most_common(5)),
                )  # fmt: skip
                stacks.clear()
                late_since = 0.0
            if now - last_totals >= 5.0:
                last_totals = now
                self.write(
                    kind="totals",
                    gc={
                        g: [int(n), round(1000 * s, 1), round(1000 * c, 1)]
                        for g, (n, s, c) in self.gc_totals.items()
                    },
                    frozen=gc.get_freeze_count(),
                    counts=gc.get_count(),
                )

    def census(self) -> None:
        """(``TRUCO_GARBAGE=1`` too) What the collector found since the last census, by type,
        the frozen heap included (unfrozen for it): everything it finds is kept
        (``gc.DEBUG_SAVEALL``) until then, counted, then freed. Every second at most: it
        walks the whole heap twice."""
        from collections import Counter

        if time.monotonic() - self.counted < 1.0:
            return
        gc.unfreeze()
        gc.collect()
        found = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
        where: Counter[str] = Counter()  # where the frames and exceptions found come from
        for o in gc.garbage:
            if isinstance(o, BaseException):
                where[f"{type(o).__name__}: {str(o)[:60]}"] += 1
            elif type(o).__name__ == "frame":
                code = o.f_code
                where[f"frame {code.co_filename.rsplit('/', 2)[-1]}:{code.co_name}"] += 1
        self.write(
            kind="garbage", objects=len(gc.garbage), types=dict(found.most_common(25)),
            where=dict(where.most_common(15)),
        )  # fmt: skip
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        self.counted = time.monotonic()

    def stop(self) -> None:
        self.running = False
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        self.thread.join()
        self.file.close()
