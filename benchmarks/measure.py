"""What the server benchmarks (``server_load.py``, ``cluster.py``) read the same way: a
process's CPU time, latency percentiles, and a py-spy profile of a running process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a live process (all its threads) so far."""
    user, system = cpu_split(pid)
    return user + system


def cpu_split(pid: int) -> tuple[float, float]:
    """User and system (kernel: sockets, wakeups) CPU seconds of a live process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS


def percentile(values: list[float], p: float) -> float | None:
    """The ``p`` quantile (0..1) of ``values``, rounded to 0.01; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


def py_spy() -> str:
    """The py-spy beside this Python (``pip install py-spy``), else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "py-spy")
    found = here if os.path.exists(here) else shutil.which("py-spy")
    if found is None:
        raise SystemExit("--profile needs py-spy: pip install py-spy")
    return found


def profile(pid: int, path: str, seconds: float, native: bool = False) -> subprocess.Popen[bytes]:
    """Sample the thread holding ``pid``'s GIL for ``seconds`` into ``path`` (collapsed
    stacks, one per line: flamegraph.pl or speedscope read them); ``native``: C frames too."""
    command = [py_spy(), "record", "--gil", "-f", "raw", "-r", "250", "-d", str(int(seconds))]
    if native:
        command.append("--native")
    command += ["-o", path, "-p", str(pid)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
