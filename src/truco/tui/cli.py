"""``truco play``, ``truco watch`` and ``truco show``: the terminal game's commands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..locale import LANGUAGES, _, choose_language, current_language, set_language
from ..rules import FALTA_ENVIDO_VARIANTS, Rules, RulesError

if TYPE_CHECKING:
    from .session import TableSession


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number: {text}").format(text=repr(text))
        ) from None
    if not 0.05 <= value <= 100:
        raise argparse.ArgumentTypeError(_("the speed goes from 0.05 to 100"))
    return value


def _table_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--players", type=int, choices=(2, 4, 6), default=2, help=_("2 (1v1), 4 (2v2) or 6 (3v3)")
    )
    p.add_argument("--flor", action="store_true", help=_("play con flor"))
    p.add_argument(
        "--target", type=int, choices=(15, 30), default=30, help=_("points a chico (default 30)")
    )
    p.add_argument(
        "--chicos", type=int, choices=(1, 3), default=1, help=_("1 chico or the best of 3")
    )
    p.add_argument(
        "--falta-envido",
        choices=sorted(FALTA_ENVIDO_VARIANTS),
        default="leader",
        help=_(
            "what an accepted falta envido is worth: leader (the default), what the leading "
            "team still needs to reach the target; loser, what the loser of the falta still "
            "needs; chico, the whole chico if its winner leads or the rival is in las malas "
            "(else what the rival needs)"
        ),
    )
    p.add_argument(
        "--con-flor-quiero", action="store_true", help=_("the 'con flor quiero' variant")
    )
    p.add_argument("--pica-pica", action="store_true", help=_("pica-pica hands (3v3 to 30)"))
    p.add_argument(
        "--bots",
        default="",
        metavar="BOT,...",
        help=_(
            "bots as name[:level], dealt to the bot seats in seat order and repeated when the "
            "list is shorter (e.g. search:hard,random); default: the strongest installed"
        ),
    )
    p.add_argument("--seed", type=int, default=None, help=_("reproducible deals and bots"))
    p.add_argument(
        "--speed", type=_speed, default=1.0, help=_("bot speed: actions per second (default 1)")
    )
    _lang_option(p)


def _lang_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=None,
        help=_(
            "language of the screen: es (Rioplatense Spanish) or en; default from "
            "LANGUAGE/LC_ALL/LC_MESSAGES/LANG, else es"
        ),
    )


def _set_language(args: argparse.Namespace) -> None:
    set_language(choose_language(getattr(args, "lang", None)))


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


def _run(session: TableSession, args: argparse.Namespace) -> int:
    from .app import TrucoApp

    TrucoApp(session, delay=1.0 / getattr(args, "speed", 1.0)).run()
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    _set_language(args)
    if args.connect:
        return _cmd_connect(args)
    if args.table or args.name is not None or args.login is not None:
        option = "--table" if args.table else "--name" if args.name is not None else "--login"
        return _fail(
            "play",
            _("{option} is for a server's table: give --connect URL too").format(option=option),
        )
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
        password = None
        if args.login is not None:
            password = _password()
        session = RemoteSession.connect(
            args.connect,
            name=args.login or args.name or "player",
            table=args.table,
            rules=_rules(args),
            bots=args.bots.split(","),
            seat=args.seat,
            password=password,
            waiting=lambda: print(_("waiting for the other players to accept…"), file=sys.stderr),
        )
    except (RemoteError, RulesError) as exc:
        return _fail("play", str(exc))
    try:
        return _run(session, args)
    finally:
        session.close()


def _password() -> str:
    """The account's password: ``TRUCO_PASSWORD``, or asked without echo."""
    import getpass
    import os

    from .remote import RemoteError

    given = os.environ.get("TRUCO_PASSWORD")
    if given:
        return given
    if not sys.stdin.isatty():
        raise RemoteError(_("--login needs a password: set TRUCO_PASSWORD or run in a terminal"))
    return getpass.getpass(_("password: "))


