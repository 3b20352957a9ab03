"""``truco admin``: an operator's commands on the server's database (``--db`` as for
``truco serve``): ``backup`` while the server runs and ``restore``; moderation (``role``,
``ban``, ``unban``, ``rename``, ``rating``, ``reports``, ``close-report``, ``audit``,
``ban-address``, ``unban-address``, ``signals``). Every moderation command is in the audit
log as ``cli:<user>`` with its ``--reason`` (docs/operations.md, "Moderation")."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_DB = "sqlite:///truco.sqlite3"  # the same default as ``truco serve``


def register(subparsers: Any) -> None:
    admin = subparsers.add_parser(
        "admin",
        help="operate a server: back up and restore its database, moderate",
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
    _register_moderation(commands)


def _db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", default=DEFAULT_DB, metavar="URL", help=f"database URL (default {DEFAULT_DB})"
    )


def _why(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reason", required=True, help="why (kept in the audit log with who and what)"
    )


def _register_moderation(commands: Any) -> None:
    def command(name: str, help: str, func: Callable[..., int], why: bool = True) -> Any:
        parser = commands.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")
        _db(parser)
        if why:
            _why(parser)
        parser.set_defaults(func=lambda args: _moderate(func, args))
        return parser

    role = command("role", "give an account a role: player, moderator or admin", _cmd_role)
    role.add_argument("name", help="the account's name")
    role.add_argument("role", choices=["player", "moderator", "admin"])
    ban = command(
        "ban",
        "ban an account: no login, its sessions end, its seats go to bots, its queue "
        "ticket drops (a running server sees it within seconds)",
        _cmd_ban,
    )
    ban.add_argument("name", help="the account's name")
    unban = command("unban", "lift an account's ban", _cmd_unban)
    unban.add_argument("name", help="the account's name")
    rename = command("rename", "force a new name on an account (an offensive name)", _cmd_rename)
    rename.add_argument("name", help="the account's name now")
    rename.add_argument("new_name", metavar="NEW", help="its new name")
    rating = command("rating", "reset an account's rating, or freeze or thaw it", _cmd_rating)
    rating.add_argument("name", help="the account's name")
    rating.add_argument("action", choices=["reset", "freeze", "thaw"])
    rating.add_argument("--mode", choices=["1v1", "2v2", "3v3"], help="reset one mode only")
    reports = command(
        "reports", "list players' reports (open ones by default)", _cmd_reports, False
    )
    reports.add_argument("--all", action="store_true", help="closed ones too")
    reports.add_argument("--json", action="store_true", help="one JSON object per line")
    close = command("close-report", "close a report (handled, or nothing to do)", _cmd_close)
    close.add_argument("id", type=int, help="the report's number")
    audit = command("audit", "show the audit log, newest first", _cmd_audit, False)
    audit.add_argument("--target", help="only the entries about this name or address")
    audit.add_argument("--limit", type=int, default=50)
    audit.add_argument("--json", action="store_true", help="one JSON object per line")
    address = command(
        "ban-address",
        "bar new guests and sign-ups from an address for some hours (its guest sessions end)",
        _cmd_ban_address,
    )
    address.add_argument("address", help="an IP address")
    address.add_argument("--hours", type=float, default=24.0, help="how long (default 24)")
    lift = command("unban-address", "lift an address's ban", _cmd_unban_address)
    lift.add_argument("address", help="an IP address")
    signals = command(
        "signals",
        "rated-play integrity signals for a moderator to look at (not sanctions)",
        _cmd_signals,
        False,
    )
    signals.add_argument("--json", action="store_true", help="one JSON object per line")


def _actor() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no name for this uid (a container)
        return "cli:operator"


def _moderate(func: Callable[..., int], args: argparse.Namespace) -> int:
    """Run a moderation command on the database; a refusal is one line and status 2."""
    from sqlalchemy.engine import make_url

    from .people.accounts import AccountError
    from .storage.store import Store

    url = make_url(args.db)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        # (a mistyped path would otherwise become a new, empty database)
        print(f"truco admin {args.admin_command}: no database at {url.database}", file=sys.stderr)
        return 2
    store = Store(args.db)
    try:
        return func(store.engine, args)
    except AccountError as error:
        print(f"truco admin {args.admin_command}: {error.reason}", file=sys.stderr)
        return 2
    finally:
        store.engine.dispose()


def _standing(found: Any) -> str:
    flags = [found.role]
    if found.banned:
        flags.append("banned")
    if found.rating_frozen:
        flags.append("rating frozen")
    return f"{found.name}: {', '.join(flags)}"


def _cmd_role(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    print(_standing(moderation.set_role(engine, _actor(), args.name, args.role, args.reason)))
    return 0


def _cmd_ban(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    found, sessions = moderation.ban(engine, _actor(), args.name, args.reason)
    print(f"{_standing(found)} ({len(sessions)} sessions ended)")
    return 0


def _cmd_unban(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    print(_standing(moderation.unban(engine, _actor(), args.name, args.reason)))
    return 0


def _cmd_rename(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    found = moderation.force_rename(engine, _actor(), args.name, args.new_name, args.reason)
    print(f"{args.name} is now {_standing(found)}")
    return 0


def _cmd_rating(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    if args.action == "reset":
        found = moderation.reset_rating(engine, _actor(), args.name, args.mode, args.reason)
        print(f"{found.name}: rating reset ({args.mode or 'every mode'})")
    else:
        frozen = args.action == "freeze"
        found = moderation.freeze_rating(engine, _actor(), args.name, frozen, args.reason)
        print(_standing(found))
    return 0


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def _cmd_reports(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    found = moderation.reports(engine, None if args.all else "open", 500)
    for r in found:
        if args.json:
            print(json.dumps(r, ensure_ascii=False))
            continue
        where = f" {r['replay_url']}" if r["replay_url"] else ""
        print(
            f"#{r['id']} {_when(r['at'])} {r['status']}: {r['player']} ({r['reason']}, "
            f"{r['reports_of_player']} reports) by {r['reporter']} from a {r['context']}"
            f"{where}: {r['comment']}"
        )
    if not found and not args.json:
        print("no reports")
    return 0


def _cmd_close(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    moderation.close_report(engine, _actor(), args.id, args.reason)
    print(f"report #{args.id} closed")
    return 0


def _cmd_audit(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    for entry in moderation.audit_log(engine, args.target, args.limit):
        if args.json:
            print(json.dumps(entry, ensure_ascii=False))
        else:
            print(
                f"{_when(entry['at'])} {entry['actor']}: {entry['action']} {entry['target']}"
                f" — {entry['reason']}"
            )
    return 0


def _cmd_ban_address(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    until, ended = moderation.ban_address(
        engine, _actor(), args.address, args.hours * 3600, args.reason
    )
    print(f"{args.address}: no new guests until {_when(until)} ({len(ended)} sessions ended)")
    return 0


def _cmd_unban_address(engine: Any, args: argparse.Namespace) -> int:
    from .people import moderation

    removed = moderation.unban_address(engine, _actor(), args.address, args.reason)
    print(f"{args.address}: {'ban lifted' if removed else 'was not banned'}")
    return 0


def _cmd_signals(engine: Any, args: argparse.Namespace) -> int:
    from .people import integrity

    with engine.connect() as conn:
        found = integrity.current_signals(conn)
    for signal in found:
        if args.json:
            print(json.dumps(signal.to_json(), ensure_ascii=False))
        else:
            replays = " ".join(f"/replay/{m}" for m in signal.matches)
            print(
                f"{signal.kind}: {' '.join(signal.players)}: {signal.count} "
                f"({signal.share:.0%}; {signal.threshold}) {replays}"
            )
    if not found and not args.json:
        print("no signals")
    return 0


def _cmd_backup(args: argparse.Namespace) -> int:
    from .storage.backup import BackupError, backup

    try:
        backup(args.db, args.path)
    except BackupError as error:
        print(f"truco admin backup: {error}", file=sys.stderr)
        return 2
    print(f"backup written to {args.path}")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from .storage.backup import BackupError, restore

    try:
        restore(args.db, args.path, replace=args.replace)
    except BackupError as error:
        print(f"truco admin restore: {error}", file=sys.stderr)
        return 2
    print(f"restored {args.path}: start `truco serve --db {args.db}` to go on")
    return 0
