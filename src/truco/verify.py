"""``truco verify RECORD``: check a whole record, hand by hand.

Each hand: its revealed deck and salt open its commitment and give the recorded deal; the
match key (when the record carries it) gives that very commitment at that place, so no hand
is removed, moved or inserted; its actions replay through the engine and close the hand.
Then the match: it is over when the record says it is (a revealed key, a ``result``
header), and the result is the replay's.

Exit status: 0 everything verifies; 1 something does not (tampered or inconsistent); 2 the
file cannot be read or is not a record; 3 nothing failed but something cannot be verified
(no fairness data, a hand still being played, a match that is not over).
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Literal

from .actions import action_token
from .deal import SeededDealer
from .fairness import (
    FAIRNESS_KEY,
    NOT_REVEALED,
    FairnessError,
    check_hand,
    check_match_key,
    is_revealed,
    read_match_key,
)
from .game import Game, IllegalAction
from .record import Record, RecordError, load_record

Status = Literal["ok", "mismatch", "missing", "pending", "unfinished", "skipped"]

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_FILE, EXIT_UNVERIFIED = 0, 1, 2, 3

_LABELS = {
    "ok": "ok",
    "mismatch": "MISMATCH",
    "missing": "unverified",
    "pending": "pending",
    "unfinished": "unfinished",
    "skipped": "not replayed",
}


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand: ``ok``, ``mismatch`` (with the reason), ``missing``
    (no fairness data, or a result this tool cannot read), ``pending`` (committed, not
    revealed yet), ``unfinished`` (the record stops before the match ends) or ``skipped``
    (not replayed: an earlier hand does not replay). A verdict may name the hand after
    the record's last (``hand == len(hands)``): the hand that is missing."""

    hand: int
    status: Status
    reason: str = ""


@dataclass(frozen=True, slots=True)
class RecordCheck:
    """Every hand's verdict, and the match's result as the replay ends it (``None``
    when the replay does not end the match)."""

    hands: list[HandCheck]
    result: str | None


def verify_record(text: str | bytes) -> list[HandCheck]:
    """Check every hand of a ``truco-record/1`` (:func:`check_record`); raise
    :class:`~truco.record.RecordError` when the text is not a record.

    >>> from truco.game import Game
    >>> from truco.record import game_to_record
    >>> verify_record(json.dumps(game_to_record(Game(seed=1))))
    [HandCheck(hand=0, status='missing', reason='no fairness data')]
    """
    return check_record(text).hands


def check_record(text: str | bytes) -> RecordCheck:
    """Check a whole ``truco-record/1``: the deals, the match key, the actions, the result."""
    record = load_record(text)
    data = json.loads(text)
    raw_hands = data["hands"]
    key: bytes | None = None
    first_keyed = 0
    key_problem = None
    if FAIRNESS_KEY in data:
        try:
            key, first_keyed = read_match_key(data[FAIRNESS_KEY])
        except FairnessError as exc:
            key_problem = f"the match's fairness data: {exc}"
    verdicts: list[tuple[Status, str]] = []
    for h, raw in enumerate(raw_hands):
        verdict = _fairness_verdict(record, raw, h)
        if key is not None and h >= first_keyed and verdict[0] in ("ok", "pending", "missing"):
            problem = check_match_key(key, h, raw.get(FAIRNESS_KEY))
            if problem is not None:
                verdict = ("mismatch", problem)
        verdicts.append(verdict)
    if key_problem is not None and verdicts:
        verdicts[0] = ("mismatch", key_problem)
    checks, game = _replay(record, raw_hands, verdicts)
    result = None
    if game is not None:
        result = _ending(record, game, checks, key is not None or key_problem is not None)
    return RecordCheck(checks, result)


def _fairness_verdict(record: Record, raw: Any, h: int) -> tuple[Status, str]:
    data = raw.get(FAIRNESS_KEY)
    if data is None:
        return ("missing", "no fairness data")
    deal = record.hands[h].deal
    if deal is None:
        assert record.seed is not None  # load_record refuses a hand without deal or seed
        deal = SeededDealer(record.seed).deal(record.rules.players, h)
    reason = check_hand(data, deal, h)
    if reason is None:
        return ("ok", "")
    if reason == NOT_REVEALED:
        return ("pending", reason)
    return ("mismatch", reason)


def _replay(
    record: Record, raw_hands: list[Any], verdicts: list[tuple[Status, str]]
) -> tuple[list[HandCheck], Game | None]:
    """Replay the actions hand by hand; the first hand that does not replay is a mismatch
    and the later ones are not replayed. Returns the game when every hand replayed."""
    game = Game(record.rules, first_mano=record.first_mano, manual_deal=True)
    dealer = SeededDealer(record.seed) if record.seed is not None else None
    last = len(record.hands) - 1
    checks: list[HandCheck] = []
    broken = False
    for h, hand in enumerate(record.hands):
        status, reason = verdicts[h]
        if broken:
            if status != "mismatch":
                status, reason = "skipped", "an earlier hand does not replay"
            checks.append(HandCheck(h, status, reason))
            continue
        problem = None
        if game.is_over:
            problem = "listed after the match was decided (a hand inserted?)"
        else:
            if hand.deal is not None:
                game.deal(hand.deal)
            else:
                assert dealer is not None
                game.deal(dealer.deal(game.players, h))
            problem = _replay_actions(game, hand.actions)
            if problem is None and not game.needs_deal:
                if h != last:
                    problem = "the hand stops before it closes (actions removed?)"
                elif is_revealed(raw_hands[h].get(FAIRNESS_KEY)):
                    problem = (
                        "the hand stops before it closes, but its deck is revealed "
                        "(revealed only after the hand): its last actions were removed"
                    )
        if problem is not None:
            broken = True
            if status != "mismatch":  # (a bad deal explains a bad replay: say the deal)
                status, reason = "mismatch", problem
        checks.append(HandCheck(h, status, reason))
    return checks, None if broken else game


