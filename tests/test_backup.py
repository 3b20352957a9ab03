"""``truco admin backup`` and ``restore``: a backup taken mid-match, while the server
runs, restores to a server that resumes the match from the backup's moment. Run on
SQLite, and on PostgreSQL (pg_dump / pg_restore) when one answers at 127.0.0.1:5432."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from databases import db_url
from server_testing import LiveServer, TableClient, create_table, guest_token, play_out
from test_server_store import config_for, first_moves, waits_for_me

__all__ = ["db_url"]  # the fixture, from databases

VIEW_KEYS = ("hand", "played", "bazas", "score", "hand_index", "mano", "log", "legal", "pending")


def admin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "truco.cli", "admin", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_backup_taken_mid_match_restores_to_a_server_that_resumes_it(
    db_url: str, tmp_path: Path
) -> None:
    rng = random.Random(3)
    config = config_for(db_url)
    backup_file = tmp_path / "mid-match.backup"
    with LiveServer(config) as server:
        token = guest_token(server.url, "Ana")
        table = create_table(
            server.url, token, rules={"players": 2, "target": 30}, seat=0, bots={"1": "random"}
        )
        client = TableClient(server.ws_url, table["id"], token)
        first_moves(client, 4, rng)
        at_backup = client.until(waits_for_me)
        assert at_backup["view"]["winner"] is None, "the match ended before the backup"
        taken = admin("backup", str(backup_file), "--db", db_url)  # the server keeps running
        assert taken.returncode == 0, taken.stderr
        first_moves(client, 3, rng)  # played after the backup: a restore loses these
        later = client.until(waits_for_me)
        # (the log alone may be empty at both moments: a hand can close within those moves)
        assert [later["view"][k] for k in VIEW_KEYS] != [at_backup["view"][k] for k in VIEW_KEYS]
        client.close()

    refused = admin("restore", str(backup_file), "--db", db_url)
    assert refused.returncode == 2 and "--replace" in refused.stderr
    assert "Traceback" not in refused.stderr
    restored = admin("restore", str(backup_file), "--db", db_url, "--replace")
    assert restored.returncode == 0, restored.stderr

    with LiveServer(config) as server:
        client = TableClient(server.ws_url, table["id"], token)
        resumed = client.wait_state()
        assert resumed["v"] >= at_backup["v"]  # (a restart may tell of seats coming back)
        for key in VIEW_KEYS:
            assert resumed["view"][key] == at_backup["view"][key], key
        play_out([client], lambda c, view: rng.choice(view["legal"]))
        client.until(lambda m: m["view"]["winner"] is not None)
        client.close()


def test_a_sqlite_backup_is_a_sound_database_file(tmp_path: Path) -> None:
    source = tmp_path / "live.sqlite3"
    with sqlite3.connect(source) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t (x INTEGER)")
        conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(100)])
    conn.close()
    done = admin("backup", str(tmp_path / "copy.sqlite3"), "--db", f"sqlite:///{source}")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "copy.sqlite3") as copy:
        assert copy.execute("SELECT count(*), sum(x) FROM t").fetchone() == (100, 4950)
    copy.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["backup", "{tmp}/b", "--db", "sqlite:///{tmp}/missing.sqlite3"], "no database at"),
        (["backup", "{tmp}/b", "--db", "sqlite://"], "in-memory"),
        (["backup", "{tmp}/exists", "--db", "sqlite:///{tmp}/exists"], "exists: choose a new file"),
        (["restore", "{tmp}/missing", "--db", "sqlite:///{tmp}/x.sqlite3"], "no backup at"),
        (["restore", "{tmp}/exists", "--db", "sqlite:///{tmp}/new.sqlite3"], "not a sound SQLite"),
        (["backup", "{tmp}/b", "--db", "mysql://u@h/db"], "cannot back up a mysql"),
    ],
)
def test_what_cannot_be_done_is_said_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "exists").write_text("not a database, not a backup")
    done = admin(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "new.sqlite3").exists()


def test_restore_into_postgresql_asks_for_replace(tmp_path: Any) -> None:
    (tmp_path / "dump").write_bytes(b"PGDMP")
    done = admin("restore", str(tmp_path / "dump"), "--db", "postgresql+psycopg://u@127.0.0.1/x")
    assert done.returncode == 2 and "--replace" in done.stderr
