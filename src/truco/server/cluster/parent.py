"""A node started by ``truco serve --workers N`` stops when its parent does, even when the
parent is SIGKILLed and cannot tell it: no orphan node goes on holding the port and leases.

On Linux the kernel sends the node SIGTERM when its parent dies (``PR_SET_PDEATHSIG``), which
stops it like a Ctrl+C (its tables committed, their leases released). Elsewhere, or if that
call fails, a thread that polls the parent's pid once a second sends it. Either way the same
thread gives that stop :data:`ORPHAN_STOP_SECONDS`: a node whose stop hangs (a peer that
never answers) prints where each of its threads stands and ends at once, as after a kill -9,
which the cluster survives (its leases expire and another node takes its tables).
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import os
import signal
import sys
import threading
import time

#: the environment variable through which ``--workers`` tells a node its parent's pid
PARENT_ENV = "TRUCO_WORKERS_PARENT"
#: how long an orphaned node may take to stop cleanly (uvicorn gives connections 15 s)
ORPHAN_STOP_SECONDS = 30.0
_PR_SET_PDEATHSIG = 1


def stop_with_parent() -> None:
    """If this process is a ``--workers`` node, make it stop (SIGTERM) when its parent dies."""
    parent = os.environ.pop(PARENT_ENV, None)
    if parent is None:
        return
    signalled = sys.platform.startswith("linux") and _kernel_watch()
    threading.Thread(
        target=_watch, args=(int(parent), not signalled), name="truco-parent", daemon=True
    ).start()
    if os.getppid() != int(parent):  # the parent died before the watch began
        os.kill(os.getpid(), signal.SIGTERM)


def _kernel_watch() -> bool:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0)
    return False


def _watch(parent: int, send_sigterm: bool, poll: float = 1.0) -> None:
    while os.getppid() == parent:
        time.sleep(poll)
    if send_sigterm:
        os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_STOP_SECONDS)
    print(
        f"truco serve: node {os.getpid()} still stopping {ORPHAN_STOP_SECONDS:g} s after its "
        "parent died; its threads:",
        file=sys.stderr,
        flush=True,
    )
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    os._exit(1)
