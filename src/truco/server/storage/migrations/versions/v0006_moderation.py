"""Moderation and fair play (issue 31): each account's role, ban and rating freeze and the
address it signed up from; the addresses each account was seen at; players' reports; the
moderators' audit log; guests' addresses banned for a time; and why a match played as rated
was not rated (a fair-play rule).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("truco_accounts") as batch:
        batch.add_column(sa.Column("role", sa.String(16), nullable=False, server_default="player"))
        batch.add_column(sa.Column("banned", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(
            sa.Column("rating_frozen", sa.Boolean, nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("signup_address", sa.String(64), nullable=True))
        batch.create_index("ix_truco_accounts_signup_address", ["signup_address"])
    op.create_table(
        "truco_account_addresses",
        sa.Column("account_id", sa.String(32), primary_key=True),
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("first_seen", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
    )
    op.create_index("ix_truco_account_addresses_address", "truco_account_addresses", ["address"])
    op.create_table(
        "truco_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("reporter_id", sa.String(32), nullable=False, index=True),
        sa.Column("reporter_name", sa.String(80), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False, index=True),
        sa.Column("player_name", sa.String(80), nullable=False),
        sa.Column("context", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=True),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("closed_by", sa.String(80), nullable=True),
        sa.Column("closed_at", sa.Float, nullable=True),
    )
    op.create_table(
        "truco_audit",
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False, index=True),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(100), nullable=False, index=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("details", sa.Text, nullable=False),
    )
    op.create_table(
        "truco_address_bans",
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("until", sa.Float, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    with op.batch_alter_table("truco_results") as batch:
        batch.add_column(sa.Column("unrated_reason", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("truco_results") as batch:
        batch.drop_column("unrated_reason")
    op.drop_table("truco_address_bans")
    op.drop_table("truco_audit")
    op.drop_table("truco_reports")
    op.drop_index("ix_truco_account_addresses_address", "truco_account_addresses")
    op.drop_table("truco_account_addresses")
    with op.batch_alter_table("truco_accounts") as batch:
        batch.drop_index("ix_truco_accounts_signup_address")
        batch.drop_column("signup_address")
        batch.drop_column("rating_frozen")
        batch.drop_column("banned")
        batch.drop_column("role")
