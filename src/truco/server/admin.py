"""``truco admin``: an operator's commands on the server's database (``--db`` as for
``truco serve``). Today: ``backup`` while the server runs, and ``restore`` (docs/operations.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEFAULT_DB = "sqlite:///truco.sqlite3"  # the same default as ``truco serve``


def register(subparsers: Any) -> None:
    admin = subparsers.add_parser(
        "admin",
        help="operate a server: back up and restore its database",
        description="Commands for the operator of a `truco serve` site, on its database.",
    )
    commands = admin.add_subparsers(dest="admin_command", metavar="COMMAND", required=True)

    backup = commands.add_parser(
        "backup",
        help="write a backup of the database (the server may keep running)",
        description="Write a consistent backup of the server's database to PATH while it "
        "runs: SQLite's online backup API, or pg_dump for PostgreSQL.",
    )
    backup.add_argument("path", type=Path, metavar="PATH", help="the new backup file")
    backup.add_argument(
        "--db", default=DEFAULT_DB, metavar="URL", help=f"database URL (default {DEFAULT_DB})"
    )
    backup.set_defaults(func=_cmd_backup)

    restore = commands.add_parser(
        "restore",
        help="put a backup back as the database (stop the server first)",
        description="Restore the backup at PATH into the server's database; the next "
        "`truco serve` resumes every match the backup held. Everything played since the "
        "backup is lost, so an existing database is only replaced with --replace.",
    )
    restore.add_argument(
        "path", type=Path, metavar="PATH", help="a file `truco admin backup` wrote"
    )
    restore.add_argument(
        "--db", default=DEFAULT_DB, metavar="URL", help=f"database URL (default {DEFAULT_DB})"
    )
    restore.add_argument(
        "--replace", action="store_true", help="overwrite the database that is there"
    )
    restore.set_defaults(func=_cmd_restore)


def _cmd_backup(args: argparse.Namespace) -> int:
    from .backup import BackupError, backup

    try:
        backup(args.db, args.path)
    except BackupError as error:
        print(f"truco admin backup: {error}", file=sys.stderr)
        return 2
    print(f"backup written to {args.path}")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from .backup import BackupError, restore

    try:
        restore(args.db, args.path, replace=args.replace)
    except BackupError as error:
        print(f"truco admin restore: {error}", file=sys.stderr)
        return 2
    print(f"restored {args.path}: start `truco serve --db {args.db}` to go on")
    return 0
