"""Alembic's entry point: migrate the connection :func:`truco.server.storage.migrations.upgrade`
hands over, or (from the ``alembic`` command) a database named by ``TRUCO_DB_URL`` or the
configuration's ``sqlalchemy.url``."""

from __future__ import annotations

import os

from alembic import context
from alembic.config import Config
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection


def _run(connection: Connection) -> None:
    context.configure(connection=connection, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _main(config: Config) -> None:
    given = config.attributes.get("connection")
    if isinstance(given, Connection):
        _run(given)
        return
    url = os.environ.get("TRUCO_DB_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("name the database: TRUCO_DB_URL=sqlite:///truco.sqlite3")
    engine = create_engine(url)
    with engine.begin() as connection:
        _run(connection)
    engine.dispose()


if getattr(context, "_proxy", None) is not None:  # run by Alembic, not merely imported
    _main(context.config)
