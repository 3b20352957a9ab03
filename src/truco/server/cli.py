"""``truco serve``: the online table on one process, with an embedded SQLite database; or,
with ``--redis``, one node (``--workers N``: N nodes) of a cluster (docs/cluster.md)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
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
        "--bot-queue",
        type=int,
        default=64,
        help="bot decisions that may wait for a worker; more get the simple bot (default 64)",
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
        help="new guests, accounts, renewals and new tables per address (default 20/minute)",
    )
    p.add_argument(
        "--login-rate",
        default="10/minute",
        help="logins tried per address, and logins per account (default 10/minute)",
    )
    p.add_argument(
        "--max-sockets-per-address",
        type=int,
        default=64,
        help="WebSockets one address may hold open at once, 0 for no cap (default 64)",
    )
    p.add_argument(
        "--max-sockets-per-player",
        type=int,
        default=16,
        help="WebSockets one guest or account may hold open at once, 0 for no cap (default 16)",
    )
    p.add_argument(
        "--analysis-rate",
        default="10/hour",
        help="analyses of matches one guest or account may ask for (default 10/hour)",
    )
    p.add_argument(
        "--rated-pair-per-day",
        type=int,
        default=3,
        metavar="N",
        help="rated matches two accounts may play against each other in 24 h (default 3; "
        "0: no limit; docs/operations.md, fair play)",
    )
    p.add_argument(
        "--signups-per-address",
        type=int,
        default=5,
        metavar="N",
        help="accounts one address may sign up in 24 h (default 5; 0: no limit)",
    )
    p.add_argument(
        "--secure-cookies",
        action="store_true",
        help="mark the session cookie Secure (when served over https)",
    )
    p.add_argument(
        "--ws-deflate",
        action="store_true",
        help="compress WebSocket frames (permessage-deflate): less bandwidth, "
        "about as much CPU per frame as the rest of an action costs",
    )
    p.add_argument(
        "--redis", default=None, metavar="URL",
        help="run as one node of a cluster: the Redis the nodes share "
        "(e.g. redis://127.0.0.1:6379/0); needs a PostgreSQL --db",
    )  # fmt: skip
    p.add_argument(
        "--redis-prefix",
        default="truco:",
        help="prefix of the cluster's Redis keys, one per site (default truco:)",
    )
    p.add_argument(
        "--lease-seconds",
        type=float,
        default=3.0,
        help="with --redis: how long a node's hold on a table lasts unless renewed; a dead "
        "node's tables move after it (default 3)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="with --redis: start this many node processes on the one port (default 1)",
    )
    p.add_argument(
        "--metrics-token",
        default=os.environ.get("TRUCO_METRICS_TOKEN"),
        metavar="TOKEN",
        help="serve Prometheus metrics at /metrics to 'Authorization: Bearer TOKEN' only "
        "(default: $TRUCO_METRICS_TOKEN, which keeps it off the process list; unset: no metrics)",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="the load balancers (comma-separated addresses, or '*') whose X-Forwarded-For "
        "names the player's address; default $FORWARDED_ALLOW_IPS or 127.0.0.1. Behind a "
        "balancer on another host, set it: per-address limits, address bans and fair play "
        "read the player's address (docs/operations.md)",
    )
    p.add_argument(
        "--log-format",
        choices=["plain", "json"],
        default="plain",
        help="the log on stderr: plain text, or one JSON object per line (default plain)",
    )
    p.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="warning",
        help="the least a line must matter to be logged; info adds one line a request "
        "(default warning)",
    )
    p.add_argument(
        "--drain-seconds",
        type=float,
        default=0.0,
        help="when told to stop, answer /readyz 503 and go on serving this long before "
        "handing the tables over (behind a load balancer: a few of its probe intervals; "
        "default 0)",
    )
    p.add_argument("--listen-fd", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_serve)

    from . import admin

    admin.register(subparsers)


def _cluster_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the cluster options, in one line (None: nothing)."""
    if args.workers < 1:
        return "--workers must be 1 or more"
    if not 0.5 <= args.lease_seconds <= 60:
        return "--lease-seconds must be from 0.5 to 60"
    if args.redis is None:
        return "--workers needs --redis (the nodes share it)" if args.workers > 1 else None
    if not args.redis.startswith(("redis://", "rediss://", "unix://")):  # what redis-py takes
        return f"--redis must be a redis://, rediss:// or unix:// URL, not {args.redis!r}"
    if not args.db.startswith("postgresql"):
        return "--redis needs a PostgreSQL --db (every node reads and writes the same database)"
    return None


