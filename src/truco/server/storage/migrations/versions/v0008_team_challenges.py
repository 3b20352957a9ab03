"""Team challenges and team tournaments (issue 33): the seats of a 2v2 or 3v3 challenge
(each named player's yes, the open seats a link fills), and a tournament entrant's
partners.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "truco_challenge_seats",
        sa.Column("challenge_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player_id", sa.String(32), nullable=True, index=True),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column("accepted", sa.Boolean, nullable=False),
    )
    with op.batch_alter_table("truco_tournament_entrants") as batch:
        batch.add_column(sa.Column("partners_json", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("truco_tournament_entrants") as batch:
        batch.drop_column("partners_json")
    op.drop_table("truco_challenge_seats")
