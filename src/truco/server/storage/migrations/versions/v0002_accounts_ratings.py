"""Accounts, finished matches' results and participants, ratings and their history.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "truco_accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(100), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "truco_results",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(32), nullable=False, unique=True),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    op.create_table(
        "truco_participants",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player_id", sa.String(32), nullable=True, index=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("team", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
    )
    op.create_table(
        "truco_ratings",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("mode", sa.String(8), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "truco_rating_history",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index(
        "ix_truco_rating_history_player", "truco_rating_history", ["player_id", "mode", "at"]
    )


def downgrade() -> None:
    op.drop_index("ix_truco_rating_history_player", "truco_rating_history")
    for name in (
        "truco_rating_history",
        "truco_ratings",
        "truco_participants",
        "truco_results",
        "truco_accounts",
    ):
        op.drop_table(name)
