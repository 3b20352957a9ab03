"""``truco analyze``: known blunders are marked, a strong bot grades above random,
the analysis sees only the deciding seat's view and is deterministic for a seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from truco.analysis import analyze, grade
from truco.arena.match import play_match
from truco.cli import main
from truco.record import record_from_json
from truco.rules import Rules


def _record(deal: list[list[str]], actions: list[list[Any]], **rules: Any) -> dict[str, Any]:
    return {
        "format": "truco-record/1",
        "rules": {"players": 2, "flor": False, "target": 30, **rules},
        "first_mano": 0,
        "hands": [{"deal": deal, "actions": actions}],
    }


#: seat 0 holds the three best cards, wins the first baza and refuses the truco.
REFUSED_TRUCO = _record(
    [["1e", "1b", "7e"], ["4c", "5o", "6b"]],
    [[0, "play 7e"], [1, "play 4c"], [0, "play 1b"], [1, "truco"], [0, "no-quiero"]],
)
#: seat 0 (tanto 4) calls falta envido at 0-0 to 30: the match on a hand that loses it.
FALTA_WITH_4 = _record(
    [["4o", "12c", "6e"], ["7c", "6c", "3b"]], [[0, "falta-envido"], [1, "quiero"]]
)


def test_refusing_a_truco_with_the_three_best_cards_is_a_blunder() -> None:
    analysis = analyze(record_from_json(REFUSED_TRUCO), seed=1)
    refusal = analysis.marks()[(0, 4)]
    assert refusal.grade == "blunder" and refusal.seat == 0
    assert refusal.best != refusal.chosen and refusal.loss >= 2.0


def test_falta_with_tanto_4_is_a_blunder() -> None:
    analysis = analyze(record_from_json(FALTA_WITH_4), seed=1)
    falta = analysis.marks()[(0, 0)]
    assert falta.grade == "blunder"
    assert falta.values[falta.best] - falta.values[falta.chosen] == pytest.approx(falta.loss)


def test_the_analysis_never_peeks_at_the_rivals_cards() -> None:
    # the same decisions with a different rival hand: the evaluation is the same
    other = json.loads(json.dumps(FALTA_WITH_4))
    other["hands"][0]["deal"][1] = ["7o", "6o", "3c"]  # rival holds 33 instead of 20
    a = analyze(record_from_json(FALTA_WITH_4), seats={0}, seed=3)
    b = analyze(record_from_json(other), seats={0}, seed=3)
    assert [d.values for d in a.decisions] == [d.values for d in b.decisions]


def test_grades_follow_the_documented_thresholds() -> None:
    assert grade(0.4, 0.0) is None
    assert grade(0.5, 0.0) == "inaccuracy"
    assert grade(1.0, 0.1) == "mistake"
    assert grade(2.5, 0.1) == "blunder"
    assert grade(2.5, 2.0) is None  # inside the search's noise


def test_search_grades_far_better_than_random_and_is_deterministic() -> None:
    result = play_match(("search:hard", "random"), Rules(target=15), 7, 0, False, True)
    assert result.record is not None
    record = record_from_json(result.record)
    analysis = analyze(record, seed=2, worlds=30)
    by_name = {p.name: p for p in analysis.players}
    strong, weak = by_name["search:hard"], by_name["random"]
    assert strong.decisions > 3 and weak.decisions > 3
    assert strong.accuracy > weak.accuracy + 15
    weak_marks = sum(weak.grades.values())
    assert weak_marks > sum(strong.grades.values())
    again = analyze(record, seed=2, worlds=30)
    assert again.to_json() == analysis.to_json()


def test_cli_text_json_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(REFUSED_TRUCO))
    assert main(["analyze", str(path), "--seat", "0", "--json", "--worlds", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["seat"] for p in out["players"]] == [0]
    assert {d["seat"] for d in out["decisions"]} == {0}
    assert out["decisions"][-1]["grade"] == "blunder"
    assert main(["analyze", str(path), "--worlds", "30"]) == 0
    assert "no-quiero is a blunder" in capsys.readouterr().out
    assert main(["analyze", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["analyze", str(path), "--seat", "5"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    path.write_text("{not json")
    assert main(["analyze", str(path)]) == 2


def test_the_record_viewer_marks_the_graded_decisions() -> None:
    from truco.analysis.cli import marks_text
    from truco.tui.viewer import RecordViewer

    record = record_from_json(REFUSED_TRUCO)
    analysis = analyze(record, seed=1)
    viewer = RecordViewer(record)
    viewer.marks = marks_text(analysis, viewer.names)  # in words, in Spanish by default
    viewer.last()  # the step after seat 0's no-quiero
    assert viewer.mark().startswith("Error grave: Lugar 1 dijo no quiero (pierde ")
    assert "; mejor: " in viewer.mark()
    viewer.first()
    assert viewer.mark() == ""
    english = marks_text(analysis, ("Ana", "Beto"), "en")[(0, 4)]
    assert english.startswith("Blunder: Ana said no quiero (loses ") and "; better: " in english
