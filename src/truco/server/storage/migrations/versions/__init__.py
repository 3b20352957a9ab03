"""One module per schema revision (Alembic loads them by path; this file it skips)."""
