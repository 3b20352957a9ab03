"""A server killed with ``kill -9`` leaves no worker process behind.

The bots' pool and the analysis worker are spawned process pools; their workers wait on a
pipe they hold both ends of, so without :func:`truco.server.worker_process.exit_with_parent`
they outlived a killed server forever (found after the README test's ``truco serve``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from truco.server import worker_process

# A stand-in server: a spawned pool like the server's, its worker pids printed, then asleep.
SERVER = """
import concurrent.futures, multiprocessing, os, sys, time
from truco.server.table.bot_pool import _warm_up
from truco.server.web.analysis_api import _new_pool

if __name__ == "__main__":
    bots = concurrent.futures.ProcessPoolExecutor(
        2, mp_context=multiprocessing.get_context("spawn"), initializer=_warm_up
    )
    analysis = _new_pool()
    pids = {bots.submit(os.getpid).result() for _ in range(4)}
    pids.add(analysis.submit(os.getpid).result())
    print(" ".join(map(str, sorted(pids))), flush=True)
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead too: it only waits for its (new) parent to collect it
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to tell zombies apart")
def test_pool_workers_end_when_the_server_is_killed() -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert server.stdout is not None
        workers = [int(pid) for pid in server.stdout.readline().split()]
        assert len(workers) >= 2, workers  # some bot workers and the analysis worker
        assert all(_alive(pid) for pid in workers)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 10 * worker_process.PARENT_POLL_SECONDS + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [pid for pid in workers if _alive(pid)]
        assert not left, f"workers outlived the killed server: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)  # whatever is left of the group
