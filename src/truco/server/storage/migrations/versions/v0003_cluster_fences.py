"""Cluster mode's fences: the largest lease token that wrote each table (docs/cluster.md).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "truco_fences",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("token", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("truco_fences")
