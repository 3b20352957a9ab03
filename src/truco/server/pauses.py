"""Short garbage-collection pauses for a server holding many tables (the embedded
server and every node of a cluster).

CPython's full collection walks every tracked object; it runs whenever the objects promoted
since the last one reach a quarter of the heap. A node with a thousand tables holds a few
hundred thousand objects, so that is a pause of tens of milliseconds every few seconds under
load: the p99 of the whole site. So:

- after start-up, everything alive (modules, the engine's tables) is frozen: never walked;
- every :data:`FREEZE_SECONDS` (5 s), what survived since (the young generations collected
  first) is frozen as well, so that a full collection only walks the objects of the last
  few seconds. Every minute was not enough: a node seating and playing 400 tables made a
  minute's worth of objects, and its full collections took 80-260 ms (the p99 of the
  site: 100-230 ms at a p50 of 3-9 ms); with 5 s, p99 25-40 ms. Freezing costs nothing
  per object, and the objects frozen are still freed by their reference counts: only
  cyclic garbage that was alive when frozen waits for the thaw;
- everything is unfrozen and collected once (one longer pause) so that cyclic garbage
  frozen while still in use is freed: once the frozen objects have grown by
  :data:`THAW_GROWTH` times what the last thaw left (so the memory it holds stays
  within that factor of the heap, and the full collections' work stays in proportion to
  what was made, as CPython's own rule does with a quarter), and at least every
  :data:`THAW_SECONDS`. Every closed connection is such garbage (uvicorn's protocols and
  our frame readers refer to themselves): with a thaw every 15 minutes only, a server
  whose tables turn over (``benchmarks/server_load.py``: about 80 connections a second)
  grew by megabytes a second.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("truco.server")

FREEZE_SECONDS = 5.0
THAW_SECONDS = 900.0
THAW_GROWTH = 1.0


class Pauses:
    """The collector's schedule (:meth:`step` every :data:`FREEZE_SECONDS`); see the
    module's docstring."""

    def __init__(
        self,
        thaw_seconds: float = THAW_SECONDS,
        thaw_growth: float = THAW_GROWTH,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.thaw_seconds = thaw_seconds
        self.thaw_growth = thaw_growth
        self.clock = clock
        self.thaws = 0
        gc.collect()
        gc.freeze()
        self.thawed = clock()
        self.baseline = gc.get_freeze_count()  # what the last thaw (or start-up) left

    def step(self) -> None:
        """Collect the young generations, thaw if it is time, freeze the survivors."""
        gc.collect(1)  # (the young cyclic garbage: not frozen)
        gc.freeze()
        now = self.clock()
        grown = gc.get_freeze_count() > self.baseline * (1.0 + self.thaw_growth)
        if grown or now - self.thawed >= self.thaw_seconds:
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            log.info(
                "garbage collection: %d objects freed in %.0f ms",
                found,
                1000 * (time.perf_counter() - started),
            )
            self.thaws += 1
            self.thawed = now
            self.baseline = gc.get_freeze_count()


async def keep_pauses_short(
    freeze_seconds: float = FREEZE_SECONDS,
    thaw_seconds: float = THAW_SECONDS,
    thaw_growth: float = THAW_GROWTH,
) -> None:
    """Run for the life of the server (cancel it to stop); see the module's docstring."""
    pauses = Pauses(thaw_seconds, thaw_growth)
    try:
        while True:
            await asyncio.sleep(freeze_seconds)
            pauses.step()
    finally:
        gc.unfreeze()
