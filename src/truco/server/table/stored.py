"""A table as the database keeps it: its row (options, seats, record) and back."""

from __future__ import annotations

import logging
import time
from typing import Any, Protocol

from ...cards import card_name, parse_card
from ...deal import CommittedDealer
from ...fairness import KEY_BYTES, add_to_record
from ...game import Game
from ...record import game_to_record, record_from_json, replay
from ..config import ServerConfig
from ..storage.journal import Journal
from ..storage.rows import MatchRow
from .durability import Durability
from .seating import Seat, Seating

log = logging.getLogger("truco.server")


class StoredTable(Protocol):
    """What is stored of a table (:class:`~.actor.Table`) and what its restore sets."""

    id: str
    name: str
    created_at: float
    config: ServerConfig
    seating: Seating
    game: Game | None
    dealer: CommittedDealer
    committed: dict[int, int]
    durability: Durability
    turn_seconds: float
    _rules_json: dict[str, Any]

    @property
    def status(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def seats(self) -> list[Seat]: ...

    @property
    def creator(self) -> str | None: ...

    @property
    def rated(self) -> bool: ...


def table_json(table: StoredTable) -> dict[str, Any]:
    """What is stored beside the record: options, seats, cards released early."""
    return {
        "rules": table._rules_json,
        "creator": table.creator,
        "turn_seconds": table.turn_seconds,
        "rated": table.rated,
        "seats": table.seating.to_json(),
        # cards released early (not in the record: they are not played yet)
        "committed": {str(seat): card_name(card) for seat, card in table.committed.items()},
        # the secret every hand's deck is drawn from: its commitments survive a restart
        "fair_deals": {"key": table.dealer.key.hex(), "first_hand": table.dealer.first_hand},
    }


def snapshot(table: StoredTable) -> MatchRow:
    """The whole table as one row (a checkpoint of the journal)."""
    names = [seat.name or f"seat {i}" for i, seat in enumerate(table.seats)]
    game = table.game
    record = None
    if game is not None:
        headers = {"event": table.name, "site": "Truco Argento", "seats": names}
        if game.is_over:
            headers["result"] = f"team {game.winner} wins {game.chicos[0]}-{game.chicos[1]}"
        record = game_to_record(game, headers)
        hands = len(record["hands"])
        add_to_record(
            record,
            table.dealer.sealed_decks(hands),
            closed=len(game.history),
            # the key binds every hand to the match; it is told only once the match is over
            key=table.dealer.key if game.is_over else None,
            first_hand=table.dealer.first_hand,
        )
    return MatchRow(
        id=table.id,
        name=table.name,
        status=table.status,
        created_at=table.created_at,
        updated_at=time.time(),
        version=table.version,
        winner=game.winner if game is not None and game.is_over else None,
        table=table_json(table),
        record=record,
    )


def restore_match(table: StoredTable, row: MatchRow) -> None:
    """Give a table rebuilt from ``row`` its bots, its match as recorded (not yet dealt
    on), the cards released early and its journal marks."""
    data = row.table
    for i, seat in enumerate(table.seats):
        if seat.kind == "bot":
            table.seating.bot_of(i, table.config.cover_bot)
    if row.record is not None:
        result = replay(record_from_json(row.record))
        if result.error is not None:
            raise ValueError(
                f"table {row.id}: stored record does not replay: {result.error.reason}"
            )
        game = result.game
        assert game is not None
        table.dealer = resumed_dealer(data.get("fair_deals"), game, row.id)
        table.game = game
        for seat, name in data.get("committed", {}).items():
            card = parse_card(name)
            if game.holds(int(seat), card):
                table.committed[int(seat)] = card
    table.durability.journal = Journal.restored(row, table.game, table.config.event_buffer)


def resumed_dealer(data: Any, game: Game, table_id: str) -> CommittedDealer:
    """The dealer a restored match goes on with: its own key, so that every commitment it
    published holds (the hand in progress included); a match stored without one (or whose
    hand in progress does not come from it) gets a new key for the hands still to be dealt."""
    dealt = game.hand_index + (0 if game.needs_deal else 1)  # hands dealt so far
    try:
        key, first = bytes.fromhex(data["key"]), int(data["first_hand"])
    except (TypeError, KeyError, ValueError):
        return CommittedDealer(first_hand=dealt)
    dealer = CommittedDealer(key, first) if len(key) == KEY_BYTES else None
    sealed = None if dealer is None else dealer.sealed(game.hand_index)
    if dealer is not None and (
        game.needs_deal or sealed is None or sealed.deal(game.n) == game.dealt
    ):
        return dealer
    log.warning("table %s: its fair-deal key does not give the hand in progress", table_id)
    return CommittedDealer(first_hand=dealt)
