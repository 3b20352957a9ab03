"""Server-side sessions (a token names a row: logging out deletes it), and each account's
name skeleton (what the name looks like, so that no new name may pass for it).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "truco_sessions",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False, index=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("account", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False, index=True),
        sa.Column("agent", sa.String(120), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
    )
    with op.batch_alter_table("truco_accounts") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(100), nullable=True))
        batch.create_index("ix_truco_accounts_name_skeleton", ["name_skeleton"])
    # the accounts made before: their skeletons, so that new names are checked against them
    from truco.server.people.accounts import name_skeleton

    accounts = sa.table(
        "truco_accounts", sa.column("id", sa.String), sa.column("name", sa.String),
        sa.column("name_skeleton", sa.String),
    )  # fmt: skip
    bind = op.get_bind()
    for row in bind.execute(sa.select(accounts.c.id, accounts.c.name)).all():
        bind.execute(
            accounts.update()
            .where(accounts.c.id == row.id)
            .values(name_skeleton=name_skeleton(row.name))
        )


def downgrade() -> None:
    with op.batch_alter_table("truco_accounts") as batch:
        batch.drop_index("ix_truco_accounts_name_skeleton")
        batch.drop_column("name_skeleton")
    op.drop_table("truco_sessions")