def _cmd_watch(args: argparse.Namespace) -> int:
    _set_language(args)
    from .session import LocalSession, SessionError

    try:
        session = LocalSession(_rules(args), human=None, bots=args.bots.split(","), seed=args.seed)
    except (RulesError, SessionError) as exc:
        return _fail("watch", str(exc))
    return _run(session, args)


def show_record(
    file: str,
    command: str = "show",
    lang: str | None = None,
    analyze: bool = False,
    analysis: Mapping[str, Any] | None = None,
) -> int:
    """Step through the record in ``file`` on the terminal table, in ``lang`` (default:
    the environment's), with ``truco analyze``'s grades when ``analyze`` (``analysis``:
    its options, ``seats``, ``seed``, ``worlds``); a file that cannot be read or is not a
    record gets one line on stderr and status 2."""
    set_language(choose_language(lang))
    from ..record import RecordError, load_record
    from .viewer import RecordViewer

    if file == "-":
        return _fail(command, _("give a file: standard input is the keyboard of the viewer"))
    try:
        with open(file, "rb") as f:
            text = f.read()
    except OSError as exc:
        return _fail(
            command, _("cannot read {file}: {error}").format(file=file, error=exc.strerror)
        )
    try:
        record = load_record(text)
        viewer = RecordViewer(record)
        if analyze:
            viewer.marks = _analysis_marks(record, viewer.names, analysis or {})
    except RecordError as exc:
        return _fail(command, f"{file}: {exc}")
    from .app import TrucoApp

    TrucoApp(viewer).run()
    return 0


def _analysis_marks(
    record: Any, names: Sequence[str], options: Mapping[str, Any]
) -> dict[tuple[int, int], str]:
    """``truco analyze``'s grades of the record's decisions in words, for the viewer."""
    from ..analysis import analyze
    from ..analysis.cli import marks_text

    return marks_text(analyze(record, **options), names, current_language())


def _cmd_show(args: argparse.Namespace) -> int:
    return show_record(args.file, lang=args.lang, analyze=args.analyze)


def register(sub: Any) -> None:
    """Add ``play``, ``watch`` and ``show`` to the ``truco`` command."""
    p = sub.add_parser(
        "play",
        help="play truco in the terminal against bots (or on a server)",
        description=_(
            "Play at a table in the terminal: you at --seat, bots in the other seats; "
            "or, with --connect, at a table of a Truco Argento server."
        ),
        lang=current_language(),
    )
    _table_options(p)
    p.add_argument("--seat", type=int, default=0, help=_("your seat (default 0, the first mano)"))
    p.add_argument(
        "--connect",
        metavar="URL",
        help=_(
            "play on a Truco Argento server: its address creates a table there, "
            "a table's address (/t/CODE) joins it"
        ),
    )
    p.add_argument("--table", metavar="CODE", help=_("with --connect: the table to join"))
    p.add_argument("--name", default=None, help=_("with --connect: your name at the table"))
    p.add_argument(
        "--login",
        metavar="NAME",
        default=None,
        help=_(
            "with --connect: play as your account NAME (the password from TRUCO_PASSWORD, "
            "or asked): challenges sent to you, rated tables"
        ),
    )
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser(
        "watch",
        help="watch bots play truco in the terminal",
        description=_(
            "Watch bots play a match in the terminal, every hand open "
            "(space pauses, + and - change the speed)."
        ),
        lang=current_language(),
    )
    _table_options(p)
    p.set_defaults(func=_cmd_watch)

    p = sub.add_parser(
        "show",
        help="step through a saved game record in the terminal",
        description=_(
            "Step through a truco-record/1 file action by action, every hand open "
            "(→/← step, PgDn/PgUp jump a hand, Home/End)."
        ),
        lang=current_language(),
    )
    p.add_argument("file", metavar="FILE", help=_("a truco-record/1 file"))
    p.add_argument(
        "--analyze",
        action="store_true",
        help=_("mark the decisions truco analyze grades (the same as: truco analyze FILE --show)"),
    )
    _lang_option(p)
    p.set_defaults(func=_cmd_show)
