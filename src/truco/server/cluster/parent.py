"""A node started by ``truco serve --workers N`` stops when its parent does, even when the
parent is SIGKILLed and cannot tell it: no orphan node goes on holding the port and leases.

On Linux the kernel sends the node SIGTERM when its parent dies (``PR_SET_PDEATHSIG``), which
stops it like a Ctrl+C (its tables committed, their leases released). Elsewhere, or if that
call fails, a thread polls the parent's pid once a second and does the same.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

#: the environment variable through which ``--workers`` tells a node its parent's pid
PARENT_ENV = "TRUCO_WORKERS_PARENT"
_PR_SET_PDEATHSIG = 1


def stop_with_parent() -> None:
    """If this process is a ``--workers`` node, make it stop (SIGTERM) when its parent dies."""
    parent = os.environ.pop(PARENT_ENV, None)
    if parent is None:
        return
    if not (sys.platform.startswith("linux") and _kernel_watch()):
        threading.Thread(target=_poll, args=(int(parent),), daemon=True).start()
    if os.getppid() != int(parent):  # the parent died before the watch began
        os.kill(os.getpid(), signal.SIGTERM)


def _kernel_watch() -> bool:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0)
    return False


def _poll(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGTERM)
