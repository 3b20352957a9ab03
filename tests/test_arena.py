"""The arena: statistics with known answers, and a short run end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from truco.arena.match import MatchResult, bot_of_team
from truco.arena.report import summarize
from truco.arena.stats import elo_difference, mean_interval, percentile, wilson_interval
from truco.cli import main
from truco.record import load_record, replay


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.40383, abs=1e-5) and hi == pytest.approx(0.59617, abs=1e-5)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-5)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.72247, abs=1e-5) and hi == pytest.approx(1.0)
    lo, hi = wilson_interval(650, 1000)
    assert lo == pytest.approx(0.61992, abs=1e-4) and hi == pytest.approx(0.67897, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_mean_interval_known_values() -> None:
    mean, lo, hi = mean_interval([1, 2, 3, 4, 5])
    half = 1.959963984540054 * math.sqrt(2.5 / 5)
    assert mean == 3 and lo == pytest.approx(3 - half) and hi == pytest.approx(3 + half)
    assert mean_interval([2.0]) == (2.0, 2.0, 2.0)
    assert mean_interval([]) == (0.0, 0.0, 0.0)


def test_elo_difference() -> None:
    assert elo_difference(0.5) == 0
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_difference(1.0) == math.inf
    assert elo_difference(1.0, 10) == pytest.approx(-400 * math.log10(1 / 0.95 - 1))


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile(list(range(101)), 95) == 95
    assert percentile([7], 95) == 7
    assert percentile([], 95) == 0.0


def test_duplicate_pairs_swap_the_teams() -> None:
    assert [bot_of_team(t, False) for t in (0, 1)] == [0, 1]
    assert [bot_of_team(t, True) for t in (0, 1)] == [1, 0]


def _result(
    pair: int, swapped: bool, winner: int, points: tuple[int, int], hands: int, ms: float
) -> MatchResult:
    return MatchResult(
        pair, swapped, winner, points, hands, ([ms / 1000] * hands, [ms / 2000] * hands)
    )


def test_summary_of_synthetic_results() -> None:
    # 3 pairs: bot 0 wins 4 of 6 matches; margins per hand per pair: +0.5, 0, +0.25
    results = [
        _result(0, False, 0, (30, 20), 10, 10.0), _result(0, True, 0, (30, 30), 10, 10.0),
        _result(1, False, 1, (20, 30), 10, 20.0), _result(1, True, 0, (30, 20), 10, 20.0),
        _result(2, False, 0, (30, 25), 10, 30.0), _result(2, True, 1, (25, 30), 10, 30.0),
    ]  # fmt: skip
    # the pairs' margins: (10+0)/20, (-10+10)/20, (5-5)/20 -> fix the third to +0.25
    results[5] = _result(2, True, 1, (30, 25), 10, 30.0)  # bot 0 scores 30, concedes 25
    report = summarize(("a", "b"), results)
    a, b = report.bots
    assert report.matches == 6 and report.pairs == 3 and report.hands == 60
    assert a.match_wins == 4 and b.match_wins == 2
    assert a.match_win_rate == pytest.approx(4 / 6)
    assert a.ci95 == pytest.approx(wilson_interval(4, 6))
    margins = [0.5, 0.0, 0.5]
    mean, lo, hi = mean_interval(margins)
    assert a.points_margin == pytest.approx(mean) and a.points_margin_ci95 == pytest.approx(
        (lo, hi)
    )
    assert b.points_margin == pytest.approx(-mean) and b.points_margin_ci95 == pytest.approx(
        (-hi, -lo)
    )
    assert a.hand_points == 30 + 30 + 20 + 30 + 30 + 30
    assert a.decision_ms_mean == pytest.approx(20.0)
    assert a.decision_ms_p95 == pytest.approx(30.0)
    assert b.decision_ms_mean == pytest.approx(10.0)
    assert report.elo_diff == pytest.approx(elo_difference(4 / 6))
    out = report.to_json()
    assert set(out) >= {"matches", "elo_diff", "bots"}
    assert set(out["bots"][0]) >= {
        "name",
        "match_wins",
        "match_win_rate",
        "ci95",
        "decision_ms_mean",
        "decision_ms_p95",
    }


@pytest.mark.parametrize("players", [2, 4])
def test_arena_end_to_end(players: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records"
    args = ["arena", "simple", "search:3x3", "--players", str(players), "--matches", "4",
            "--seed", "3", "--jobs", "2", "--records", str(records), "--json"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"] == 4
    names = [b["name"] for b in out["bots"]]
    assert names == ["simple", "search:3x3"]
    assert sum(b["match_wins"] for b in out["bots"]) == 4
    for bot in out["bots"]:
        lo, hi = bot["ci95"]
        assert 0 <= lo <= bot["match_win_rate"] <= hi <= 1
        assert bot["decision_ms_p95"] >= 0
    files = sorted(records.glob("*.json"))
    assert len(files) == 4
    winners = []
    for f in files:
        result = replay(load_record(f.read_text()))
        assert result.error is None and result.winner is not None
        seats = json.loads(f.read_text())["headers"]["seats"]
        winners.append(seats[result.winner])
    assert sorted(winners) == sorted(
        name for b in out["bots"] for name in [b["name"]] * b["match_wins"]
    )
    # the same seed gives the same report (times aside)
    assert main([*args[:-1], "--jobs", "1", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [b["match_wins"] for b in again["bots"]] == [b["match_wins"] for b in out["bots"]]
    assert again["hands"] == out["hands"]


def test_arena_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "simple", "random", "--matches", "2", "--jobs", "1"]) == 0
    text = capsys.readouterr().out
    assert "simple" in text and "Elo" in text and "95% CI" in text
    assert "(1 duplicate pair," in text


def test_arena_rejects_unknown_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "simple", "nobody", "--matches", "2"]) == 2
    assert "unknown bot" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simple", "random", "--matches", "3"], "--matches must be an even number"),
        (["simple", "random", "--matches", "0"], "--matches must be an even number"),
        (["simple", "random", "--jobs", "0"], "--jobs must be at least 1"),
        (["simple", "random", "--max-seconds", "0"], "--max-seconds must be positive"),
        (["simple"], "expected two bots"),
        (["simple", "random", "--gauntlet", "simple"], "not both"),
        (["--gauntlet", "nobody"], "unknown bot"),
    ],
)
def test_arena_bad_command_lines_get_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["arena", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_gauntlet_reports_every_style_the_minimum_and_the_mean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from truco.bots import GAUNTLET

    args = ["arena", "--gauntlet", "simple", "--matches", "2", "--target", "15", "--jobs", "2"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["opponents"]
    assert [r["opponent"] for r in rows] == list(GAUNTLET)
    rates = [r["bots"][0]["match_win_rate"] for r in rows]
    assert all(r["matches"] == 2 and r["bots"][0]["name"] == "simple" for r in rows)
    assert out["min_win_rate"] == min(rates)
    assert out["mean_win_rate"] == pytest.approx(sum(rates) / len(rates))
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "minimum win rate" in text and all(name in text for name in GAUNTLET)
