"""The ``truco`` command line: --version, help on every command and option, one-line
errors for bad options, an honest ``bench``, ``serve``'s startup errors, and the rule
that deals a short ``--bots`` list to the bot seats."""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from truco.cli import build_parser, main, package_version
from truco.locale import DEFAULT_LANGUAGE, set_language
from truco.rules import Rules
from truco.tui.session import LocalSession, SessionError, bot_specs

TRUCO = [sys.executable, "-m", "truco.cli"]
#: The commands whose help this test holds to account (arena's belongs to the bots).
COMMANDS = ("replay", "bench", "play", "watch", "show", "serve")


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TRUCO, *args], capture_output=True, text=True, timeout=timeout)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"truco-argento {package_version()}"


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_description_and_every_option_help(command: str) -> None:
    sub = subparsers()[command]
    assert sub.description and len(sub.description) > 30, command
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"truco {command} {action.option_strings or action.dest}: no help"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["bench", "--seconds", "0"], "more than 0 seconds"),
        (["bench", "--seconds", "-1"], "more than 0 seconds"),
        (["bench", "--seconds", "abc"], "not a number"),
        (["bench", "--runs", "0"], "at least 1 run"),
        (["play", "--players", "3", "--lang", "en"], "invalid choice"),
        (["play", "--players", "3", "--lang", "es"], "opción inválida: 3 (elegí entre 2, 4, 6)"),
        (["watch", "--speed", "0", "--lang=es"], "argumento --speed: la velocidad va de 0.05"),
        (["show", "--lang", "es"], "falta: FILE"),
        (["nosuch"], "invalid choice"),
    ],
)
def test_bad_options_are_one_line(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and "--help" in err[0], err


def test_table_without_connect_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--table", "abc123", "--lang", "en"]) == 2
    assert main(["play", "--name", "Ana", "--lang", "es"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "truco play: --table is for a server's table: give --connect URL too",
        "truco play: --name es para la mesa de un servidor: dá también --connect URL",
    ]


@pytest.fixture(autouse=True)
def screen_language() -> Iterator[None]:
    """``main`` sets the terminal game's language: each test starts and ends in Spanish."""
    set_language(DEFAULT_LANGUAGE)
    yield
    set_language(DEFAULT_LANGUAGE)


@pytest.mark.parametrize(
    ("env", "says", "not_said"),
    [
        (
            {"LANG": "C.UTF-8"},
            ["uso: truco play", "opciones:", "mostrar esta ayuda", "tu lugar"],
            ["your seat"],
        ),
        (
            {"LANG": "en_US.UTF-8"},
            ["usage: truco play", "options:", "your seat"],
            ["tu lugar", "uso:"],
        ),
    ],
)
def test_the_help_of_the_terminal_game_follows_the_language(
    env: dict[str, str], says: list[str], not_said: list[str]
) -> None:
    """Spanish by default like the screen, English from LANG or --lang."""
    shown = subprocess.run(
        [*TRUCO, "play", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", **env},
    ).stdout
    assert all(text in shown for text in says), shown
    assert not any(text in shown for text in not_said), shown
    forced = run("watch", "--help", "--lang", "en").stdout
    assert "usage: truco watch" in forced and "Watch bots play" in forced


@pytest.mark.parametrize(
    ("lang", "worth"),
    [
        ("es", ["al que va ganando", "al que pierde la falta", "el chico entero"]),
        ("en", ["the leading team still needs", "the loser of the falta", "the whole chico"]),
    ],
)
def test_the_falta_envido_help_says_what_each_variant_is_worth(lang: str, worth: list[str]) -> None:
    """``--falta-envido {chico,leader,loser}`` named its variants without a word on them."""
    shown = " ".join(run("play", "--help", "--lang", lang).stdout.split())
    start = shown.index("--falta-envido {chico,leader,loser} ")
    entry = shown[start : shown.index("--con-flor-quiero", start)]
    assert all(words in entry for words in worth), entry
    assert all(variant in entry for variant in ("leader", "loser", "chico")), entry


def test_bench_says_how_long_it_takes_and_shows_progress() -> None:
    done = run("bench", "--players", "2", "--flor", "--seconds", "0.05", "--runs", "2")
    assert done.returncode == 0, done.stderr
    assert "1 table(s) x 2 run(s) x 0.05 s = about 0.1 s" in done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("1v1 con flor") and "hands/s" in lines[0]
    json_run = run("bench", "--players", "4", "--seconds", "0.05", "--runs", "1", "--json")
    assert json_run.returncode == 0
    assert "[1/2]" in json_run.stderr and "[2/2]" in json_run.stderr  # progress, per table
    assert json_run.stdout.strip().startswith("[{")


def test_a_short_bots_list_is_dealt_round_the_bot_seats() -> None:
    assert bot_specs(4, None, ["search:hard", "random"]) == {
        0: "search:hard",
        1: "random",
        2: "search:hard",
        3: "random",
    }
    assert bot_specs(6, 2, ["a", "b"]) == {0: "a", 1: "b", 3: "a", 4: "b", 5: "a"}
    assert bot_specs(4, 0, [" simple ", ""]) == {1: "simple", 2: "simple", 3: "simple"}
    with pytest.raises(SessionError, match="only 3 bot seats"):
        bot_specs(4, 0, ["a", "b", "c", "d"])
    # the README's example: four bots from two levels
    session = LocalSession(Rules(players=4), human=None, bots=["search:hard", "random"], seed=1)
    assert [repr(session.bots[s]).split(":")[0] for s in range(4)] == [
        "search",
        "random",
        "search",
        "random",
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_with_a_bad_database_url_is_one_line(tmp_path: Path) -> None:
    done = run("serve", "--port", str(free_port()), "--db", "foo://bar")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "truco serve: cannot use the database foo://bar: Can't load plugin: sqlalchemy.dialects:foo"
    ]
    assert "open http" not in done.stdout


def test_serve_on_a_busy_port_is_one_line_and_never_says_open(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        db = f"sqlite:///{tmp_path / 'truco.sqlite3'}"
        done = run("serve", "--port", str(port), "--db", db)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"truco serve: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]
    assert done.stdout == ""
    assert not (tmp_path / "truco.sqlite3").exists()  # nothing was touched


def test_serve_says_open_once_it_listens(tmp_path: Path) -> None:
    import urllib.request

    port = free_port()
    db = f"sqlite:///{tmp_path / 'truco.sqlite3'}"
    proc = subprocess.Popen(
        [*TRUCO, "serve", "--port", str(port), "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == (
            f"Truco Argento: open http://127.0.0.1:{port}/ in a browser (Ctrl+C stops)"
        )
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert page.status == 200  # it was really listening when it said so
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# ---------------------------------------------------------------- output cut short
GOLDEN = Path(__file__).parent / "records"


@pytest.mark.parametrize(
    "args",
    [
        ("replay", str(GOLDEN / "24_three_chicos.json")),
        ("analyze", str(GOLDEN / "01_plain_hand.json"), "--worlds", "2"),
        ("--help",),
        ("analyze", "--help"),
    ],
    ids=lambda a: " ".join(a[:1] + a[-1:]),
)
def test_a_reader_that_goes_away_ends_the_command_quietly(args: tuple[str, ...]) -> None:
    """``truco analyze FILE | head``: the reader closes the pipe before the command writes;
    no BrokenPipeError traceback, no "Exception ignored", exit 141 (128 + SIGPIPE)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before a byte is written: a certain EPIPE
    try:
        done = subprocess.run(
            [*TRUCO, *args], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120
        )
    finally:
        os.close(write_end)
    assert done.stderr == "", done.stderr
    # argparse's help swallows its own write error and exits 0: silent either way
    assert done.returncode in ((0, 141) if "--help" in args else (141,)), done.returncode


def test_piped_to_head_through_a_shell() -> None:
    """The same through a real shell pipeline: whatever head leaves unread, no traceback."""
    command = " ".join([*TRUCO, "--help"]) + " | head -n 1"
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.startswith("usage: truco") and done.stderr == ""


def test_analyze_show_is_show_analyze(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's ``truco analyze RECORD --show`` opens the viewer with the grades, as
    ``truco show RECORD --analyze`` does; each command's help names the other."""
    import truco.tui.cli

    calls: list[tuple[str, str, bool, object]] = []

    def viewer(
        file: str,
        command: str = "show",
        lang: object = None,
        analyze: bool = False,
        analysis: object = None,
    ) -> int:
        calls.append((file, command, analyze, analysis))
        return 0

    monkeypatch.setattr(truco.tui.cli, "show_record", viewer)
    record = str(GOLDEN / "01_plain_hand.json")
    assert main(["analyze", record, "--show", "--worlds", "5", "--seat", "1"]) == 0
    assert calls == [(record, "analyze", True, {"seats": {1}, "resample": 0, "worlds": 5})]
    helps = subparsers()
    analyze_help = " ".join(helps["analyze"].format_help().split())
    show_help = " ".join(helps["show"].format_help().split())
    assert "the same as: truco show RECORD --analyze" in analyze_help
    assert re.search(r"truco analyze (FILE|ARCHIVO) --show", show_help), show_help
