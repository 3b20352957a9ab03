"""``truco serve``: the online table on one process, with an embedded SQLite database."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve",
        help="run the online table (open the printed address in a browser)",
        description="Run the online table on one process: the lobby, the tables, the bots "
        "and the page, with every match saved in the database. The address to open is "
        "printed once the server listens.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--db", default="sqlite:///truco.sqlite3", metavar="URL",
        help="SQLAlchemy database URL (default sqlite:///truco.sqlite3; e.g. postgresql+psycopg://user@host/db)",
    )  # fmt: skip
    p.add_argument(
        "--turn-seconds",
        type=float,
        default=30.0,
        help="turn clock in seconds, 0 for none (default 30)",
    )
    p.add_argument(
        "--reconnect-seconds",
        type=float,
        default=15.0,
        help="how long a disconnected player's seat waits before a bot covers it (default 15)",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.8,
        help="seconds a bot waits before acting (default 0.8)",
    )
    p.add_argument(
        "--max-tables",
        type=int,
        default=2000,
        help="live tables at most (default 2000)",
    )
    p.add_argument(
        "--bot-workers",
        type=int,
        default=2,
        help="processes that think for search bots (default 2)",
    )
    p.add_argument(
        "--bot-seconds",
        type=float,
        default=3.0,
        help="time a bot decision may take before the simple bot decides instead (default 3)",
    )
    p.add_argument(
        "--max-tables-per-guest",
        type=int,
        default=3,
        help="live tables one guest may have open (default 3)",
    )
    p.add_argument(
        "--max-tables-per-address",
        type=int,
        default=10,
        help="live tables the guests of one address may have open (default 10)",
    )
    p.add_argument(
        "--session-days",
        type=float,
        default=7.0,
        help="how long a guest session lasts before it must be renewed (default 7)",
    )
    p.add_argument(
        "--http-rate",
        default="300/minute",
        help="API requests and socket openings per address (default 300/minute)",
    )
    p.add_argument(
        "--http-write-rate",
        default="20/minute",
        help="new guests, renewals and new tables per address (default 20/minute)",
    )
    p.add_argument(
        "--secure-cookies",
        action="store_true",
        help="mark the session cookie Secure (when served over https)",
    )
    p.add_argument(
        "--queue-url",
        default="",
        help="redis://host:port: quick-match queues in Redis, shared by several servers "
        "(default: in this process)",
    )
    p.set_defaults(func=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from .app import create_app
    from .config import ServerConfig
    from .serving import AnnouncingServer, first_line, listening_socket

    config = ServerConfig(
        db_url=args.db,
        turn_seconds=args.turn_seconds,
        disconnect_grace=args.reconnect_seconds,
        bot_delay=args.bot_delay,
        max_tables=args.max_tables,
        bot_workers=args.bot_workers,
        bot_seconds=args.bot_seconds,
        max_tables_per_guest=args.max_tables_per_guest,
        max_tables_per_address=args.max_tables_per_address,
        session_seconds=args.session_days * 24 * 3600,
        http_rate=args.http_rate,
        http_write_rate=args.http_write_rate,
        secure_cookies=args.secure_cookies,
        queue_url=args.queue_url,
    )
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        print(f"truco serve: cannot listen on {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        app = create_app(config)
    except ValueError as exc:
        print(f"truco serve: {exc}", file=sys.stderr)
        sock.close()
        return 2
    except SQLAlchemyError as exc:
        print(f"truco serve: cannot use the database {args.db}: {first_line(exc)}", file=sys.stderr)
        sock.close()
        return 2
    server = AnnouncingServer(
        uvicorn.Config(app, log_level="warning", ws_max_size=1 << 16),
        address=f"http://{args.host}:{sock.getsockname()[1]}/",
    )
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C: uvicorn has shut down cleanly
        server.run(sockets=[sock])
    return 0 if server.started else 1
