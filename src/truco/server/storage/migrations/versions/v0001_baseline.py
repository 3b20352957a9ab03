"""Baseline: the schema of the versions before migrations (settings, matches, journal).

Creates only the tables a database lacks: a database made by those versions (with
``metadata.create_all``) is adopted as it is, a new one gets everything.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "truco_settings" not in existing:
        op.create_table(
            "truco_settings",
            sa.Column("key", sa.String(64), primary_key=True),
            sa.Column("value", sa.Text, nullable=False),
        )
    if "truco_matches" not in existing:
        op.create_table(
            "truco_matches",
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column("name", sa.String(80), nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("updated_at", sa.Float, nullable=False),
            sa.Column("version", sa.Integer, nullable=False),
            sa.Column("winner", sa.Integer, nullable=True),
            sa.Column("table_json", sa.Text, nullable=False),
            sa.Column("record_json", sa.Text, nullable=True),
        )
        op.create_index("ix_truco_matches_status", "truco_matches", ["status"])
    if "truco_journal" not in existing:
        op.create_table(
            "truco_journal",
            sa.Column("match_id", sa.String(32), primary_key=True),
            sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("entry", sa.Text, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("truco_journal")
    op.drop_index("ix_truco_matches_status", "truco_matches")
    op.drop_table("truco_matches")
    op.drop_table("truco_settings")
