"""Cluster nodes as real processes for the tests: ``truco serve --db PG --redis REDIS`` on free
ports, each site with a key prefix of its own (removed afterwards)."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

from tests.server_testing import free_port

REDIS_URL = "redis://127.0.0.1:6379/0"
#: how a node is started: the ``truco`` command of this interpreter
TRUCO = [sys.executable, "-c", "import sys; from truco.cli import main; sys.exit(main())"]
#: the same, as a shell starts a background job: with SIGINT ignored
TRUCO_SIGINT_IGNORED = [
    *TRUCO[:2],
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); " + TRUCO[2],
]


def redis_unreachable() -> str | None:
    """Why Redis cannot be used, or None."""
    try:
        import redis
    except ImportError:
        return "redis-py is not installed (pip install -e '.[cluster]')"
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        return f"Redis at 127.0.0.1:6379 is not reachable: {exc}"
    return None


@contextlib.contextmanager
def redis_prefix() -> Iterator[str]:
    """A random key prefix; every key under it is deleted at the end."""
    import redis

    prefix = f"truco-test-{secrets.token_hex(5)}:"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


def running(pid: int) -> bool:
    """Whether process ``pid`` is alive (a zombie has ended: it only waits to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Node:
    """One ``truco serve`` node process."""

    def __init__(self, db_url: str, prefix: str, *extra: str, sigint_ignored: bool = False) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        truco = TRUCO_SIGINT_IGNORED if sigint_ignored else TRUCO
        command = [
            *truco, "serve", "--db", db_url, "--redis", REDIS_URL, "--redis-prefix", prefix,
            "--port", str(self.port), "--bot-delay", "0", "--turn-seconds", "0",
            "--http-rate", "100000/minute", "--http-write-rate", "100000/minute",
            "--max-tables-per-guest", "1000", "--max-tables-per-address", "100000",
            "--max-sockets-per-address", "0", "--max-sockets-per-player", "0",
            "--bot-workers", "1", *extra,
        ]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        assert self.process.stdout is not None
        started = time.monotonic()
        output = []
        for line in self.process.stdout:  # the server says where to open it once it serves
            output.append(line)
            if "open http" in line:
                break
            if time.monotonic() - started > 60:
                break
        else:
            raise RuntimeError(f"the node did not start:\n{''.join(output)}")
        self.output = output  # what it says afterwards too (read, so that it never blocks)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    def kill(self) -> None:
        """SIGKILL: no goodbye, no release of its leases, nothing flushed."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@contextlib.contextmanager
def nodes(db_url: str, prefix: str, count: int, *extra: str) -> Iterator[list[Node]]:
    """``count`` nodes of one site, stopped at the end."""
    started: list[Node] = []
    try:
        for _ in range(count):
            started.append(Node(db_url, prefix, *extra))
        yield started
    finally:
        for node in started:
            node.stop()


def record_actions(record: dict[str, Any]) -> list[tuple[int, int, str]]:
    """Every action of a record as (hand, seat, token), in order."""
    return [
        (index, int(seat), str(token))
        for index, hand in enumerate(record["hands"])
        for seat, token in hand["actions"]
    ]
