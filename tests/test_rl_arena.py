"""``truco.arena.compare``: the arena's report for agents held in memory (issue 32:
evaluating an in-memory agent against the bots needed the undocumented
``truco.bots.BOTS`` dict)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from truco.arena import compare
from truco.arena.stats import wilson_interval
from truco.rules import Rules

ARGS = ["--target", "15", "--matches", "6", "--seed", "3", "--jobs", "1", "--json"]
TIMES = ("decision_ms_mean", "decision_ms_p95", "decision_cpu_ms_mean", "decision_cpu_ms_p95")


def _untimed(report: dict[str, object]) -> dict[str, object]:
    bots = [{k: v for k, v in b.items() if k not in TIMES} for b in report["bots"]]  # type: ignore[attr-defined]
    return {**{k: v for k, v in report.items() if k not in ("rules", "seed", "jobs")}, "bots": bots}


def test_compare_gives_the_report_of_the_command() -> None:
    rules = Rules(target=15)
    command = subprocess.run(
        [sys.executable, "-m", "truco.cli", "arena", "simple", "random", *ARGS],
        capture_output=True,
        text=True,
        check=True,
    )
    report = compare("simple", "random", rules, matches=6, seed=3)
    assert _untimed(report.to_json()) == _untimed(json.loads(command.stdout))


def test_an_agent_in_memory_is_compared_with_wilson_intervals() -> None:
    pytest.importorskip("numpy")
    from truco.rl.policy_bot import LinearPolicy, PolicyBot

    rules = Rules(target=15)
    agent = PolicyBot(LinearPolicy.zeros(rules), seed=1)  # never saved to a file
    report = compare(agent, "simple", rules, matches=8, seed=0)
    line = report.bots[0]
    assert report.matches == 8 and line.name == repr(agent)
    assert line.ci95 == wilson_interval(line.match_wins, 8)
    assert report.bots[0].match_wins + report.bots[1].match_wins == 8
    with pytest.raises(ValueError, match="even"):
        compare(agent, "simple", rules, matches=3)