def _replay_actions(game: Game, actions: tuple[tuple[int, int], ...]) -> str | None:
    for i, (seat, action) in enumerate(actions):
        entry = f"action {i + 1} [{seat}, {action_token(action)!r}]"
        if game.needs_deal:
            return f"{entry} comes after the hand is over"
        try:
            game.apply(seat, action)
        except IllegalAction as exc:
            return f"{entry} is illegal: {exc.reason}"
    return None


_TEAM = re.compile(r"\bteam (\d+)\b")
_CHICOS = re.compile(r"\b(\d+)-(\d+)\b")


def _ending(record: Record, game: Game, checks: list[HandCheck], keyed: bool) -> str | None:
    """Check that the match ends where the record says it does; the replayed result."""
    n = len(checks)
    claimed = record.headers.get("result")
    if not game.is_over:
        if n and checks[-1].status == "pending" and not keyed and claimed is None:
            return None  # a match in progress, as written while it is played
        score, target = f"{game.score[0]}-{game.score[1]}", record.rules.target
        stop = f"the match is not over after hand {n} ({score}, to {target})"
        removed = "hands or actions were removed"
        if keyed:
            why = f"the record carries the match key, written only when it ends: {removed}"
            checks.append(HandCheck(n, "mismatch", f"missing: {stop}, but {why}"))
        elif claimed is not None:
            why = f"the record's result is {claimed!r}: {removed}"
            checks.append(HandCheck(n, "mismatch", f"missing: {stop}, but {why}"))
        elif not all(c.status == "missing" for c in checks):
            # (a record without any fairness data, written by hand, says nothing of its end)
            checks.append(HandCheck(n, "unfinished", f"{stop}: the record stops before it ends"))
        return None
    winner = game.winner
    assert winner is not None
    result = f"team {winner} wins {game.chicos[0]}-{game.chicos[1]}"
    if claimed is None:
        return result
    last = checks[-1]
    team, chicos = _TEAM.search(str(claimed)), _CHICOS.search(str(claimed))
    if team is None and chicos is None:
        if last.status == "ok":
            checks[-1] = HandCheck(
                last.hand,
                "missing",
                f"the result {claimed!r} is not one this tool reads (team W wins A-B)",
            )
        return result
    if (team is not None and int(team[1]) != winner) or (
        chicos is not None and (int(chicos[1]), int(chicos[2])) != tuple(game.chicos)
    ):
        checks[-1] = HandCheck(
            last.hand,
            "mismatch",
            f"the record's result is {claimed!r} but the replay ends: {result}",
        )
    return result


def exit_status(checks: list[HandCheck]) -> int:
    """0 when every hand verifies, 1 when one fails, 3 when some cannot be verified."""
    if any(c.status == "mismatch" for c in checks):
        return EXIT_MISMATCH
    if not checks or any(c.status != "ok" for c in checks):
        return EXIT_UNVERIFIED
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace) -> int:
    name = args.file
    try:
        if name == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as f:
                text = f.read()
    except OSError as exc:
        print(f"truco verify: cannot read {name}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_FILE
    try:
        check = check_record(text)
    except RecordError as exc:
        print(f"truco verify: {name}: {exc}", file=sys.stderr)
        return EXIT_BAD_FILE
    checks = check.hands
    status = exit_status(checks)
    if status != EXIT_MISMATCH and all(c.status == "missing" for c in checks):
        print(
            f"truco verify: {name}: no fairness data: this record carries no commitments "
            "(written without commit-reveal deals), nothing to verify",
            file=sys.stderr,
        )
        return EXIT_UNVERIFIED
    for c in checks:
        print(f"hand {c.hand + 1}: {_LABELS[c.status]}" + (f": {c.reason}" if c.reason else ""))
    print(f"{name}: {_summary(checks, status, check.result)}")
    return status


def _summary(checks: list[HandCheck], status: int, result: str | None) -> str:
    good = sum(c.status == "ok" for c in checks)
    if status == EXIT_OK:
        return f"all {good} hands verified: deals, actions and result ({result})"
    if status == EXIT_MISMATCH:
        bad = [c for c in checks if c.status == "mismatch"]
        return f"{len(bad)} hand(s) do not verify; the first is hand {bad[0].hand + 1}"
    return f"{good} of {len(checks)} hands verified; the others cannot be checked"


def register(sub: Any) -> None:
    """Add ``truco verify`` to the ``truco`` command."""
    p = sub.add_parser(
        "verify",
        help="check a whole record: each hand's committed deal, its place in the match "
        "(the match key), its actions replayed, and the result",
    )
    p.add_argument("file", metavar="RECORD", help="a truco-record/1 file, or - for standard input")
    p.set_defaults(func=_cmd_verify)
