"""Honest packaging: the base install is the engine and its command line, standard
library only; every other command says in one line which extra it needs.

Each check runs ``truco`` in a fresh interpreter where an import hook refuses modules:
either every module outside the standard library (the base install), or the packages
of one extra (that extra not installed).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "records" / "01_plain_hand.json"

# Runs truco.cli.main(argv) with an import hook that refuses some top-level modules:
# BLOCK is a list of names, or "non-stdlib" for everything outside the standard library.
_RUNNER = """
import sys
BLOCK, argv = sys.argv[1], sys.argv[2:]

class Refuse:
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if BLOCK == "non-stdlib":
            refused = top not in sys.stdlib_module_names and top not in ("truco", "_distutils_hack")
        else:
            refused = top in BLOCK.split(",")
        if refused:
            raise ModuleNotFoundError(f"No module named {name!r} (refused)", name=name)
        return None

sys.meta_path.insert(0, Refuse())
from truco.cli import main
sys.exit(main(argv))
"""


def truco(block: str, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _RUNNER, block, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def test_the_base_commands_need_only_the_standard_library(tmp_path: Path) -> None:
    done = truco("non-stdlib", "--help")
    assert done.returncode == 0, done.stderr
    for command in ("replay", "bench", "arena", "serve", "play"):
        assert command in done.stdout
    done = truco("non-stdlib", "replay", str(RECORD))
    assert done.returncode == 0, done.stderr
    assert '"hands"' in done.stdout
    done = truco("non-stdlib", "bench", "--players", "2", "--seconds", "0.05", "--runs", "1")
    assert done.returncode == 0, done.stderr
    done = truco(
        "non-stdlib", "arena", "random", "simple", "--matches", "2", "--jobs", "1", "--json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"] == 2


def test_the_student_s_model_ships_and_loads_with_the_standard_library() -> None:
    """The top bot's trained model is package data, loaded with no extra installed."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["truco.bots"]
    shipped = {p for pattern in patterns for p in (ROOT / "src/truco/bots").glob(pattern)}
    assert ROOT / "src/truco/bots/data/student-v1.json.gz" in shipped
    done = truco(
        "non-stdlib", "arena", "student", "simple", "--matches", "2", "--jobs", "1", "--json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"] == 2


@pytest.mark.parametrize(
    ("block", "argv", "extra"),
    [
        ("textual,rich", ("replay", "--show", str(RECORD)), "tui"),
        ("textual,rich", ("play",), "tui"),
        ("httpx,websockets", ("play", "--connect", "http://127.0.0.1:9"), "tui"),
        ("fastapi,uvicorn,starlette,pydantic,sqlalchemy", ("serve", "--port", "0"), "server"),
    ],
    ids=["replay --show", "play", "play --connect", "serve"],
)
def test_a_command_without_its_extra_says_which_to_install(
    block: str, argv: tuple[str, ...], extra: str
) -> None:
    done = truco(block, *argv, timeout=30)
    assert done.returncode == 2
    assert done.stderr == (
        f"truco {argv[0]}: this command needs the {extra!r} extra: "
        f"pip install 'truco-argento[{extra}]'\n"
    )


def test_the_extras_are_declared_and_the_base_has_no_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project.get("dependencies", []) == []
    extras = project["optional-dependencies"]
    assert {"server", "tui", "postgres", "rl", "all", "test"} <= extras.keys()
    assert {"server", "tui", "postgres", "rl"} <= own_extras(extras["all"])
    assert "all" in own_extras(extras["test"])


def own_extras(requirements: list[str]) -> set[str]:
    """The project's own extras that a list of requirements pulls in."""
    found: set[str] = set()
    for req in requirements:
        if req.startswith("truco-argento["):
            found |= {e.strip() for e in req.split("[", 1)[1].rstrip("]").split(",")}
    return found


def test_package_data_names_files_that_exist() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for package, patterns in config["tool"]["setuptools"]["package-data"].items():
        base = ROOT / "src" / package.replace(".", "/")
        for pattern in patterns:
            assert list(base.glob(pattern)), f"{package}: {pattern} names no file"
