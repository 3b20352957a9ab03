"""Migrations (Alembic): a database made by the version before migrations upgrades in place
when the server starts and keeps its matches; the migrations make exactly the schema the code
queries. Run on SQLite, and on PostgreSQL when one answers at 127.0.0.1:5432."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    inspect,
    select,
)

from databases import db_url
from server_testing import LiveServer
from truco.game import Game
from truco.record import game_to_record
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.storage.migrations import alembic_config, current, upgrade
from truco.server.storage.store import Store, metadata, participants_table

__all__ = ["db_url"]  # the fixture, from databases

# The schema as the version before migrations made it (its ``metadata.create_all``), frozen.
OLD = MetaData()
Table(
    "truco_settings",
    OLD,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
OLD_MATCHES = Table(
    "truco_matches",
    OLD,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("version", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("table_json", Text, nullable=False),
    Column("record_json", Text, nullable=True),
)
Table(
    "truco_journal",
    OLD,
    Column("match_id", String(32), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("entry", Text, nullable=False),
)


def finished_match(seed: int) -> tuple[Game, dict[str, Any]]:
    """A whole 1v1 match to 15 played by random moves, and its record."""
    rng = random.Random(seed)
    game = Game(Rules(players=2, target=15), first_mano=0)
    while not game.is_over:
        seat = game.actors()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat, megaphone=False)))
    return game, game_to_record(game, {"event": "Mesa vieja", "seats": ["Ana", "Beto"]})


def old_database(url: str) -> dict[str, Any]:
    """A database as the previous version left it: its key, a finished match, a waiting
    table. Returns the rows written."""
    engine = create_engine(url)
    OLD.create_all(engine)
    game, record = finished_match(7)
    seats = [
        {"kind": "human", "player_id": "guestAna0001", "name": "Ana", "bot": None, "away": False},
        {"kind": "human", "player_id": "guestBeto002", "name": "Beto", "bot": None, "away": False},
    ]
    table = {"rules": Rules(players=2, target=15).to_dict(), "creator": "guestAna0001",
             "turn_seconds": 30.0, "seats": seats, "committed": {}}  # fmt: skip
    rows = {
        "old1": {
            "id": "old1",
            "name": "Mesa vieja",
            "status": "finished",
            "created_at": 100.0,
            "updated_at": 200.0,
            "version": 42,
            "winner": game.winner,
            "table_json": json.dumps(table),
            "record_json": json.dumps(record),
        },
        "wait1": {
            "id": "wait1",
            "name": "Esperando",
            "status": "waiting",
            "created_at": 300.0,
            "updated_at": 300.0,
            "version": 1,
            "winner": None,
            "table_json": json.dumps({**table, "seats": [seats[0], {"kind": "empty"}]}),
            "record_json": None,
        },
    }
    with engine.begin() as conn:
        conn.execute(OLD.tables["truco_settings"].insert().values(key="token_key", value="ab" * 32))
        conn.execute(OLD_MATCHES.insert(), list(rows.values()))
    engine.dispose()
    return rows


def head() -> str:
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None
    return revision


def test_a_database_of_the_previous_version_upgrades_in_place_and_keeps_its_matches(
    db_url: str,
) -> None:
    rows = old_database(db_url)
    store = Store(db_url)  # the server's store migrates on start
    try:
        assert current(store.engine) == head()
        assert store.secret_key() == bytes.fromhex("ab" * 32)  # guests' tokens stay valid
        loaded = {r.id: r for r in store.load()}
        assert set(loaded) == {"old1", "wait1"}
        old = loaded["old1"]
        assert old.status == "finished" and old.version == 42
        assert old.record == json.loads(rows["old1"]["record_json"])
        assert old.table == json.loads(rows["old1"]["table_json"])
        assert loaded["wait1"].table == json.loads(rows["wait1"]["table_json"])
        tables = set(inspect(store.engine).get_table_names())
        assert {"truco_accounts", "truco_ratings", "truco_results"} <= tables
    finally:
        store.engine.dispose()
    # a server started on it serves the old match's history and replay, and the old
    # match's seats are the guests' history (a guest who signs up claims them)
    config = ServerConfig(db_url=db_url, bot_delay=0, turn_seconds=0)
    with LiveServer(config) as server:
        history = httpx.get(f"{server.url}/api/history", timeout=10).json()
        assert [h["id"] for h in history] == ["old1"]
        assert history[0]["seats"] == ["Ana", "Beto"]
        replay = httpx.get(f"{server.url}/api/matches/old1/replay", timeout=10)
        assert replay.status_code == 200 and replay.json()["summary"]["winner"] is not None
        assert "wait1" in {t["id"] for t in httpx.get(f"{server.url}/api/tables").json()}
        with server.app.state.server.store.engine.connect() as conn:
            seats = conn.execute(
                select(participants_table.c.player_id, participants_table.c.won).where(
                    participants_table.c.match_id == "old1"
                )
            ).all()
    winner = rows["old1"]["winner"]
    assert sorted(seats) == sorted([("guestAna0001", winner == 0), ("guestBeto002", winner == 1)])


def test_the_migrations_make_exactly_the_schema_the_code_queries(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        upgrade(engine)
        with engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), metadata)
        assert differences == []
    finally:
        engine.dispose()


def test_migrating_again_changes_nothing_and_a_new_database_starts_at_the_head(
    db_url: str,
) -> None:
    engine = create_engine(db_url)
    try:
        assert current(engine) is None
        upgrade(engine)
        assert current(engine) == head()
        upgrade(engine)  # a restart: nothing to do
        assert current(engine) == head()
    finally:
        engine.dispose()


def test_every_revision_downgrades_and_upgrades_again(db_url: str) -> None:
    """The revisions chain (each down_revision names the one before) and each undoes
    itself, so that a revision can be rolled back by hand (``alembic downgrade``)."""
    engine = create_engine(db_url)
    try:
        upgrade(engine)
        from alembic import command

        config = alembic_config()
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "base")
        assert not {t for t in inspect(engine).get_table_names() if t.startswith("truco_")}
        upgrade(engine)
        assert current(engine) == head()
    finally:
        engine.dispose()