def _run_workers(args: argparse.Namespace, sock: socket.socket) -> int:
    """Start ``--workers`` node processes that accept on ``sock``; stop them with Ctrl+C."""
    argv, skip = [], False
    for arg in sys.argv[1:]:
        if skip or arg.startswith("--workers="):
            skip = False
            continue
        skip = arg == "--workers"
        if not skip:
            argv.append(arg)
    fd = sock.fileno()
    command = [sys.executable, "-c", "import sys; from truco.cli import main; sys.exit(main())"]
    from .cluster.parent import PARENT_ENV  # (each node stops if this process is killed)

    env = {**os.environ, PARENT_ENV: str(os.getpid())}
    nodes = [  # each in a session of its own: a Ctrl+C reaches them once, from here
        subprocess.Popen(
            [*command, *argv, "--listen-fd", str(fd)],
            pass_fds=[fd],
            start_new_session=True,
            env=env,
        )
        for _ in range(args.workers)
    ]
    sock.close()

    def stop(signum: int = 0, frame: object = None) -> None:
        for node in nodes:
            if node.poll() is None:
                node.send_signal(signal.SIGINT)

    # Ctrl+C too, and even when started with SIGINT ignored (a shell's background job,
    # ``nohup ... &``): the nodes stop on it whatever they inherited, so must their parent
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    codes = [node.wait() for node in nodes]
    return max((abs(code) for code in codes), default=0)


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from .config import ServerConfig
    from .web.app import create_app
    from .web.serving import AnnouncingServer, first_line, listening_socket, uvicorn_options

    config = ServerConfig(
        db_url=args.db,
        turn_seconds=args.turn_seconds,
        disconnect_grace=args.reconnect_seconds,
        bot_delay=args.bot_delay,
        max_tables=args.max_tables,
        bot_workers=args.bot_workers,
        bot_queue=max(0, args.bot_queue),
        bot_seconds=args.bot_seconds,
        max_tables_per_guest=args.max_tables_per_guest,
        max_tables_per_address=args.max_tables_per_address,
        session_seconds=args.session_days * 24 * 3600,
        http_rate=args.http_rate,
        http_write_rate=args.http_write_rate,
        login_rate=args.login_rate,
        max_sockets_per_address=args.max_sockets_per_address,
        max_sockets_per_player=args.max_sockets_per_player,
        analysis_rate=args.analysis_rate,
        secure_cookies=args.secure_cookies,
        redis_url=args.redis,
        redis_prefix=args.redis_prefix,
        lease_ms=int(args.lease_seconds * 1000),
        metrics_token=args.metrics_token or None,
        rated_pair_per_day=max(0, args.rated_pair_per_day),
        signups_per_address_day=max(0, args.signups_per_address),
    )
    problem = _cluster_problem(args)
    if problem is not None:
        print(f"truco serve: {problem}", file=sys.stderr)
        return 2
    from .logs import configure

    configure(args.log_format, args.log_level)
    try:
        if args.listen_fd is not None:  # a node started by --workers
            from .cluster.parent import stop_with_parent

            stop_with_parent()
            sock = socket.socket(fileno=args.listen_fd)
        else:
            sock = listening_socket(args.host, args.port)
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        print(f"truco serve: cannot listen on {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if args.workers > 1:
        try:  # the schema and the token key once, before the nodes race to make them
            from .storage.store import Store

            Store(args.db).secret_key()
        except SQLAlchemyError as exc:
            print(
                f"truco serve: cannot use the database {args.db}: {first_line(exc)}",
                file=sys.stderr,
            )
            sock.close()
            return 2
        return _run_workers(args, sock)
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
        uvicorn.Config(
            **uvicorn_options(
                app,
                log_level=args.log_level,
                log_config=None,  # uvicorn's lines go through the server's log (logs.configure)
                access_log=False,  # the server logs each request itself, with its id
                ws_per_message_deflate=args.ws_deflate,
                forwarded_allow_ips=args.forwarded_allow_ips,
                # Ctrl+C or SIGTERM: connections get 15 s to close; then the tables are
                # stopped (committed) and the process ends, whatever a client still holds open
                timeout_graceful_shutdown=15,
            )
        ),
        address=f"http://{args.host}:{sock.getsockname()[1]}/",
        # the tables stop (committed, their sockets told) before uvicorn waits for the
        # sockets to close; a cluster node leaving takes no table over meanwhile
        on_shutdown=app.state.shut_down,
        on_drain=app.state.readiness.drain,
        drain_seconds=max(0.0, args.drain_seconds),
    )
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C: uvicorn has shut down cleanly
        server.run(sockets=[sock])
    return 0 if server.started else 1
