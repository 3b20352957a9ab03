"""The import layers of docs/architecture.md, enforced.

Every module of ``src/truco`` belongs to one layer; it may import only from layers below
its own (``if TYPE_CHECKING`` imports included: a cycle for the type checker is a cycle),
and the engine's layers import nothing outside the standard library.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: docs/architecture.md, bottom to top: a unit may import the units of lower layers only.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("vocabulary", "locale", "refusals"),  # named types; translations; refusal codes
    ("cards", "rules"),  # the deck; table options
    ("actions", "fairness"),  # the action notation; the commitments that prove a deal fair
    ("deal", "scoring"),  # where the cards come from; what every call is worth
    ("game",),  # the rules: the match as a state machine
    ("view", "events", "record", "truco"),  # what a seat sees, a hand's story, records; the API
    ("determinize", "bench", "verify", "narrate"),  # built on views and records
    ("bots",),  # players that see only their view
    ("arena", "analysis"),  # bots at work: bots against bots, a match's decisions weighed
    ("server", "tui", "rl"),  # the front ends: none imports another
    ("cli",),  # the ``truco`` command, which finds the front ends' commands
)
#: The layers that make the engine: standard library only.
ENGINE = {unit for layer in LAYERS[:6] for unit in layer}

_LAYER_OF = {unit: depth for depth, layer in enumerate(LAYERS) for unit in layer}
_PACKAGES = {"analysis", "arena", "bots", "locale", "rl", "server", "tui"}


def unit_of(module: str) -> str:
    """``truco.server.table`` -> ``server``; ``truco.game`` -> ``game``; ``truco`` -> ``truco``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "truco"


def module_name(path: Path, root: Path = SRC) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path, root: Path = SRC) -> Iterator[str]:
    """The absolute names of the modules ``path`` imports (relative imports resolved)."""
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    package = package.removesuffix(".__init__")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None or target in {"truco", *(f"truco.{p}" for p in _PACKAGES)}:
                # ``from . import scoring`` imports the submodule
                yield from (f"{target}.{alias.name}" for alias in node.names)
            else:
                yield target


def modules(root: Path = SRC) -> list[Path]:
    return sorted((root / "truco").rglob("*.py"))


_MODULE_STRING = re.compile(r"truco(\.[a-z_][a-z0-9_]*)+")


def string_arrows(path: Path) -> Iterator[str]:
    """Modules named in strings by a module that uses ``importlib``: an import the ``import``
    statements do not show (``importlib.import_module("truco.rl.policy_bot")``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    uses_importlib = any(
        isinstance(node, ast.Import | ast.ImportFrom)
        and any(
            name.startswith("importlib")
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
        )
        for node in ast.walk(tree)
    )
    if not uses_importlib:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = node.value.split(":")[0]  # an entry point's "module:attribute" too
            if _MODULE_STRING.fullmatch(named):
                yield named


def import_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Every module of ``truco`` and the modules of ``truco`` it imports, inside its own
    package too (``from .table import actor`` is an arrow to ``truco.server.table.actor``)."""
    paths = {module_name(path, root): path for path in modules(root)}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        arrows = set()
        named = [t for t in string_arrows(path) if not module.startswith(t + ".")]
        # (a string naming the module's own package, ``resources.files("truco.bots")``, loads
        # data: the package is imported before any of its modules anyway)
        for target in [*imports(path, root), *named]:
            while target and target not in paths:
                target = target.rpartition(".")[0]
            if target and target != module:
                arrows.add(target)
        graph[module] = arrows
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, arrows = work[-1]
            for target in arrows:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer_violations(root: Path = SRC) -> list[str]:
    """Every import of a unit from its own layer or a higher one."""
    wrong = []
    for path in modules(root):
        module = module_name(path, root)
        unit = unit_of(module)
        for target in dict.fromkeys([*imports(path, root), *string_arrows(path)]):
            other = unit_of(target)
            if target.split(".")[0] != "truco" or other == unit:
                continue
            if _LAYER_OF[other] >= _LAYER_OF[unit]:
                wrong.append(f"{module} imports {target} ({unit} may not import {other})")
    return wrong


