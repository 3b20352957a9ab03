"""The masked-PPO example (sb3-contrib, the optional ``ppo`` extra): a tiny run end to
end, and the ``ppo:`` bot kind that seats its model. Skipped where sb3-contrib is not
installed (it needs torch, which the test extra leaves out)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from truco import Game, Rules
from truco.bots import make_bot
from truco.view import seat_view

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_masked_ppo.py"


def test_a_ppo_bot_that_cannot_be_loaded_says_why_in_one_line(tmp_path: Path) -> None:
    # registers ``ppo`` whatever the installed metadata holds (the entry point that finds
    # it by name is tested in tests/test_rl_bot_entry_points.py)
    import truco.rl.policy_bot  # noqa: F401

    with pytest.raises(ValueError, match="cannot load the policy") as caught:
        make_bot(f"ppo:{tmp_path / 'missing.zip'}")
    assert "\n" not in str(caught.value)


def test_a_tiny_training_run_saves_a_model_the_arena_seats(tmp_path: Path) -> None:
    pytest.importorskip(
        "sb3_contrib", reason="sb3-contrib is not installed (optional: the 'ppo' extra)"
    )
    out = tmp_path / "tiny.zip"
    args = ["--timesteps", "512", "--n-envs", "2", "--out", str(out)]
    args += ["--eval", "random", "--eval-matches", "2"]
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["decisions"] >= 512
    report = summary["arena"]["random"]
    assert report["matches"] == 2 and report["bots"][0]["name"] == f"ppo:{out}"
    bot = make_bot(f"ppo:{out}", seed=1)
    game = Game(Rules(), seed=4)
    while not game.is_over:
        seat = game.actors()[0]
        legal = game.legal_actions(seat)
        action = bot.choose(seat_view(game, seat), legal, game.rules)
        assert action in legal
        game.apply(seat, action)
