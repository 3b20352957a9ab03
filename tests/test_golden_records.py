"""The worked example records (tests/records, copied from the project's shared rule
work): each must replay to its ``expect`` and show the ``legal`` actions it lists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truco.actions import action_token, is_say, parse_action
from truco.game import Game
from truco.record import RecordError, load_record, replay

RECORDS = sorted((Path(__file__).parent / "records").glob("*.json"))


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def test_records_are_present() -> None:
    assert len(RECORDS) >= 36


@pytest.mark.parametrize("path", RECORDS, ids=_ids(RECORDS))
def test_record_replays_to_expected(path: Path) -> None:
    data = json.loads(path.read_text())
    expect = data["expect"]
    exit_code = expect.get("exit", 0)
    if exit_code == 2:
        with pytest.raises(RecordError):
            replay(load_record(path.read_text()))
        return
    result = replay(load_record(path.read_text()))
    if exit_code == 1:
        assert result.error is not None
        for key, value in expect["error"].items():
            assert getattr(result.error, key) == value, key
        assert result.error.reason
        return
    assert result.error is None, result.error
    assert len(result.hands) == len(expect["hands"])
    for got, want in zip(result.hands, expect["hands"], strict=True):
        for key, value in want.items():
            assert got[key] == value, key
    if "winner" in expect:
        assert result.winner == expect["winner"]


def _position(data: dict[str, Any], hand: int, after: int) -> Game:
    record = load_record(json.dumps({k: v for k, v in data.items() if k != "expect"}))
    game = Game(record.rules, first_mano=record.first_mano, manual_deal=True)
    for h, entry in enumerate(record.hands[: hand + 1]):
        assert entry.deal is not None
        game.deal(entry.deal)
        actions = entry.actions if h < hand else entry.actions[:after]
        for seat, action in actions:
            game.apply(seat, action)
    return game


LEGAL_CASES = [
    (path, i, case)
    for path in RECORDS
    for i, case in enumerate(json.loads(path.read_text()).get("legal", []))
]


@pytest.mark.parametrize(
    "path,index,case", LEGAL_CASES, ids=[f"{p.stem}-{i}" for p, i, _ in LEGAL_CASES]
)
def test_legal_actions_at_positions(path: Path, index: int, case: dict[str, Any]) -> None:
    game = _position(json.loads(path.read_text()), case["hand"], case["after"])
    with_say = case.get("say", True)
    if "seats_to_act" in case:
        acting = {
            s
            for s in range(game.players)
            if any(not is_say(a) or with_say for a in game.legal_actions(s))
        }
        assert acting == set(case["seats_to_act"])
        assert set(game.actors()) == set(case["seats_to_act"])
        return
    tokens = {
        action_token(a) for a in game.legal_actions(case["seat"]) if with_say or not is_say(a)
    }
    if "equals" in case:
        assert tokens == set(case["equals"])
    for token in case.get("includes", []):
        assert token in tokens
    for token in case.get("excludes", []):
        assert token not in tokens
    # every listed legal token is accepted by apply, every excluded one refused
    for token in case.get("excludes", []):
        assert not game.is_legal(case["seat"], parse_action(token))


@pytest.mark.parametrize("path", RECORDS, ids=_ids(RECORDS))
def test_cli_replay_matches_library(path: Path) -> None:
    data = json.loads(path.read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "truco.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == data["expect"].get("exit", 0)
    assert "Traceback" not in proc.stderr
    if proc.returncode == 2:
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1
    else:
        out = json.loads(proc.stdout)
        if proc.returncode == 1:
            assert set(out) == {"error"}
        else:
            assert set(out) == {"hands", "winner"}
