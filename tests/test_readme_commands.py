"""The README's commands, run as a new user would: in one fresh virtual environment
(made once for the module, so the whole file takes a few minutes, not one install per
example).

- "Play": ``pip install -e '.[server]'`` then ``truco serve`` (on a free port and its own
  database file instead of 8000 and ./truco.sqlite3), which must answer the page.
- "Test": ``pip install -e '.[test]'``; the suite itself is not run again from inside the
  suite: ``pytest --collect-only`` proves that every test module imports in the new venv.
- Every example of "Play in the terminal" runs in a real pseudo-terminal (80×24): it must
  draw the table and quit on Ctrl+Q (answering the quit question where a match is on)
  without a traceback. ``--connect`` examples play on a server started from the same venv.
- ``truco replay`` and ``truco bench`` as the engine section shows them.

Without the package index (offline) the installs fail and the module is skipped, saying so.
"""

from __future__ import annotations

import ast
import fcntl
import json
import os
import pty
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
INSTALL_SECONDS = 1500
OFFLINE_SIGNS = (
    "Could not find a version",
    "No matching distribution",
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Network is unreachable",
)


def readme_block(after: str) -> str:
    """The first ``sh`` code block after the heading ``after``."""
    start = README.index(after)
    block = re.search(r"```sh\n(.*?)```", README[start:], re.S)
    assert block is not None, f"no sh block after {after!r}"
    return block.group(1)


def readme_python(after: str) -> str:
    """The first ``python`` code block after the heading ``after``."""
    start = README.index(after)
    block = re.search(r"```python\n(.*?)```", README[start:], re.S)
    assert block is not None, f"no python block after {after!r}"
    return block.group(1)


def readme_commands(after: str) -> list[str]:
    """The ``truco ...`` lines of that block, comments removed."""
    lines = [line.split("#")[0].strip() for line in readme_block(after).splitlines()]
    return [line for line in lines if line.startswith("truco ")]


@dataclass
class Venv:
    path: Path

    def bin(self, name: str) -> str:
        return str(self.path / "bin" / name)


def pip_install(venv: Venv, spec: str) -> None:
    done = subprocess.run(
        [venv.bin("pip"), "install", "-q", "-e", spec],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
    )
    if done.returncode != 0:
        if any(sign in done.stderr for sign in OFFLINE_SIGNS):
            pytest.skip(f"offline: pip cannot reach the package index ({spec})")
        raise AssertionError(f"pip install -e {spec} failed:\n{done.stderr[-3000:]}")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    """One fresh venv with the README's first install (``-e '.[server]'``)."""
    path = tmp_path_factory.mktemp("fresh") / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300)
    fresh = Venv(path)
    pip_install(fresh, ".[server]")
    yield fresh
    shutil.rmtree(path, ignore_errors=True)


