"""A ``--workers`` node whose parent dies stops, and a stop that hangs is cut short
(src/truco/server/cluster/parent.py). The node here is a bare Python process that ignores
SIGTERM: its clean stop never comes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.cluster_testing import running

from truco.server.cluster.parent import PARENT_ENV

NODE = """
import signal, time
from truco.server.cluster import parent
parent.ORPHAN_STOP_SECONDS = 1.0
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a stop that hangs
parent.stop_with_parent()
print("ready", flush=True)
time.sleep(120)
"""

PARENT = f"""
import os, subprocess, sys
env = {{**os.environ, {PARENT_ENV!r}: str(os.getpid())}}
out = open(sys.argv[1], "w")
node = subprocess.Popen([sys.executable, "-c", {NODE!r}], env=env, stdout=out, stderr=out)
print(node.pid, flush=True)
node.wait()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_orphaned_node_whose_stop_hangs_ends_and_says_where_it_stood(tmp_path: Path) -> None:
    output = tmp_path / "node.txt"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(output)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    node = int(parent.stdout.readline())
    try:
        deadline = time.monotonic() + 60
        while "ready" not in output.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running(node)
        parent.kill()  # SIGKILL: the node's SIGTERM is ignored, its stop never ends
        parent.wait(10)
        deadline = time.monotonic() + 30
        while running(node) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(node), output.read_text()
        said = output.read_text()
        assert "still stopping 1 s after its parent died" in said
        # every thread's stack: the main thread stood in the node's sleep (line 8)
        assert 'File "<string>", line 8 in <module>' in said, said
    finally:
        if running(node):
            os.kill(node, signal.SIGKILL)
