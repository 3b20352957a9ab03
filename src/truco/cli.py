"""The ``truco`` command.

The base install (the engine, ``replay``, ``bench``, ``arena``) needs only the standard
library; a command that needs an extra says in one line which one to install.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .bench import positive_runs, positive_seconds
from .locale import choose_language, set_language, translation
from .locale.commands import translate_usage_error
from .record import RecordError, load_record, replay

#: The extra that brings each third-party package a command may need.
EXTRA_OF_PACKAGE: dict[str, str] = {
    "fastapi": "server",
    "starlette": "server",
    "uvicorn": "server",
    "pydantic": "server",
    "sqlalchemy": "server",
    "psycopg": "postgres",
    "textual": "tui",
    "rich": "tui",
    "httpx": "tui",
    "websockets": "tui",
    "numpy": "rl",
    "gymnasium": "rl",
    "pettingzoo": "rl",
    "pyspiel": "openspiel",
}


def missing_extra(exc: ImportError) -> str | None:
    """The one-line advice for an import that failed because an extra is not installed
    (``None`` if the missing module belongs to no extra).

    >>> print(missing_extra(ModuleNotFoundError("No module named 'textual'", name="textual")))
    this command needs the 'tui' extra: pip install 'truco-argento[tui]'
    """
    package = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_PACKAGE.get(package)
    if extra is None:
        return None
    return f"this command needs the {extra!r} extra: pip install 'truco-argento[{extra}]'"


#: Modules with a ``register(subparsers)`` function that adds their commands.
_COMMAND_MODULES: list[str] = ["truco.tui.cli", "truco.server.cli", "truco.arena", "truco.analysis"]
#: Command modules of the core package (standard library only): always registered.
_CORE_MODULES: list[str] = ["truco.verify"]


def _cmd_replay(args: argparse.Namespace) -> int:
    name = args.file
    if args.show:  # the terminal viewer; plain replay never loads Textual
        from .tui.cli import show_record

        return show_record(name, "replay")
    try:
        if name == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as f:
                text = f.read()
    except OSError as exc:
        print(f"truco replay: cannot read {name}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        result = replay(load_record(text))
    except RecordError as exc:
        print(f"truco replay: {name}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), ensure_ascii=False))
    return 1 if result.error else 0


def _cmd_analyze_show(args: argparse.Namespace) -> int:
    """``truco analyze RECORD --show``: ``truco show RECORD --analyze`` with its options."""
    from .tui.cli import show_record

    options = {"seats": set(args.seat) if args.seat else None, "resample": args.resample}
    return show_record(
        args.file, "analyze", analyze=True, analysis={**options, "worlds": args.worlds}
    )


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_bench

    return run_bench(args)


#: Commands of the core package: running them never imports the server, bots or terminal UI.
_CORE_COMMANDS = {"replay", "bench", "verify"}


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: what is wrong, and where help is.
    With ``lang`` (the terminal game's commands) argparse's own words (the usage line,
    section titles, errors) are shown in that language too."""

    def __init__(self, *args: Any, lang: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lang = lang
        if lang is not None:
            gettext = translation(lang).gettext
            self._positionals.title = gettext("positional arguments")
            self._optionals.title = gettext("options")
            for action in self._actions:
                if isinstance(action, argparse._HelpAction):
                    action.help = gettext("show this help message and exit")

    def _words(self, text: str) -> str:
        """``text`` with argparse's usage prefix in the parser's language (the usage's
        continuation lines indented to match)."""
        if self.lang is None or not text.startswith("usage: "):
            return text
        prefix = translation(self.lang).gettext("usage: ")
        shift = len(prefix) - len("usage: ")
        usage, blank, rest = text.removeprefix("usage: ").partition("\n\n")
        lines = usage.split("\n")
        for i in range(1, len(lines)):
            lines[i] = " " * max(0, shift) + lines[i][max(0, -shift) :]
        return prefix + "\n".join(lines) + blank + rest

    def format_usage(self) -> str:
        return self._words(super().format_usage())

    def format_help(self) -> str:
        return self._words(super().format_help())

    def error(self, message: str) -> NoReturn:
        if self.lang is None:
            self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")
        see = translation(self.lang).gettext("see {help}").format(help=f"{self.prog} --help")
        self.exit(2, f"{self.prog}: {translate_usage_error(message, self.lang)} ({see})\n")


def package_version() -> str:
    """The installed version of ``truco-argento`` (``unknown`` when run from a bare tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("truco-argento")
    except PackageNotFoundError:
        return "unknown"


def build_parser(with_plugins: bool = True) -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="truco",
        description="Argentine truco: replay records, measure the engine, play in the terminal, "
        "serve the online table, compare bots.",
    )
    parser.add_argument("--version", action="version", version=f"truco-argento {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "replay",
        help="replay a game record and print what each hand scored",
        description="Replay a truco-record/1 file through the engine and print each hand's "
        "points as JSON. Exit 1 (with the error object) on an illegal action, "
        "2 on a malformed record.",
    )
    p.add_argument("file", metavar="FILE", help="a truco-record/1 file, or - for standard input")
    p.add_argument("--show", action="store_true", help="step through the record in the terminal")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser(
        "bench",
        help="play random matches and report the engine's speed",
        description="Play complete random matches on one core, table by table, and report the "
        "median over the runs of hands/s, matches/s and µs per action. The whole bench takes "
        "tables x runs x seconds (6 tables by default).",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=(2, 4, 6),
        action="append",
        help="a table size to measure (repeat for several; default 2, 4 and 6)",
    )
    p.add_argument("--flor", action="store_true", default=None, help="only tables con flor")
    p.add_argument(
        "--seconds",
        type=positive_seconds,
        default=2.0,
        help="seconds of each run of each table (default 2)",
    )
    p.add_argument(
        "--runs",
        type=positive_runs,
        default=3,
        help="runs per table, at least 1; the median is reported (default 3)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="seed of the deals and the random players"
    )
    p.add_argument("--json", action="store_true", help="print a JSON list (progress on stderr)")
    p.set_defaults(func=_cmd_bench)

    # Each part of the package adds its own commands (arena, serve, play, ...).
    for module_name in _CORE_MODULES + (_COMMAND_MODULES if with_plugins else []):
        module = importlib.import_module(module_name)
        module.register(sub)
    return parser


#: The terminal game's commands: their help and errors follow ``--lang`` or the environment.
_SCREEN_COMMANDS = {"play", "watch", "show"}


def asked_language(argv: Sequence[str]) -> str | None:
    """The ``--lang`` of a command line, if any (``--lang en`` or ``--lang=en``).

    >>> asked_language(["play", "--lang", "en"]), asked_language(["play", "--lang=es"])
    ('en', 'es')
    """
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.removeprefix("--lang=")
    return None


def _screen_language(argv: Sequence[str]) -> None:
    """Set the terminal game's language before its commands' help is written (an
    unknown ``--lang`` is left for argparse to refuse, in the environment's language)."""
    try:
        set_language(choose_language(asked_language(argv)))
    except ValueError:
        set_language(choose_language(None))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``truco`` command; its exit status. Output cut short by the reader (``truco
    analyze FILE | head``) ends the command quietly with 141, as a shell's SIGPIPE would."""
    try:
        try:
            code = _main(argv)
        finally:  # (--help exits through here: its text may still be in the buffer)
            sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone()
    return code


#: The exit status of a command whose reader went away (128 + SIGPIPE, as shells report it).
EXIT_BROKEN_PIPE = 141


def _reader_gone() -> int:
    """The standard recipe (Python's signal docs): point standard output at devnull, so
    that the interpreter's last flush at exit does not fail a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in _SCREEN_COMMANDS:
        _screen_language(argv)
    args = build_parser(with_plugins=command not in _CORE_COMMANDS).parse_args(argv)
    # ``analyze --show`` opens the terminal viewer, a front end the analysis may not import
    func = _cmd_analyze_show if args.command == "analyze" and args.show else args.func
    try:
        code: int = func(args)
    except KeyboardInterrupt:
        return 130
    except ImportError as exc:
        advice = missing_extra(exc)
        if advice is None:
            raise
        print(f"truco {args.command}: {advice}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
