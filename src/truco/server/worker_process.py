"""What every worker process of the server (the bots' pool, the analysis worker) runs first.

A pool's workers wait on a pipe whose writing end they hold themselves, so they never see
it close: when the server is killed (``kill -9``, the out-of-memory killer) and cannot
shut its pools down, they would wait forever, each holding a bot's memory. A daemon thread
in each worker watches its parent and ends the worker when the parent is gone.
"""

from __future__ import annotations

import os
import threading
import time

#: How often a worker looks at its parent (seconds).
PARENT_POLL_SECONDS = 1.0

_watching = False


def exit_with_parent(poll: float = PARENT_POLL_SECONDS) -> None:
    """Start (once per process) the thread that ends this process when its parent dies."""
    global _watching
    if _watching:
        return
    _watching = True
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(0)  # the parent is gone: nobody is left to take this worker's answers

    threading.Thread(target=watch, name="truco-parent-watch", daemon=True).start()
