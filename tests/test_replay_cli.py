"""``truco replay`` through the real command (a subprocess), as docs/record-format.md specifies it:
exit 0 with the hands JSON, exit 1 with the error object for an illegal action, exit 2
with one clear line on stderr for anything malformed, and never a traceback."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from strategies import new_match, play_out
from truco.record import game_to_record, load_record, replay
from truco.rules import Rules

# A small 1v1 hand to 15: seat 0 (7 of tanto) wins the envido (2) and the hand (1).
BASE: dict[str, Any] = {
    "format": "truco-record/1",
    "rules": {"players": 2, "flor": False, "target": 15, "chicos": 1},
    "first_mano": 0,
    "hands": [
        {
            "deal": [["1e", "7o", "4c"], ["3b", "2c", "12o"]],
            "actions": [
                [0, "envido"],
                [1, "quiero"],
                [0, "play 1e"],
                [1, "play 3b"],
                [0, "play 7o"],
                [1, "play 2c"],
            ],
        }
    ],
}
BASE_OUTPUT = {
    "hands": [
        {
            "points": [3, 0],
            "why": [[0, "envido", 2], [0, "truco", 1]],
            "score": [3, 0],
            "chicos": [0, 0],
            "closed": True,
        }
    ],
    "winner": None,
}

# Seat 0 wins a falta envido on a table to 15: the chico, and with it the match.
MATCH_OVER: dict[str, Any] = {
    "format": "truco-record/1",
    "rules": {"players": 2, "target": 15},
    "hands": [
        {
            "deal": [["7e", "6e", "4c"], ["3b", "2c", "12o"]],
            "actions": [
                [0, "falta-envido"],
                [1, "quiero"],
                [0, "play 7e"],
                [1, "play 3b"],
                [0, "play 6e"],
                [1, "play 2c"],
                [1, "play 12o"],
                [0, "play 4c"],
            ],
        }
    ],
}


def run(
    args: list[str], stdin: str | bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "truco.cli", *args],
        input=data,
        capture_output=True,
        check=False,
        cwd=cwd,
        timeout=60,
    )


def replay_stdin(record: Any) -> subprocess.CompletedProcess[bytes]:
    text = record if isinstance(record, (str, bytes)) else json.dumps(record)
    return run(["replay", "-"], text)


def assert_malformed(proc: subprocess.CompletedProcess[bytes], *names: str) -> str:
    """Exit 2, nothing on stdout, exactly one line on stderr that names the problem."""
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    assert proc.returncode == 2, (proc.returncode, err, proc.stdout)
    assert proc.stdout == b""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].strip(), err
    for name in names:
        assert name.lower() in lines[0].lower(), (name, lines[0])
    return lines[0]


def with_changes(base: dict[str, Any], change: Any) -> dict[str, Any]:
    record = copy.deepcopy(base)
    change(record)
    return record


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def change(record: Any) -> None:
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(path: tuple[Any, ...]) -> Any:
    def change(record: Any) -> None:
        target = record
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


def test_base_record_replays() -> None:
    proc = replay_stdin(BASE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    assert json.loads(proc.stdout) == BASE_OUTPUT


def test_file_argument(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(BASE))
    proc = run(["replay", str(path)])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == BASE_OUTPUT


# ------------------------------------------------------------------ malformed: exit 2

MALFORMED_TEXT = [
    ("not-json", "{this is not json", ("json",)),
    ("empty-input", "", ("json",)),
    ("truncated-json", json.dumps(BASE)[:-3], ("json",)),
    ("json-list", "[1, 2, 3]", ("object",)),
    ("json-number", "42", ("object",)),
    ("json-string", '"truco-record/1"', ("object",)),
    ("json-null", "null", ("object",)),
]


@pytest.mark.parametrize(
    "text,names", [(t, n) for _, t, n in MALFORMED_TEXT], ids=[i for i, _, _ in MALFORMED_TEXT]
)
def test_malformed_text(text: str, names: tuple[str, ...]) -> None:
    assert_malformed(replay_stdin(text), *names)


def test_not_utf8() -> None:
    assert_malformed(replay_stdin(b"\xff\xfe{\x00"))


MALFORMED_RECORDS = [
    ("format-missing", _delete(("format",)), ("format",)),
    ("format-wrong", _set(("format",), "truco-record/2"), ("format",)),
    ("format-not-string", _set(("format",), 1), ("format",)),
    ("rules-not-object", _set(("rules",), [2, False]), ("rules",)),
    ("rules-players-3", _set(("rules", "players"), 3), ("players",)),
    ("rules-players-string", _set(("rules", "players"), "2"), ("players",)),
    ("rules-players-bool", _set(("rules", "players"), True), ("players",)),
    ("rules-flor-string", _set(("rules", "flor"), "yes"), ("flor",)),
    ("rules-target-20", _set(("rules", "target"), 20), ("target",)),
    ("rules-chicos-2", _set(("rules", "chicos"), 2), ("chicos",)),
    ("rules-falta-unknown", _set(("rules", "falta_envido"), "everything"), ("falta_envido",)),
    ("rules-pica-1v1", _set(("rules", "pica_pica"), True), ("pica_pica",)),
    (
        "rules-con-flor-quiero-sin-flor",
        _set(("rules", "con_flor_quiero"), True),
        ("con_flor_quiero",),
    ),
    ("first-mano-out-of-range", _set(("first_mano",), 2), ("first_mano",)),
    ("first-mano-negative", _set(("first_mano",), -1), ("first_mano",)),
    ("seed-float", _set(("seed",), 1.5), ("seed",)),
    ("headers-not-object", _set(("headers",), ["event"]), ("headers",)),
    ("hands-missing", _delete(("hands",)), ("hands",)),
    ("hands-not-list", _set(("hands",), {"deal": []}), ("hands",)),
    ("hand-not-object", _set(("hands", 0), [["1e"]]), ("hand 1",)),
    ("actions-not-list", _set(("hands", 0, "actions"), "envido"), ("actions",)),
    ("action-not-pair", _set(("hands", 0, "actions", 0), [0, "envido", 1]), ("action 0",)),
    ("action-not-list", _set(("hands", 0, "actions", 0), "0 envido"), ("action 0",)),
    ("unknown-token", _set(("hands", 0, "actions", 0), [0, "envidito"]), ("envidito",)),
    (
        "unknown-token-underscore",
        _set(("hands", 0, "actions", 0), [0, "real_envido"]),
        ("real_envido",),
    ),
    ("token-not-string", _set(("hands", 0, "actions", 0), [0, 40]), ("action 0",)),
    ("unknown-megaphone-word", _set(("hands", 0, "actions", 0), [0, "say hola"]), ("hola",)),
    ("card-13e", _set(("hands", 0, "actions", 2), [0, "play 13e"]), ("13e",)),
    ("card-8o", _set(("hands", 0, "actions", 2), [0, "play 8o"]), ("8o",)),
    ("card-bad-suit", _set(("hands", 0, "actions", 2), [0, "play 1x"]), ("1x",)),
    ("card-missing", _set(("hands", 0, "actions", 2), [0, "play"]), ("play",)),
    ("deal-card-13e", _set(("hands", 0, "deal", 0, 0), "13e"), ("13e",)),
    ("deal-card-not-string", _set(("hands", 0, "deal", 0, 0), 0), ("hand 1",)),
    ("deal-duplicate-same-seat", _set(("hands", 0, "deal", 0), ["1e", "1e", "4c"]), ("1e",)),
    ("deal-duplicate-across-seats", _set(("hands", 0, "deal", 1, 0), "7o"), ("7o",)),
    ("deal-duplicate-case", _set(("hands", 0, "deal", 1, 0), "7O"), ("7o",)),
    ("deal-two-cards", _set(("hands", 0, "deal", 1), ["3b", "2c"]), ("3 cards",)),
    ("deal-four-cards", _set(("hands", 0, "deal", 1), ["3b", "2c", "12o", "5e"]), ("3 cards",)),
    ("deal-one-seat", _set(("hands", 0, "deal"), [["1e", "7o", "4c"]]), ("deal",)),
    (
        "deal-three-seats",
        _set(("hands", 0, "deal"), [["1e", "7o", "4c"], ["3b", "2c", "12o"], ["5e", "6e", "7c"]]),
        ("deal",),
    ),
    ("deal-not-list", _set(("hands", 0, "deal"), "1e 7o 4c"), ("deal",)),
    ("deal-null", _set(("hands", 0, "deal"), None), ("deal",)),
    ("seat-does-not-exist", _set(("hands", 0, "actions", 0), [2, "envido"]), ("seat 2",)),
    ("seat-negative", _set(("hands", 0, "actions", 0), [-1, "envido"]), ("seat -1",)),
    ("seat-string", _set(("hands", 0, "actions", 0), ["0", "envido"]), ("seat",)),
    ("seat-bool", _set(("hands", 0, "actions", 0), [True, "envido"]), ("seat",)),
    ("no-deal-no-seed", _delete(("hands", 0, "deal")), ("hand 1", "seed")),
]


@pytest.mark.parametrize(
    "change,names",
    [(c, n) for _, c, n in MALFORMED_RECORDS],
    ids=[i for i, _, _ in MALFORMED_RECORDS],
)
def test_malformed_record(change: Any, names: tuple[str, ...]) -> None:
    assert_malformed(replay_stdin(with_changes(BASE, change)), *names)


def test_hands_after_the_match_ended() -> None:
    proc = replay_stdin(MATCH_OVER)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["winner"] == 0
    record = copy.deepcopy(MATCH_OVER)
    record["hands"].append(copy.deepcopy(BASE["hands"][0]))
    assert_malformed(replay_stdin(record), "hand 2")
    # also a hand with no actions at all, and a seeded hand without deal
    record["hands"][1] = {"actions": []}
    record["seed"] = 5
    assert_malformed(replay_stdin(record), "hand 2")


def test_unclosed_hand_that_is_not_the_last() -> None:
    record = copy.deepcopy(BASE)
    unfinished = copy.deepcopy(BASE["hands"][0])
    unfinished["actions"] = unfinished["actions"][:3]
    record["hands"] = [unfinished, copy.deepcopy(BASE["hands"][0])]
    assert_malformed(replay_stdin(record), "hand 1")
    # an unclosed last hand is a match in progress (seat 1 is mano in hand 1)
    unfinished["actions"] = [[1, "play 3b"], [0, "truco"]]
    record["hands"] = [copy.deepcopy(BASE["hands"][0]), unfinished]
    proc = replay_stdin(record)
    assert proc.returncode == 0, proc.stderr
    hands = json.loads(proc.stdout)["hands"]
    assert [h["closed"] for h in hands] == [True, False]
    assert hands[1]["points"] == [0, 0] and hands[1]["why"] == [] and hands[1]["score"] == [3, 0]


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-record.json"
    line = assert_malformed(run(["replay", str(missing)]))
    assert "no-such-record.json" in line


def test_directory_instead_of_file(tmp_path: Path) -> None:
    assert_malformed(run(["replay", str(tmp_path)]))


def test_deeply_nested_json() -> None:
    assert_malformed(replay_stdin("[" * 100_000))


# ------------------------------------------------------------------ illegal action: exit 1

ILLEGAL = [
    # (id, change, expected error fields)
    (
        "play-out-of-turn",
        _set(("hands", 0, "actions", 0), [1, "play 3b"]),
        {"hand": 0, "action": 0, "seat": 1, "token": "play 3b"},
    ),
    (
        "card-not-held",
        _set(("hands", 0, "actions", 2), [0, "play 3b"]),
        {"hand": 0, "action": 2, "seat": 0, "token": "play 3b"},
    ),
    (
        "answer-own-call",
        _set(("hands", 0, "actions", 1), [0, "quiero"]),
        {"hand": 0, "action": 1, "seat": 0, "token": "quiero"},
    ),
    (
        "quiero-without-call",
        _set(("hands", 0, "actions", 0), [0, "quiero"]),
        {"hand": 0, "action": 0, "seat": 0, "token": "quiero"},
    ),
    (
        "flor-on-table-sin-flor",
        _set(("hands", 0, "actions", 0), [0, "flor"]),
        {"hand": 0, "action": 0, "seat": 0, "token": "flor"},
    ),
    (
        "megaphone-in-1v1",
        _set(("hands", 0, "actions", 0), [0, "say voy"]),
        {"hand": 0, "action": 0, "seat": 0, "token": "say voy"},
    ),
    (
        "action-after-hand-closed",
        lambda r: r["hands"][0]["actions"].append([1, "play 12o"]),
        {"hand": 0, "action": 6, "seat": 1, "token": "play 12o"},
    ),
]


@pytest.mark.parametrize(
    "change,fields", [(c, f) for _, c, f in ILLEGAL], ids=[i for i, _, _ in ILLEGAL]
)
def test_illegal_action(change: Any, fields: dict[str, Any]) -> None:
    proc = replay_stdin(with_changes(BASE, change))
    assert "Traceback" not in proc.stderr.decode()
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert proc.stdout.count(b"\n") == 1  # one JSON object on one line
    out = json.loads(proc.stdout)
    assert set(out) == {"error"}
    error = out["error"]
    assert set(error) == {"hand", "action", "seat", "token", "reason"}
    assert {k: error[k] for k in fields} == fields
    assert isinstance(error["reason"], str) and error["reason"].strip()


# ------------------------------------------------------------------ what must replay


def _played_record(seed: int, rules: Rules, stop_after: int | None = None) -> dict[str, Any]:
    game, policy = new_match(rules, seed)
    play_out(game, policy, stop_after=stop_after)
    return game_to_record(game)


@pytest.mark.parametrize("players,flor", [(2, False), (4, True), (6, False)])
def test_seed_without_deal_replays(players: int, flor: bool) -> None:
    rules = Rules(players=players, flor=flor, target=15)
    record = _played_record(players * 100 + flor, rules)
    assert record["seed"] is not None and len(record["hands"]) >= 1
    expected = replay(load_record(json.dumps(record))).to_json()
    assert expected["winner"] is not None
    stripped = copy.deepcopy(record)
    for hand in stripped["hands"]:
        del hand["deal"]
    proc = replay_stdin(stripped)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected
    # and a seed that is not the one the match was dealt with does not give the same match
    stripped["seed"] = record["seed"] + 1
    assert replay_stdin(stripped).stdout != proc.stdout


def test_unknown_keys_are_ignored_at_every_level() -> None:
    record = _played_record(11, Rules(players=4, flor=True, chicos=3, target=15), stop_after=150)
    expected = replay_stdin(record)
    assert expected.returncode == 0, expected.stderr
    noisy = copy.deepcopy(record)
    noisy["comment"] = {"anything": [1, 2, 3]}
    noisy["expect"] = {"exit": 2}
    noisy["rules"]["speed"] = "fast"
    noisy["rules"]["flor_variant"] = None
    noisy["headers"] = {"event": "test", "seats": ["a", "b", "c", "d"], "x-rating": 1500}
    for i, hand in enumerate(noisy["hands"]):
        hand["note"] = f"hand {i}"
        hand["clock"] = [1.5, 2.5]
    proc = replay_stdin(noisy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected.stdout


def test_tokens_and_cards_are_case_insensitive() -> None:
    record = _played_record(12, Rules(players=6, flor=True, target=15), stop_after=120)
    expected = replay_stdin(record)
    assert expected.returncode == 0, expected.stderr
    rng = random.Random(12)

    def shout(text: str) -> str:
        return "".join(ch.upper() if rng.random() < 0.5 else ch for ch in text)

    loud = copy.deepcopy(record)
    for hand in loud["hands"]:
        hand["deal"] = [[shout(c) for c in cards] for cards in hand["deal"]]
        hand["actions"] = [[seat, shout(token)] for seat, token in hand["actions"]]
    loud["hands"][0]["actions"].insert(
        0, [loud["hands"][0]["actions"][0][0], "  SAY  Vení  ".replace("í", "i")]
    )
    proc = replay_stdin(loud)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(expected.stdout)
    assert any(t != t.lower() for h in loud["hands"] for _, t in h["actions"])
