"""PostgreSQL: the fences of a group commit raised by one function, which refuses the whole
statement when a newer lease token holds a table, so that a group commit is one statement
and one round trip (:mod:`truco.server.storage.store_pg`). SQLite has no such function (nor needs
one: it has no cluster mode).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

#: SQLSTATE of a refused fence; the id of the first table refused is the error's detail
FENCE_REFUSED = "TF001"

_CREATE = f"""
CREATE OR REPLACE FUNCTION truco_raise_fences(ids text[], tokens bigint[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  refused text;
BEGIN
  WITH asked AS (
    SELECT a.match_id, a.token FROM unnest(ids, tokens) AS a(match_id, token)
    ORDER BY a.match_id
  ), raised AS (
    INSERT INTO truco_fences (match_id, token) SELECT match_id, token FROM asked
    ON CONFLICT (match_id) DO UPDATE SET token = excluded.token
    WHERE truco_fences.token <= excluded.token
    RETURNING match_id
  )
  SELECT asked.match_id INTO refused FROM asked
  WHERE asked.match_id NOT IN (SELECT match_id FROM raised)
  ORDER BY asked.match_id LIMIT 1;
  IF refused IS NOT NULL THEN
    RAISE EXCEPTION 'table %: another node holds it now (stale lease token)', refused
      USING ERRCODE = '{FENCE_REFUSED}', DETAIL = refused;
  END IF;
  RETURN coalesce(array_length(ids, 1), 0);
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_CREATE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS truco_raise_fences(text[], bigint[])")
