"""Playing together (issue 33): follows, blocks, hidden presence, challenges, and
tournaments with their entrants and games.

Revision ID: 0007
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "truco_follows",
        sa.Column("follower_id", sa.String(32), primary_key=True),
        sa.Column("followed_id", sa.String(32), primary_key=True, index=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "truco_blocks",
        sa.Column("blocker_id", sa.String(32), primary_key=True),
        sa.Column("blocked_id", sa.String(32), primary_key=True, index=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "truco_privacy",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("hide_presence", sa.Boolean, nullable=False),
    )
    op.create_table(
        "truco_challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("challenger_id", sa.String(32), nullable=False, index=True),
        sa.Column("challenger_name", sa.String(24), nullable=False),
        sa.Column("target_id", sa.String(32), nullable=True, index=True),
        sa.Column("target_name", sa.String(24), nullable=True),
        sa.Column("rules_json", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False, index=True),
    )
    op.create_table(
        "truco_tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("organiser_id", sa.String(32), nullable=False, index=True),
        sa.Column("organiser_name", sa.String(24), nullable=False),
        sa.Column("official", sa.Boolean, nullable=False),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("rules_json", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("minutes", sa.Integer, nullable=False),
        sa.Column("max_entrants", sa.Integer, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("director", sa.String(40), nullable=True),
        sa.Column("lease_until", sa.Float, nullable=False),
    )
    op.create_table(
        "truco_tournament_entrants",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), primary_key=True, index=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
    )
    op.create_table(
        "truco_tournament_games",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("first_id", sa.String(32), nullable=False),
        sa.Column("second_id", sa.String(32), nullable=True),
        sa.Column("table_id", sa.String(32), nullable=True, index=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("winner_id", sa.String(32), nullable=True),
        sa.Column("ended_seq", sa.Integer, nullable=True),
    )


def downgrade() -> None:
    for table in (
        "truco_tournament_games",
        "truco_tournament_entrants",
        "truco_tournaments",
        "truco_challenges",
        "truco_privacy",
        "truco_blocks",
        "truco_follows",
    ):
        op.drop_table(table)
