"""Short garbage-collection pauses for a node holding many tables.

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
- every :data:`THAW_SECONDS`, everything is unfrozen and collected once (one longer pause),
  so that cyclic garbage frozen while still in use (a finished table's actor) is freed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("truco.server.cluster")

FREEZE_SECONDS = 5.0
THAW_SECONDS = 900.0


async def keep_pauses_short(
    freeze_seconds: float = FREEZE_SECONDS, thaw_seconds: float = THAW_SECONDS
) -> None:
    """Run for the life of the node (cancel it to stop); see the module's docstring."""
    gc.collect()
    gc.freeze()
    thawed = time.monotonic()
    try:
        while True:
            await asyncio.sleep(freeze_seconds)
            gc.collect(1)  # (the young cyclic garbage: not frozen)
            if time.monotonic() - thawed >= thaw_seconds:
                started = time.perf_counter()
                gc.unfreeze()
                found = gc.collect()
                log.info(
                    "garbage collection: %d objects freed in %.0f ms",
                    found,
                    1000 * (time.perf_counter() - started),
                )
                thawed = time.monotonic()
            gc.freeze()
    finally:
        gc.unfreeze()