def test_the_two_commands_are_the_ones_tested() -> None:
    start = README.index("## Two commands")
    two = README[start : README.index("\n## ", start + 1)]
    assert (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[server]' && .venv/bin/truco serve"
        in two
    )
    assert (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
        in two
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``truco serve`` from the fresh venv, on a free port."""

    def __init__(self, venv: Venv, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        db = f"sqlite:///{workdir / 'serve.sqlite3'}"
        self.proc = subprocess.Popen(
            [venv.bin("truco"), "serve", "--port", str(self.port), "--db", db, "--bot-delay", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=workdir,
        )
        assert self.proc.stdout is not None
        self.first_line = self.proc.stdout.readline().strip()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def test_play_installs_and_serves(venv: Venv, tmp_path: Path) -> None:
    server = Server(venv, tmp_path)
    try:
        assert server.first_line == (
            f"Truco Argento: open {server.url}/ in a browser (Ctrl+C stops)"
        ), server.proc.stderr.read() if server.proc.poll() is not None else ""
        with urllib.request.urlopen(server.url + "/", timeout=30) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
    finally:
        server.stop()


def test_the_test_command_installs_and_collects_the_suite(venv: Venv) -> None:
    pip_install(venv, ".[test]")
    done = subprocess.run(
        [venv.bin("python"), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    per_file = dict(re.findall(r"^(\S+\.py): (\d+)$", done.stdout, re.M))  # "-q -q" counts
    assert sum(int(n) for n in per_file.values()) > 300, done.stdout[-500:]
    assert "tests/test_readme_commands.py" in per_file


@pytest.mark.parametrize("section", ["### Build on the engine", "### Pit bots against each other"])
def test_every_command_of_the_engine_and_the_bots_runs(
    venv: Venv, tmp_path: Path, section: str
) -> None:
    """Each ``truco`` line of the section, in order, in a working directory where the
    repository's ``tests/records`` are where the README says (the arena's records feed the
    analysis)."""
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    commands = readme_commands(section)
    assert commands
    for command in commands:
        done = subprocess.run(
            [venv.bin("truco"), *command.split()[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"
        assert done.stdout.strip() and "Traceback" not in done.stderr, command
        if command.startswith("truco replay"):
            assert json.loads(done.stdout)["hands"]
        if command.startswith("truco bench"):
            assert "hands/s" in done.stdout


def test_the_engine_example_runs(venv: Venv, tmp_path: Path) -> None:
    """The Python of "Build on the engine", as it is printed: the seat's legal actions as
    tokens, then the mazo played by the same seat."""
    code = readme_python("### Build on the engine")
    done = subprocess.run(
        [venv.bin("python"), "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    legal = ast.literal_eval(done.stdout.strip())
    assert isinstance(legal, list) and "mazo" in legal and any(a.startswith("play ") for a in legal)


# ---------------------------------------------------------------------------- the terminal


def run_in_terminal(argv: list[str], cwd: Path, *, quit_keys: bytes, seconds: float = 120) -> str:
    """Run ``argv`` on a pseudo-terminal of 80×24; once the table is drawn, type
    ``quit_keys``; return everything it drew (it must exit by itself, status 0)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "COLUMNS": "80",
        "LINES": "24",
    }
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
    )
    os.close(slave)
    output = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            output.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    deadline = time.monotonic() + seconds
    try:
        while b"Truco Argento" not in output and proc.poll() is None:
            assert time.monotonic() < deadline, f"{argv}: no table drawn"
            time.sleep(0.2)
        time.sleep(1.0)  # let the bots move a little
        for key in quit_keys:
            try:
                os.write(master, bytes([key]))
            except OSError:  # it already quit (nothing to confirm)
                break
            time.sleep(0.5)
        proc.wait(timeout=max(5.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reader.join(timeout=5)
        os.close(master)
    text = output.decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert proc.returncode == 0, (argv, proc.returncode, text[-2000:])
    return text


CTRL_Q = b"\x11"


@pytest.fixture(scope="module")
def tui_venv(venv: Venv) -> Venv:
    pip_install(venv, ".[server,tui]")
    return venv


def test_every_terminal_example_runs(tui_venv: Venv, tmp_path: Path) -> None:
    examples = readme_commands("### Play in the terminal")
    assert len(examples) >= 8
    record = next(e for e in examples if e.startswith("truco show ")).split()[2]
    shutil.copy(ROOT / "tests" / "records" / "02_envido_then_truco.json", tmp_path / record)
    server = Server(tui_venv, tmp_path)
    try:
        assert server.first_line.startswith("Truco Argento: open"), server.first_line
        for example in examples:
            if "/t/abc123" in example:  # a table made just now, waiting with seat 0 free
                table = create_table(server.url)
                example = example.replace("/t/abc123", f"/t/{table}")
            line = example
            line = line.replace("http://127.0.0.1:8000", server.url)
            argv = [tui_venv.bin("truco"), *line.split()[1:]]
            if " --seed" not in line and line.split()[1] in ("play", "watch"):
                argv += ["--seed", "1"]
            # a match on: Ctrl+Q asks, "q" quits; a record quits at once; at a server's
            # table Ctrl+Q asks too (the server keeps the match)
            keys = CTRL_Q if line.split()[1] == "show" else CTRL_Q + b"q"
            drawn = run_in_terminal(argv, tmp_path, quit_keys=keys)
            assert "Truco Argento" in drawn, example
    finally:
        server.stop()


def create_table(url: str) -> str:
    """A 2v2 table on the server with bots in seats 1-3, seat 0 left free."""

    def post(path: str, body: dict[str, object], token: str | None = None) -> dict[str, object]:
        request = urllib.request.Request(
            url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"}
            | ({"Authorization": f"Bearer {token}"} if token else {}),
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            result: dict[str, object] = json.loads(answer.read())
            return result

    token = str(post("/api/guest", {"name": "Ana"})["token"])
    rules = {"players": 4, "flor": False, "target": 30, "chicos": 1}
    body = {"rules": rules, "bots": {"1": "random", "2": "random", "3": "random"}}
    body["name"] = "README"
    return str(post("/api/tables", body, token)["id"])
