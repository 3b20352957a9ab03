"""Game records (``truco-record/1``, docs/record-format.md): read, check, replay and write.

>>> import json
>>> from truco.game import Game
>>> game = Game(seed=1)
>>> game.apply(game.actors()[0], game.legal_actions(game.actors()[0])[0])
>>> result = replay(load_record(json.dumps(game_to_record(game))))
>>> result.hands[0]["closed"], result.winner
(False, None)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .actions import ActionError, action_token, parse_action
from .cards import CardError, card_name, parse_card
from .deal import Deal, SeededDealer
from .game import Game, IllegalAction
from .rules import Rules, RulesError

FORMAT = "truco-record/1"


class RecordError(ValueError):
    """A record that is not valid JSON or breaks the format (exit status 2)."""


@dataclass(frozen=True)
class RecordHand:
    deal: Deal | None
    actions: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Record:
    rules: Rules
    first_mano: int
    hands: tuple[RecordHand, ...]
    seed: int | str | None = None
    headers: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplayError:
    """The first illegal action of a record, counted from 0."""

    hand: int
    action: int
    seat: int
    token: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"error": self.__dict__.copy()}


@dataclass
class ReplayResult:
    hands: list[dict[str, Any]]
    winner: int | None
    error: ReplayError | None = None
    game: Game | None = None

    def to_json(self) -> dict[str, Any]:
        if self.error is not None:
            return self.error.to_json()
        return {"hands": self.hands, "winner": self.winner}


def load_record(text: str | bytes) -> Record:
    """Parse and check a record; raise :class:`RecordError` with a one-line reason."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise RecordError("not a record: JSON nested too deeply") from None
    return record_from_json(data)


def record_from_json(data: Any) -> Record:
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r} (got {data.get('format')!r})")
    try:
        rules = Rules.from_dict(data.get("rules", {}))
    except RulesError as exc:
        raise RecordError(f"rules: {exc}") from None
    n = rules.players
    first_mano = data.get("first_mano", 0)
    if not _is_int(first_mano) or not 0 <= first_mano < n:
        raise RecordError(f"first_mano must be a seat from 0 to {n - 1} (got {first_mano!r})")
    seed = data.get("seed")
    if seed is not None and not (_is_int(seed) or isinstance(seed, str)):
        raise RecordError("seed must be an integer or a string")
    headers = data.get("headers", {})
    if not isinstance(headers, dict):
        raise RecordError("headers must be a JSON object")
    raw_hands = data.get("hands")
    if not isinstance(raw_hands, list):
        raise RecordError("hands must be a list")
    hands = tuple(_read_hand(h, i, n, seed) for i, h in enumerate(raw_hands))
    return Record(rules, first_mano, hands, seed, headers)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_hand(raw: Any, index: int, n: int, seed: Any) -> RecordHand:
    where = f"hand {index + 1}"  # people count hands from 1
    if not isinstance(raw, dict):
        raise RecordError(f"{where}: a hand is a JSON object")
    deal: Deal | None = None
    if "deal" in raw:
        deal = _read_deal(raw["deal"], where, n)
    elif seed is None:
        raise RecordError(f"{where}: no deal, and the record has no seed to reproduce it")
    raw_actions = raw.get("actions", [])
    if not isinstance(raw_actions, list):
        raise RecordError(f"{where}: actions must be a list")
    actions = []
    for i, entry in enumerate(raw_actions):
        if not (isinstance(entry, list) and len(entry) == 2):
            raise RecordError(f"{where}, action {i}: an action is [seat, token]")
        seat, token = entry
        if not _is_int(seat) or not 0 <= seat < n:
            raise RecordError(
                f"{where}, action {i}: there is no seat {seat!r} at a {n}-player table"
            )
        try:
            actions.append((seat, parse_action(token)))
        except ActionError as exc:
            raise RecordError(f"{where}, action {i}: {exc}") from None
    return RecordHand(deal, tuple(actions))


def _read_deal(raw: Any, where: str, n: int) -> Deal:
    if not isinstance(raw, list) or len(raw) != n:
        raise RecordError(f"{where}: the deal gives 3 cards to each of the {n} seats")
    deal = []
    seen: set[int] = set()
    for seat, cards in enumerate(raw):
        if not isinstance(cards, list) or len(cards) != 3:
            raise RecordError(f"{where}: seat {seat} must be dealt exactly 3 cards")
        hand = []
        for text in cards:
            try:
                card = parse_card(text)
            except CardError as exc:
                raise RecordError(f"{where}: {exc}") from None
            if card in seen:
                raise RecordError(f"{where}: {card_name(card)} is dealt twice")
            seen.add(card)
            hand.append(card)
        deal.append(tuple(hand))
    return tuple(deal)


def replay(record: Record) -> ReplayResult:
    """Replay a record through the engine. Illegal actions give ``result.error``;
    a record that breaks the format (an unclosed hand before the last, hands after
    the match was decided) raises :class:`RecordError`."""
    game = Game(record.rules, first_mano=record.first_mano, manual_deal=True)
    dealer = SeededDealer(record.seed) if record.seed is not None else None
    last = len(record.hands) - 1
    for h, hand in enumerate(record.hands):
        if game.is_over:
            raise RecordError(f"hand {h + 1} is listed after the match was decided")
        if hand.deal is not None:
            deal = hand.deal
        else:
            assert dealer is not None
            deal = dealer.deal(game.players, h)
        game.deal(deal)
        for i, (seat, action) in enumerate(hand.actions):
            if game.needs_deal:
                error = ReplayError(h, i, seat, action_token(action), "the hand is already over")
                return ReplayResult([], None, error, game)
            try:
                game.apply(seat, action)
            except IllegalAction as exc:
                error = ReplayError(h, i, seat, action_token(action), exc.reason)
                return ReplayResult([], None, error, game)
        if not game.needs_deal and h != last:
            raise RecordError(f"hand {h + 1} stops before it closes; only the last hand may")
    return ReplayResult(hand_summaries(game), game.winner if game.is_over else None, None, game)


def hand_summaries(game: Game) -> list[dict[str, Any]]:
    """Per hand, what ``truco replay`` prints: points, why, score, chicos, closed."""
    hands: list[dict[str, Any]] = [
        {
            "points": list(h.points),
            "why": [list(w) for w in h.why],
            "score": list(h.score),
            "chicos": list(h.chicos),
            "closed": True,
        }
        for h in game.history
    ]
    if not game.needs_deal:
        hands.append(
            {
                "points": [0, 0],
                "why": [],
                "score": list(game.score),
                "chicos": list(game.chicos),
                "closed": False,
            }
        )
    return hands


def game_to_record(game: Game, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of a match played through the engine (every deal written out).

    A game started with :meth:`Game.at_position` in the middle of a match has no
    complete record (the hands before it are unknown): that raises ``ValueError``."""
    first = game.history[0].index if game.history else game.hand_index
    if first != 0:
        raise ValueError("this game started in the middle of a match: it has no complete record")
    hands = [_hand_json(h.deal, h.actions) for h in game.history]
    if not game.needs_deal:
        hands.append(_hand_json(game.dealt, tuple(game.actions)))
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": game.rules.to_dict(),
        "first_mano": game.first_mano,
        "hands": hands,
    }
    if game.seed is not None:
        record["seed"] = game.seed
    if headers:
        record["headers"] = headers
    return record


def _hand_json(deal: Deal, actions: tuple[tuple[int, int], ...]) -> dict[str, Any]:
    return {
        "deal": [[card_name(c) for c in cards] for cards in deal],
        "actions": [[seat, action_token(a)] for seat, a in actions],
    }