def test_no_import_circle_anywhere() -> None:
    """Inside a package too: ``a`` imports ``b`` and ``b`` imports ``a`` (even for the type
    checker only) is one module cut in two; put what both need below them."""
    assert circles(import_graph()) == []


def test_circles_inside_a_package_and_importlib_arrows_are_seen(tmp_path: Path) -> None:
    package = tmp_path / "truco"
    (package / "server" / "table").mkdir(parents=True)
    (package / "bots").mkdir()
    (package / "rl").mkdir()
    for init in ("", "server", "server/table", "bots", "rl"):
        (package / init / "__init__.py").write_text("")
    (package / "server" / "store.py").write_text("from .journal import Journal\n")
    (package / "server" / "journal.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .store import Store\n"
    )
    (package / "server" / "table" / "actor.py").write_text("from . import stored\n")
    (package / "server" / "table" / "stored.py").write_text("from .actor import Actor\n")
    (package / "server" / "app.py").write_text("from .table import actor\n")
    (package / "bots" / "plugins.py").write_text(
        "import importlib\nBOT = importlib.import_module('truco.rl.policy')\n"
    )
    (package / "rl" / "policy.py").write_text("from ..bots import plugins\n")
    assert circles(import_graph(tmp_path)) == [
        ["truco.bots.plugins", "truco.rl.policy"],
        ["truco.server.journal", "truco.server.store"],
        ["truco.server.table.actor", "truco.server.table.stored"],
    ]
    assert layer_violations(tmp_path) == [
        "truco.bots.plugins imports truco.rl.policy (bots may not import rl)"
    ]


def test_every_module_has_a_layer() -> None:
    for path in modules():
        module = module_name(path)
        assert unit_of(module) in _LAYER_OF, f"{module}: give it a layer in docs/architecture.md"


def test_each_layer_imports_only_from_the_layers_below() -> None:
    wrong = layer_violations()
    assert not wrong, "\n".join(wrong)


def test_the_engine_uses_only_the_standard_library() -> None:
    wrong = []
    for path in modules():
        module = module_name(path)
        if unit_of(module) not in ENGINE:
            continue
        for target in imports(path):
            top = target.split(".")[0]
            if top != "truco" and top not in sys.stdlib_module_names:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_an_upward_import_is_caught_even_for_the_type_checker_only(tmp_path: Path) -> None:
    package = tmp_path / "truco"
    (package / "server").mkdir(parents=True)
    (package / "__init__.py").write_text("from .game import Game\n")
    (package / "server" / "__init__.py").write_text("")
    (package / "server" / "app.py").write_text("from ..view import seat_view\n")
    (package / "game.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import scoring\n"
        "if TYPE_CHECKING:\n"
        "    from .view import SeatView\n"
    )
    assert layer_violations(tmp_path) == [
        "truco.game imports truco.view (game may not import view)"
    ]


def task_starts(path: Path) -> list[int]:
    """The lines of ``path`` that start a task without :func:`truco.server.tasks.spawn`:
    a call of ``create_task`` or ``ensure_future`` (``asyncio.``, a loop's, or bare)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in {"create_task", "ensure_future"}:
                lines.append(node.lineno)
    return lines


def test_every_server_task_starts_through_spawn() -> None:
    """docs/architecture.md: every background task of the server is named, kept and its
    failure logged, which only ``server/tasks.spawn`` does."""
    server = SRC / "truco" / "server"
    bypasses = [
        f"{path.relative_to(SRC)}:{line}"
        for path in sorted(server.rglob("*.py"))
        if path != server / "tasks.py"
        for line in task_starts(path)
    ]
    assert bypasses == []


def test_a_bare_create_task_is_caught(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import asyncio\n\nasync def f():\n    asyncio.get_running_loop().create_task(g())\n"
        "    asyncio.ensure_future(g())\n"
    )
    assert task_starts(module) == [4, 5]
