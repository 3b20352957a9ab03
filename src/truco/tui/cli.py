"""``truco play``, ``truco watch`` and ``truco show``: the terminal game's commands."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..rules import FALTA_ENVIDO_VARIANTS, Rules, RulesError


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.05 <= value <= 100:
        raise argparse.ArgumentTypeError("the speed goes from 0.05 to 100")
    return value


def _table_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--players", type=int, choices=(2, 4, 6), default=2, help="2 (1v1), 4 (2v2) or 6 (3v3)"
    )
    p.add_argument("--flor", action="store_true", help="play con flor")
    p.add_argument(
        "--target", type=int, choices=(15, 30), default=30, help="points a chico (default 30)"
    )
    p.add_argument("--chicos", type=int, choices=(1, 3), default=1, help="1 chico or the best of 3")
    p.add_argument(
        "--falta-envido",
        choices=sorted(FALTA_ENVIDO_VARIANTS),
        default="leader",
        help="what an accepted falta envido is worth (default: leader)",
    )
    p.add_argument("--con-flor-quiero", action="store_true", help="the 'con flor quiero' variant")
    p.add_argument("--pica-pica", action="store_true", help="pica-pica hands (3v3 to 30)")
    p.add_argument(
        "--bots",
        default="",
        metavar="LEVEL,...",
        help="bots as name[:level], one for all or one per bot seat (e.g. simple:easy,search:hard)",
    )
    p.add_argument("--seed", type=int, default=None, help="reproducible deals and bots")
    p.add_argument(
        "--speed", type=_speed, default=1.0, help="bot speed: actions per second (default 1)"
    )


def _rules(args: argparse.Namespace) -> Rules:
    return Rules(
        players=args.players,
        flor=args.flor,
        target=args.target,
        chicos=args.chicos,
        falta_envido=args.falta_envido,
        con_flor_quiero=args.con_flor_quiero,
        pica_pica=args.pica_pica,
    )


def _fail(command: str, message: str) -> int:
    print(f"truco {command}: {message}", file=sys.stderr)
    return 2


def _run(session: Any, args: argparse.Namespace) -> int:
    from .app import TrucoApp

    TrucoApp(session, delay=1.0 / getattr(args, "speed", 1.0)).run()
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    if args.connect:
        return _cmd_connect(args)
    from .session import LocalSession, SessionError

    try:
        session = LocalSession(
            _rules(args), human=args.seat, bots=args.bots.split(","), seed=args.seed
        )
    except (RulesError, SessionError) as exc:
        return _fail("play", str(exc))
    return _run(session, args)


def _cmd_connect(args: argparse.Namespace) -> int:
    from .remote import RemoteError, RemoteSession

    try:
        session = RemoteSession.connect(
            args.connect,
            name=args.name,
            table=args.table,
            rules=_rules(args),
            bots=args.bots.split(","),
            seat=args.seat,
        )
    except (RemoteError, RulesError) as exc:
        return _fail("play", str(exc))
    try:
        return _run(session, args)
    finally:
        session.close()


def _cmd_watch(args: argparse.Namespace) -> int:
    from .session import LocalSession, SessionError

    try:
        session = LocalSession(_rules(args), human=None, bots=args.bots.split(","), seed=args.seed)
    except (RulesError, SessionError) as exc:
        return _fail("watch", str(exc))
    return _run(session, args)


def show_record(file: str, command: str = "show") -> int:
    """Step through the record in ``file`` on the terminal table;
    a file that cannot be read or is not a record gets one line on stderr and status 2."""
    from ..record import RecordError, load_record
    from .viewer import RecordViewer

    if file == "-":
        return _fail(command, "give a file: standard input is the keyboard of the viewer")
    try:
        with open(file, "rb") as f:
            text = f.read()
    except OSError as exc:
        return _fail(command, f"cannot read {file}: {exc.strerror}")
    try:
        viewer = RecordViewer(load_record(text))
    except RecordError as exc:
        return _fail(command, f"{file}: {exc}")
    from .app import TrucoApp

    TrucoApp(viewer).run()
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    return show_record(args.file)


def register(sub: Any) -> None:
    """Add ``play``, ``watch`` and ``show`` to the ``truco`` command."""
    p = sub.add_parser("play", help="play truco in the terminal against bots (or on a server)")
    _table_options(p)
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0, the first mano)")
    p.add_argument("--connect", metavar="URL", help="join a table on a Truco Argento server")
    p.add_argument("--table", metavar="ID", help="with --connect: the table to join")
    p.add_argument("--name", default="player", help="with --connect: your name at the table")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("watch", help="watch bots play truco in the terminal")
    _table_options(p)
    p.set_defaults(func=_cmd_watch)

    p = sub.add_parser("show", help="step through a saved game record in the terminal")
    p.add_argument("file", metavar="FILE", help="a truco-record/1 file")
    p.set_defaults(func=_cmd_show)
