"""Bots of optional parts are found through entry points, not by a module name in bots/.

``truco.bots.make_bot("linear:PATH")`` seats a policy of the research extra; the bots
package (layer 8) must not name ``truco.rl`` (layer 10) to find it, even as a string
handed to importlib, which the architecture test cannot see. pyproject.toml declares the
kinds in the entry-point group ``truco.bots``, and ``truco.bots.plugin_bot`` loads them.
The shared development venv may hold metadata older than that declaration, so these
tests use a fake entry point, and a distribution written from pyproject's own table.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint, EntryPoints
from pathlib import Path

import pytest
from tests.test_architecture import imports

import truco.bots
from truco.bots import PLUGIN_BOTS, Bot, RandomBot, make_bot, plugin_bot

ROOT = Path(__file__).resolve().parents[1]


def declared() -> dict[str, str]:
    """pyproject.toml's ``[project.entry-points."truco.bots"]``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    table: dict[str, str] = project["entry-points"]["truco.bots"]
    return table


def declared_distribution(folder: Path) -> Path:
    """A distribution in ``folder`` declaring pyproject's ``truco.bots`` entry points
    (what an install of the package writes), for a process with ``folder`` on its path."""
    info = folder / "truco_bots_declared-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: truco-bots-declared\nVersion: 0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in declared().items())
    (info / "entry_points.txt").write_text(f"[truco.bots]\n{lines}")
    return folder


def fake_factory(level: str, seed: int | None) -> Bot:
    return RandomBot(level, seed)


def test_a_bot_declared_as_an_entry_point_is_made_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    point = EntryPoint(name="fake", value=f"{__name__}:fake_factory", group=truco.bots.ENTRY_POINTS)

    def fake_entry_points(*, group: str, name: str) -> EntryPoints:
        return EntryPoints(p for p in [point] if p.group == group and p.name == name)

    monkeypatch.setattr(truco.bots, "entry_points", fake_entry_points)
    monkeypatch.setattr(truco.bots, "PLUGIN_BOTS", set(PLUGIN_BOTS))
    assert plugin_bot("fake") is fake_factory
    bot = make_bot("fake:some-level", seed=3)
    assert isinstance(bot, RandomBot) and "fake" in truco.bots.PLUGIN_BOTS
    assert plugin_bot("absent") is None
    with pytest.raises(ValueError, match="unknown bot 'absent'"):
        make_bot("absent")


def test_pyproject_declares_the_policy_bots_and_they_load() -> None:
    from truco.rl import policy_bot

    points = {
        name: EntryPoint(name=name, value=value, group="truco.bots")
        for name, value in declared().items()
    }
    assert points["linear"].load() is policy_bot.load_bot
    assert points["ppo"].load() is policy_bot.load_ppo_bot
    assert {"linear", "ppo"} <= PLUGIN_BOTS  # the lobby leaves them out


def test_the_bots_package_names_no_module_of_the_research_interface() -> None:
    """Neither an import nor a string a module could be loaded by (``"truco.rl.x"``,
    ``"truco.rl.x:name"``); prose may mention them."""
    named = re.compile(r"truco\.rl(\.\w+)*(:\w+)?")
    for path in (ROOT / "src" / "truco" / "bots").rglob("*.py"):
        assert not [t for t in imports(path) if t.startswith("truco.rl")], path
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
        assert not [v for v in strings if isinstance(v, str) and named.fullmatch(v)], path


def test_a_fresh_process_finds_the_declared_bot_without_importing_rl(tmp_path: Path) -> None:
    """With pyproject's declaration installed, ``make_bot("linear:PATH")`` loads the
    research extra on first use (a missing file is refused in one clear line)."""
    folder = declared_distribution(tmp_path / "site")
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(folder)!r})\n"
        "from truco.bots import make_bot\n"
        "assert 'truco.rl' not in sys.modules\n"
        "try:\n"
        f"    make_bot('linear:{tmp_path / 'missing.npz'}')\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "cannot load the policy" in out.stdout and "missing.npz" in out.stdout
