"""The "start here" of docs/research.md: ten lines that train a masked-PPO agent and
evaluate it with intervals. Where torch and sb3-contrib are importable, the lines run as
written (fewer timesteps and matches); where they are not (the test extra leaves torch
out), the evaluation half runs — the environment made by its Gymnasium id and the
arena's report — with a numpy policy as the agent."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "research.md"


def _snippet() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Start here", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1).rstrip("\n").split("\n")


def _run(lines: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("\n".join(lines), "start-here", "exec"), {})
    return out.getvalue()


def test_the_snippet_is_at_most_ten_lines_that_train_and_evaluate() -> None:
    code = [line for line in _snippet() if line.strip()]
    assert len(code) <= 10
    assert any("MaskablePPO(" in line and ".learn(" in line for line in code)
    assert code[-1].startswith("print(compare(agent,")


def test_the_snippet_runs() -> None:
    lines = _snippet()
    has_torch = all(importlib.util.find_spec(m) for m in ("torch", "sb3_contrib"))
    if has_torch:  # the whole snippet, smaller
        lines = [
            line.replace("total_timesteps=100_000", "total_timesteps=256").replace(
                "matches=100", "matches=4"
            )
            for line in lines
        ]
    else:  # the evaluation half, with an agent that needs numpy only
        lines = [line for line in lines if line.strip() and "MaskablePPO" not in line]
        lines = [line for line in lines if not line.startswith("model.")]
        lines.insert(-1, "from truco.rl.policy_bot import LinearPolicy, PolicyBot")
        lines.insert(-1, "agent = PolicyBot(LinearPolicy.zeros(env.unwrapped.game.rules))")
        lines[-1] = lines[-1].replace("matches=100", "matches=4")
    printed = _run(lines)
    assert "95% CI" in printed and "4 matches (2 duplicate pairs" in printed
    assert "simple" in printed
