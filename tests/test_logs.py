"""The server's log: ``--log-format json`` writes one JSON object per line, each saying
what it is about (request id, table, node), and no line carries a password, a token or a
session cookie, whatever the requests held."""

from __future__ import annotations

import json
import logging
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from tests.server_testing import TableClient, create_table, free_port, play_out

from truco.server.logs import Secrets, about, scrub

PASSWORD = "correct-horse-battery-9"


def serve(tmp_path: Path, *flags: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "truco.cli", "serve", "--port", str(port),
         "--db", f"sqlite:///{tmp_path / 'logs.sqlite3'}", "--bot-delay", "0",
         "--turn-seconds", "0", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            httpx.get(f"{base}/healthz", timeout=1)
            return process, base
        except httpx.HTTPError:
            assert process.poll() is None, process.communicate()[1]
            time.sleep(0.05)
    raise AssertionError("truco serve did not start")


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=60)
    return errors


def test_json_lines_say_what_they_are_about_and_hold_no_secret(tmp_path: Path) -> None:
    process, base = serve(tmp_path, "--log-format", "json", "--log-level", "info")
    secrets: list[str] = [PASSWORD]
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            guest = http.post(
                "/api/guest", json={"name": "Ana"}, headers={"X-Request-ID": "probe-1"}
            )
            assert guest.headers["x-request-id"] == "probe-1"
            secrets += [guest.json()["token"], http.cookies["truco_session"]]
            http.post("/api/accounts", json={"name": "Berta", "password": PASSWORD})
            login = http.post("/api/login", json={"name": "Berta", "password": PASSWORD})
            secrets.append(login.json().get("token", PASSWORD))
            http.post("/api/login", json={"name": "Berta", "password": PASSWORD + "x"})
            http.get("/api/me", headers={"Authorization": f"Bearer {secrets[1]}x"})
            http.get("/api/me", params={"token": secrets[1]})  # a token where none belongs
        token = secrets[1]
        table = create_table(
            base, token, rules={"players": 2, "target": 15}, seat=0, bots={"1": "random"}
        )
        client = TableClient(base.replace("http", "ws"), table["id"], token)
        client.send("{not json")
        rng = random.Random(1)
        play_out([client], lambda c, view: rng.choice(view["legal"]))
        client.until(lambda m: m["view"] is not None and m["view"]["winner"] is not None)
        client.close()
    finally:
        errors = stop(process)
    lines = [json.loads(line) for line in errors.splitlines() if line.strip()]  # every one JSON
    assert lines
    for line in lines:
        assert {"time", "level", "logger", "message"} <= set(line)
        text = json.dumps(line)
        for secret in secrets:
            assert secret not in text, line
    access = [line for line in lines if line["logger"] == "truco.server.access"]
    assert any(
        line["request_id"] == "probe-1" and "POST /api/guest 200" in line["message"]
        for line in access
    )
    assert all(len(line["request_id"]) >= 8 for line in access if line["request_id"] != "probe-1")
    assert {line.get("table") for line in lines if line["message"] == "match over"} == {table["id"]}


def test_the_plain_log_is_the_default_and_names_its_context(tmp_path: Path) -> None:
    process, base = serve(tmp_path, "--log-level", "info")
    try:
        httpx.get(f"{base}/healthz", headers={"X-Request-ID": "plain-1"}, timeout=10)
    finally:
        errors = stop(process)
    assert any(
        "INFO truco.server.access: GET /healthz 200" in line and "[request_id=plain-1]" in line
        for line in errors.splitlines()
    ), errors


def test_secrets_are_scrubbed_from_messages_and_tracebacks() -> None:
    assert (
        scrub('{"name": "Ana", "password": "hunter22!"}')
        == '{"name": "Ana", "password": "[secret]"}'
    )
    assert scrub("Authorization: Bearer eyJ.abc-def") == "Authorization: Bearer [secret]"
    assert (
        scrub("cookie: truco_session=abc.def; other=1") == "cookie: truco_session=[secret]; other=1"
    )
    assert scrub("token=abc&x=1") == "token=[secret]&x=1"
    try:
        raise ValueError("bad body: {'password': 'hunter22!'}")
    except ValueError:
        record = logging.LogRecord("t", logging.ERROR, "", 0, "failed", None, sys.exc_info())
    assert Secrets().filter(record)
    assert record.exc_text is not None and "hunter22" not in record.exc_text


def test_a_task_started_in_a_context_keeps_it() -> None:
    import asyncio
    import contextvars

    seen: list[str | None] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(getattr(record, "table", None))

    from truco.server.logs import Context

    logger = logging.getLogger("truco.test.context")
    handler = Catch()
    handler.addFilter(Context())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    async def table_task() -> None:
        await asyncio.sleep(0)
        logger.info("inside")

    async def main() -> None:
        with about(table="k3xq7p"):
            task = asyncio.create_task(table_task())
        logger.info("outside")
        await task

    contextvars.copy_context().run(asyncio.run, main())
    logger.removeHandler(handler)
    assert sorted(seen, key=str) == [None, "k3xq7p"]
