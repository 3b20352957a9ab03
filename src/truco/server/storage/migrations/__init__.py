"""The database's schema history (Alembic): every server brings its database to the latest
revision when it starts, so that a database of an earlier version upgrades in place.

``versions/`` holds one module per revision, oldest first: ``v0001_baseline`` is the schema
of the versions before migrations (settings, matches, journal; it creates only the tables a
database lacks, so a database those versions made is adopted as it is), later revisions add
to it. A new revision is a module ``versions/vNNNN_what.py`` with ``revision = "NNNN"`` and
``down_revision`` the previous head (``v0002_accounts_ratings`` shows the shape); add its
tables and columns to :data:`truco.server.storage.store.metadata` too: ``tests/test_migrations.py``
checks that the migrations make exactly that schema, and that every revision downgrades.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

HERE = Path(__file__).parent
#: the advisory lock that keeps two servers starting together from migrating at once
PG_LOCK = 0x7275636F  # "truc"


def alembic_config(url: str | None = None) -> Config:
    """The Alembic configuration of this package (no ini file needed)."""
    config = Config()
    config.set_main_option("script_location", str(HERE))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database of ``engine`` to ``revision`` (the latest by default)."""
    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # held until this transaction ends
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({PG_LOCK})")
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def current(engine: Engine) -> str | None:
    """The revision the database is at (``None``: never migrated)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
