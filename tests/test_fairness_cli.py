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
    # as the online table writes it (server/table/stored.py): the result and the match key
    # once the match is over
    headers = {"result": f"team {game.winner} wins {game.chicos[0]}-{game.chicos[1]}"}
    record = game_to_record(game, headers if game.is_over else None)
    add_to_record(
        record,
        dealer.sealed_decks(len(record["hands"])),
        closed=len(game.history),
        key=dealer.key if game.is_over else None,
    )
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
    assert f": all {n} hands verified: deals, actions and result (team " in lines[n]
    assert len(lines) == n + 1
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
        ("deck", "the commitment is not the SHA-256 of this hand (index 1 in the encoding)"),
        ("salt", "the commitment is not the SHA-256 of this hand (index 1 in the encoding)"),
        ("other-hand", "the commitment is not the SHA-256 of this hand (index 1 in the encoding)"),
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
    assert lines[-1].endswith("1 hand(s) do not verify; the first is hand 2")
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
    del plain["fairness"]  # (a record written without commit-reveal deals has no match key)
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
    record["fairness"]["first_hand"] = 1  # (a match the key took over after its first hand)
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


# ---------------------------------------------------------------- the whole record
@pytest.fixture(scope="module")
def ten() -> dict[str, Any]:
    """A finished 1v1 match of ten hands or more."""
    return next(r for seed in range(100) if len((r := fair_record(2, seed))["hands"]) >= 10)


def cut(record: dict[str, Any], how: str, other: dict[str, Any]) -> dict[str, Any]:
    """A tampered copy of ``record``; ``other`` is an honest record of another match."""
    r = copy.deepcopy(record)
    hands = r["hands"]
    if how == "last-hands":  # 7 of 10 hands removed from the end (the result left as it was)
        del hands[len(hands) - 7 :]
    elif how == "last-hands-and-result":  # ... and the result with them
        del hands[len(hands) - 7 :]
        del r["headers"]
    elif how == "middle-hand":
        del hands[4]
    elif how == "reordered":
        hands[3], hands[4] = hands[4], hands[3]
    elif how == "inserted":  # a hand of another match, at the same place, honest in itself
        hands[2] = copy.deepcopy(other["hands"][2])
    elif how == "last-actions":  # the deciding actions of the last hand
        del hands[-1]["actions"][-1]
    elif how == "middle-actions":
        del hands[2]["actions"][-1]
    elif how == "action-edited":  # a card played that the seat never held
        seat, _ = hands[1]["actions"][0]
        hands[1]["actions"][0] = [seat, "play " + hands[1]["fairness"]["deck"][-1]]
    elif how == "result-winner":
        r["headers"]["result"] = (
            r["headers"]["result"]
            .replace("team 0", "team 2")
            .replace("team 1", "team 0")
            .replace("team 2", "team 1")
        )
    elif how == "result-chicos":
        r["headers"]["result"] = r["headers"]["result"][:-3] + "3-2"
    elif how == "other-key":  # the key of another match
        r["fairness"] = copy.deepcopy(other["fairness"])
    elif how == "hand-without-fairness":  # a keyed hand that lost its proof
        del hands[5]["fairness"]
    return r


@pytest.mark.parametrize(
    ("how", "code", "first_bad", "reason"),
    [
        ("last-hands", 1, None, "missing: the match is not over after hand "),
        ("last-hands-and-result", 1, None, "but the record carries the match key"),
        ("middle-hand", 1, 5, "the commitment is not the SHA-256 of this hand (index 4 in"),
        ("reordered", 1, 4, "the commitment is not the SHA-256 of this hand (index 3 in"),
        ("inserted", 1, 3, "the commitment is not the one the match key gives hand 3"),
        ("last-actions", 1, -1, "the hand stops before it closes, but its deck is revealed"),
        ("middle-actions", 1, 3, "the hand stops before it closes (actions removed?)"),
        ("action-edited", 1, 2, "action 1 ["),
        ("result-winner", 1, -1, "the record's result is 'team "),
        ("result-chicos", 1, -1, "but the replay ends: team "),
        ("other-key", 1, 1, "the commitment is not the one the match key gives hand 1"),
        ("hand-without-fairness", 1, 6, "no fairness data, though the match key deals this hand"),
    ],
)
def test_a_tampered_record_fails_and_names_the_first_bad_hand(
    tmp_path: Path,
    ten: dict[str, Any],
    good: dict[str, Any],
    how: str,
    code: int,
    first_bad: int | None,
    reason: str,
) -> None:
    record = cut(ten, how, fair_record(2, seed=99))
    done = run("verify", write(tmp_path, record))
    assert done.returncode == code, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    n = len(record["hands"])
    bad = {None: n + 1, -1: n}.get(first_bad, first_bad)
    assert lines[-1].endswith(f"hand(s) do not verify; the first is hand {bad}"), lines[-1]
    line = next(x for x in lines if x.startswith(f"hand {bad}: "))
    assert line.startswith(f"hand {bad}: MISMATCH: ") and reason in line, line
    assert "all" not in lines[-1] and "Traceback" not in done.stderr
    assert all(x.startswith(f"hand {h}: ") for h, x in enumerate(lines[:-1], 1))
    assert next(x for x in lines if "MISMATCH" in x) == line  # the first bad hand


def test_every_hand_of_the_untouched_record_verifies(tmp_path: Path, ten: dict[str, Any]) -> None:
    assert ten["fairness"]["key"] and ten["headers"]["result"].startswith("team ")
    done = run("verify", write(tmp_path, ten))
    assert done.returncode == 0, done.stdout
    n = len(ten["hands"])
    assert done.stdout.splitlines()[-1].endswith(
        f"all {n} hands verified: deals, actions and result ({ten['headers']['result']})"
    )


def test_hands_removed_from_a_record_without_key_or_result_are_not_verified(
    tmp_path: Path, ten: dict[str, Any]
) -> None:
    """With the key and the result gone too, nothing says the match ended: not a pass."""
    record = cut(ten, "last-hands-and-result", ten)
    del record["fairness"]
    done = run("verify", write(tmp_path, record))
    assert done.returncode == 3, done.stdout
    lines = done.stdout.splitlines()
    n = len(record["hands"])
    assert lines[-2].startswith(f"hand {n + 1}: unfinished: the match is not over after hand {n} (")
    assert lines[-1].endswith(f"{n} of {n + 1} hands verified; the others cannot be checked")


def test_a_malformed_match_key_is_a_mismatch(tmp_path: Path, ten: dict[str, Any]) -> None:
    record = copy.deepcopy(ten)
    record["fairness"]["key"] = "zz"
    done = run("verify", write(tmp_path, record))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        "hand 1: MISMATCH: the match's fairness data: "
        "the match key must be 64 lower-case hex digits"
    )


def test_a_record_written_before_the_match_key_still_verifies(
    tmp_path: Path, ten: dict[str, Any]
) -> None:
    """Backwards compatible: per-hand commitments alone, a finished replay, exit 0."""
    record = copy.deepcopy(ten)
    del record["fairness"]
    assert run("verify", write(tmp_path, record)).returncode == 0
