"""``truco verify RECORD`` through the real command (a subprocess): ok per hand and exit 0
for an honest record; MISMATCH with a one-line reason and exit 1 when anything was
tampered with; exit 3 when there is nothing (or not everything) to verify; exit 2 with
one line on stderr for a file that is not a record. And ``truco replay`` prints the
same with or without the fairness data."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truco.cards import card_name, parse_card
from truco.deal import CommittedDealer
from truco.fairness import add_to_record
from truco.game import Game
from truco.record import game_to_record
from truco.rules import Rules


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "truco.cli", *args],
        input=None if stdin is None else stdin.decode(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def fair_record(players: int = 2, seed: int = 1, finish: bool = True) -> dict[str, Any]:
    """A match played with the committed dealer, its record carrying the fairness data."""
    dealer = CommittedDealer()
    game = Game(Rules(players=players, target=15), dealer=dealer)
    rng = random.Random(seed)
    while not game.is_over and (finish or len(game.history) < 3):
        seat = game.actors()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat, megaphone=False)))
    record = game_to_record(game)
    add_to_record(record, dealer.sealed_decks(len(record["hands"])), closed=len(game.history))
    return record


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    """A finished 2v2 match of at least four hands (random play may end in one falta)."""
    return next(r for seed in range(100) if len((r := fair_record(4, seed))["hands"]) >= 4)


def write(tmp_path: Path, record: Any, name: str = "r.json") -> str:
    path = tmp_path / name
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return str(path)


def test_an_honest_record_verifies_hand_by_hand(tmp_path: Path, good: dict[str, Any]) -> None:
    done = run("verify", write(tmp_path, good))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    n = len(good["hands"])
    assert lines[:n] == [f"hand {h}: ok" for h in range(1, n + 1)]  # counted from 1
    assert lines[n].endswith(f"all {n} hands verified") and len(lines) == n + 1
    assert done.stderr == ""


def test_standard_input(good: dict[str, Any]) -> None:
    done = run("verify", "-", stdin=json.dumps(good).encode())
    assert done.returncode == 0 and done.stdout.splitlines()[0] == "hand 1: ok"


def tampered(good: dict[str, Any], hand: int, how: str) -> dict[str, Any]:
    record = copy.deepcopy(good)
    h = record["hands"][hand]
    fair = h["fairness"]
    if how == "deck":  # two undealt cards of the deck swapped
        fair["deck"][-1], fair["deck"][-2] = fair["deck"][-2], fair["deck"][-1]
    elif how == "salt":
        fair["salt"] = ("0" if fair["salt"][0] != "0" else "1") + fair["salt"][1:]
    elif how == "swap":  # the record says two seats had each other's first card
        h["deal"][0][0], h["deal"][1][0] = h["deal"][1][0], h["deal"][0][0]
    elif how == "other-hand":  # another hand's (honest) fairness data
        h["fairness"] = good["hands"][hand + 1]["fairness"]
    elif how == "undealt":  # a seat's card replaced by one the deck did not deal it
        undealt = fair["deck"][-1]
        h["deal"][2][1] = undealt
    return record


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("deck", "the commitment is not the SHA-256 of hand 1, its deck and its salt"),
        ("salt", "the commitment is not the SHA-256 of hand 1, its deck and its salt"),
        ("other-hand", "the commitment is not the SHA-256 of hand 1, its deck and its salt"),
        ("swap", "seat 0 was dealt "),
        ("undealt", "seat 2 was dealt "),
    ],
)
def test_tampering_is_a_mismatch_with_a_reason(
    tmp_path: Path, good: dict[str, Any], how: str, reason: str
) -> None:
    done = run("verify", write(tmp_path, tampered(good, 1, how)))
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "hand 1: ok" and lines[2] == "hand 3: ok"
    assert lines[1].startswith(f"hand 2: MISMATCH: {reason}")
    assert lines[-1].endswith("1 hand(s) do not verify")
    assert "Traceback" not in done.stderr


def test_a_mismatch_names_the_dealt_and_the_committed_cards(
    tmp_path: Path, good: dict[str, Any]
) -> None:
    record = tampered(good, 1, "swap")
    deck = good["hands"][1]["fairness"]["deck"]
    done = run("verify", write(tmp_path, record))
    dealt = " ".join(record["hands"][1]["deal"][0])
    assert f"seat 0 was dealt {dealt} but the deck gives {' '.join(deck[:3])}" in done.stdout


def test_the_replay_output_does_not_change(tmp_path: Path, good: dict[str, Any]) -> None:
    plain = copy.deepcopy(good)
    for hand in plain["hands"]:
        del hand["fairness"]
    with_fairness = run("replay", write(tmp_path, good, "a.json"))
    without = run("replay", write(tmp_path, plain, "b.json"))
    assert with_fairness.returncode == without.returncode == 0
    assert with_fairness.stdout == without.stdout and with_fairness.stdout.startswith('{"hands"')


def test_a_record_without_fairness_data_says_so(tmp_path: Path, good: dict[str, Any]) -> None:
    plain = copy.deepcopy(good)
    for hand in plain["hands"]:
        del hand["fairness"]
    done = run("verify", write(tmp_path, plain))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no fairness data" in done.stderr
    # a golden record of the project has none either
    golden = Path(__file__).parent / "records" / "01_plain_hand.json"
    done = run("verify", str(golden))
    assert done.returncode == 3 and "no fairness data" in done.stderr


def test_some_hands_without_fairness_data_are_unverified(
    tmp_path: Path, good: dict[str, Any]
) -> None:
    record = copy.deepcopy(good)
    del record["hands"][0]["fairness"]
    done = run("verify", write(tmp_path, record))
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert lines[0] == "hand 1: unverified: no fairness data" and lines[1] == "hand 2: ok"
    n = len(record["hands"])
    assert lines[-1].endswith(f"{n - 1} of {n} hands verified; the others cannot be checked")


def test_a_match_in_progress_has_its_last_hand_pending(tmp_path: Path) -> None:
    record = fair_record(players=2, seed=3, finish=False)
    assert "deck" not in record["hands"][-1]["fairness"]
    done = run("verify", write(tmp_path, record))
    assert done.returncode == 3
    assert done.stdout.splitlines()[-2].startswith(
        f"hand {len(record['hands'])}: pending: the deck and salt are not revealed"
    )


def test_a_mismatch_outweighs_unverified_hands(tmp_path: Path, good: dict[str, Any]) -> None:
    record = tampered(good, 1, "salt")
    del record["hands"][0]["fairness"]
    assert run("verify", write(tmp_path, record)).returncode == 1


def test_malformed_fairness_data_is_a_mismatch(tmp_path: Path, good: dict[str, Any]) -> None:
    record = copy.deepcopy(good)
    record["hands"][0]["fairness"]["deck"] = ["1e"]
    record["hands"][1]["fairness"] = "yes"
    done = run("verify", write(tmp_path, record))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "hand 1: MISMATCH: the deck must list the 40 cards"
    assert lines[1] == "hand 2: MISMATCH: fairness data must be a JSON object"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "a record is a JSON object"),
        ('{"format": "truco-record/9", "hands": []}', "format must be 'truco-record/1'"),
        ('{"format": "truco-record/1", "hands": [{"actions": []}]}', "hand 1: no deal"),
        ('{"format": "truco-record/1", "hands": [{"deal": [["1e"]]}]}', "hand 1: the deal"),
    ],
)
def test_a_file_that_is_not_a_record_gets_one_line(tmp_path: Path, text: str, message: str) -> None:
    done = run("verify", write(tmp_path, text))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr
    assert done.stderr.startswith("truco verify: ")


def test_a_missing_file_or_a_directory_gets_one_line(tmp_path: Path) -> None:
    for name in (str(tmp_path / "nope.json"), str(tmp_path)):
        done = run("verify", name)
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert done.stderr.startswith(f"truco verify: cannot read {name}: ")


def test_verify_is_a_core_command_that_never_loads_the_server() -> None:
    code = (
        "import sys; from truco.cli import main; "
        "main(['verify', 'tests/records/01_plain_hand.json']); "
        "print(any(m.startswith(('fastapi', 'textual', 'truco.server')) for m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).parent.parent,
    )
    assert done.stdout.strip() == "False", done.stderr


def test_card_names_in_the_deck_are_case_insensitive(tmp_path: Path, good: dict[str, Any]) -> None:
    """Readers parse cards case-insensitively (docs/record-format.md); the commitment hashes the
    canonical lower-case names, so an upper-cased deck still verifies."""
    record = copy.deepcopy(good)
    fair = record["hands"][0]["fairness"]
    fair["deck"] = [c.upper() for c in fair["deck"]]
    assert [card_name(parse_card(c)) for c in fair["deck"]] == good["hands"][0]["fairness"]["deck"]
    assert run("verify", write(tmp_path, record)).returncode == 0
