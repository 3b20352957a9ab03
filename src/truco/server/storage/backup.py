"""Backups of the server's database, taken while it runs, and their restore.

SQLite: the library's online backup API (:meth:`sqlite3.Connection.backup`) copies a
consistent snapshot page by page while the server goes on writing; the copy is a plain
SQLite file. Restoring writes that snapshot back into the server's database the same way
(the server stopped: its next start resumes every match the snapshot held).

PostgreSQL: the documented route, ``pg_dump --format=custom`` (a consistent snapshot of
one transaction, taken without stopping anyone) and ``pg_restore --clean``; when the URL
pins a schema (``?options=-csearch_path=NAME``) only that schema is dumped and restored.
The password, if the URL has one, travels in ``PGPASSWORD``, never on a command line.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import unquote

from sqlalchemy.engine import URL, make_url


class BackupError(Exception):
    """A backup or restore that cannot be done: the one line to show the operator."""


def _sqlite_file(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up")
    return Path(url.database)


def _copy_sqlite(source: Path, target: Path) -> None:
    """Copy ``source`` into ``target`` with SQLite's online backup API."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def _sound_sqlite(path: Path) -> bool:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as check:
            verdict = check.execute("PRAGMA quick_check").fetchone()
        check.close()
    except sqlite3.DatabaseError:
        return False
    return bool(verdict == ("ok",))


def _libpq(url: URL) -> tuple[str, dict[str, str], str | None]:
    """The libpq URI of a SQLAlchemy PostgreSQL URL (without its password), the
    environment that carries the password, and the schema the URL pins (or None)."""
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    options = url.query.get("options")
    schema = None
    if isinstance(options, str):
        for option in unquote(options).split():
            if option.startswith("-csearch_path="):
                schema = option.removeprefix("-csearch_path=").split(",")[0]
    bare = url.set(drivername="postgresql", password=None)
    return bare.render_as_string(hide_password=False), env, schema


def _run(command: list[str], env: dict[str, str]) -> None:
    tool = command[0]
    if shutil.which(tool) is None:
        raise BackupError(
            f"{tool} is not installed (PostgreSQL's client tools: apt install postgresql-client)"
        )
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise BackupError(f"{tool} failed: {last}")


def backup(db_url: str, path: Path) -> None:
    """Write a backup of the database at ``db_url`` to ``path`` (the server may run)."""
    url = make_url(db_url)
    if path.exists():
        raise BackupError(f"{path} exists: choose a new file for the backup")
    if url.get_backend_name() == "sqlite":
        source = _sqlite_file(url)
        if not source.exists():
            raise BackupError(f"no database at {source}")
        _copy_sqlite(source, path)
    elif url.get_backend_name() == "postgresql":
        uri, env, schema = _libpq(url)
        scope = ["--schema", schema] if schema else []
        _run(["pg_dump", "--format=custom", "--no-owner", *scope, "--file", str(path), uri], env)
    else:
        raise BackupError(f"cannot back up a {url.get_backend_name()} database")


def restore(db_url: str, path: Path, *, replace: bool = False) -> None:
    """Put the backup at ``path`` back as the database at ``db_url`` (the server stopped).

    An existing SQLite database is replaced only with ``replace``: a restore throws away
    everything played since the backup."""
    url = make_url(db_url)
    if not path.is_file():
        raise BackupError(f"no backup at {path}")
    if url.get_backend_name() == "sqlite":
        target = _sqlite_file(url)
        if target.exists() and not replace:
            raise BackupError(
                f"{target} exists: add --replace to overwrite it with the backup "
                "(what was played since the backup is lost)"
            )
        if not _sound_sqlite(path):
            raise BackupError(f"{path} is not a sound SQLite backup")
        _copy_sqlite(path, target)
    elif url.get_backend_name() == "postgresql":
        if not replace:
            raise BackupError(
                "restoring into PostgreSQL replaces the tables it holds: add --replace"
            )
        uri, env, _ = _libpq(url)  # a dump of one schema holds only that schema
        _run(
            ["pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction",
             "--dbname", uri, str(path)],
            env,
        )  # fmt: skip
    else:
        raise BackupError(f"cannot restore a {url.get_backend_name()} database")
