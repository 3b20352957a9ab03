"""benchmarks/engine_speed.py's fixed work: the same seeded matches, hands and actions on
every run, so instruction counts of two engine versions compare."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from truco.bench import play_random_matches
from truco.rules import Rules

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "engine_speed.py"


def fixed_work(*args: str) -> list[str]:
    command = [sys.executable, str(SCRIPT), "--matches", "4", *args]
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.splitlines()


def test_the_fixed_work_is_the_same_on_every_run() -> None:
    first = fixed_work("--players", "4", "--con-flor")
    assert len(first) == 1 and re.fullmatch(
        r"2v2 con flor a 30 +4 matches, \d+ hands, \d+ actions", first[0]
    )
    assert fixed_work("--players", "4", "--con-flor") == first
    assert len(fixed_work()) == 6  # every table


def test_a_fixed_number_of_matches_plays_exactly_that_many() -> None:
    rules = Rules(players=2)
    one = play_random_matches(rules, 0.0, seed=5, matches=1)
    two = play_random_matches(rules, 0.0, seed=5, matches=2)
    # the hands played: the first match is the same in both runs, the second adds some
    hands_one = one.hands_per_s / one.matches_per_s
    hands_two = 2 * two.hands_per_s / two.matches_per_s
    assert round(hands_one) >= 1 and round(hands_two) > round(hands_one)
