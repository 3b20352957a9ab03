"""The databases persistence tests run on: a fresh SQLite file, and a PostgreSQL schema of
its own (random name, dropped afterwards) when one answers at 127.0.0.1:5432."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

PG_DSN = "host=127.0.0.1 port=5432 dbname=test user=postgres"
PG_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def service_missing(reason: str) -> None:
    """A test's PostgreSQL or Redis is not there: skipped on a developer's machine, failed
    on CI (``CI`` set), where the service is part of the run and its absence a fault."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the service must be there)", pytrace=False)
    pytest.skip(reason)


def postgres_unreachable() -> str | None:
    """Why PostgreSQL cannot be used, or None."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        psycopg.connect(PG_DSN, connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"PostgreSQL at 127.0.0.1:5432 (database test) is not reachable: {exc}"
    return None


@contextmanager
def postgres_schema(prefix: str = "truco_test") -> Iterator[str]:
    """A SQLAlchemy URL on a new schema of its own, dropped at the end."""
    import psycopg

    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{PG_BASE}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def sqlite_url(directory: Path, name: str = "truco.sqlite3") -> str:
    return f"sqlite:///{directory / name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
        return
    reason = postgres_unreachable()
    if reason:
        service_missing(reason)
    with postgres_schema() as url:
        yield url
