"""The write-ahead journal of a table: what changed since the last commit, as one small entry.

A live table is stored as a *checkpoint* (its row in ``truco_matches``: options, seats, the
match record, the version) plus *journal entries* appended after it (``truco_journal``),
one per commit. An entry holds

- ``events``: the table's new events, each with its version and audience, so that a client
  reconnecting after a restart with ``since=N`` still gets exactly the events it missed;
- ``hands``: what the match record gained: ``[hand, deal or None, [[seat, token], ...]]``
  (a deal only for a hand dealt since the last entry).

What sits beside the record (seats, cards released early) is a small dict written over the
row's ``table_json`` in the same transaction whenever it changes. A table is rebuilt from its
checkpoint and the entries after it (:func:`fold`); a new checkpoint (the whole record) is
written when the status changes and every :data:`CHECKPOINT_EVERY` entries, and entries no
longer needed to answer ``since`` are dropped then. A finished match keeps only its
checkpoint: its record is final and nobody resyncs with it.

:class:`Journal` tracks, for one table, how much of it is durable and builds the next
:class:`TableWrite`; the table commits it (:meth:`truco.server.storage.store.Store.commit`) before
any client hears of what it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...actions import action_token
from ...cards import card_name
from ...game import Game

if TYPE_CHECKING:
    from .rows import MatchRow

#: entries after which a table writes a new checkpoint (bounds what a restart replays)
CHECKPOINT_EVERY = 256
#: statuses of a table that is brought back by a restart
LIVE = ("waiting", "playing")


class JournalError(ValueError):
    """Stored entries that do not fit the checkpoint they follow."""


@dataclass(slots=True)
class TableWrite:
    """One table's part of a commit.

    ``entry`` is appended to the journal at ``version`` (None: no new version);
    ``table`` replaces the stored table dict (None: unchanged); ``checkpoint`` replaces
    the whole row; entries of the table below ``drop_before`` are deleted."""

    match_id: str
    version: int
    entry: dict[str, Any] | None = None
    table: dict[str, Any] | None = None
    checkpoint: MatchRow | None = None
    drop_before: int | None = None
    # where the durable state ends once this write is committed
    _after: tuple[int, int, int] = (0, 0, 0)


@dataclass(slots=True)
class RecordPosition:
    """How much of a match record is durable: hands dealt, actions of the last of them."""

    hands: int = 0
    actions: int = 0

    @classmethod
    def at_end(cls, game: Game | None) -> RecordPosition:
        if game is None:
            return cls()
        hands = _record_hands(game)
        return cls(len(hands), len(hands[-1][1]) if hands else 0)


def _record_hands(game: Game) -> list[tuple[Any, tuple[tuple[int, int], ...]]]:
    """The record's hands as (deal, actions), as :func:`truco.record.game_to_record` lists them."""
    hands: list[tuple[Any, tuple[tuple[int, int], ...]]] = [
        (h.deal, h.actions) for h in game.history
    ]
    if not game.needs_deal:
        hands.append((game.dealt, tuple(game.actions)))
    return hands


def record_delta(game: Game, since: RecordPosition) -> tuple[list[list[Any]], RecordPosition]:
    """The deals and actions the record gained after ``since``, and the new position.

    >>> game = Game(seed=3)
    >>> delta, at = record_delta(game, RecordPosition())
    >>> delta[0][0], len(delta[0][1]), delta[0][2], at
    (0, 2, [], RecordPosition(hands=1, actions=0))
    """
    history = game.history
    current = None if game.needs_deal else (game.dealt, game.actions)
    total = len(history) + (current is not None)
    delta: list[list[Any]] = []
    last = 0
    for h in range(max(since.hands - 1, 0), total):
        deal, actions = (history[h].deal, history[h].actions) if h < len(history) else current  # type: ignore[misc]
        new_hand = h >= since.hands
        start = 0 if new_hand else since.actions
        if new_hand or len(actions) > start:
            delta.append(
                [
                    h,
                    [[card_name(c) for c in cards] for cards in deal] if new_hand else None,
                    [[seat, action_token(a)] for seat, a in actions[start:]],
                ]
            )
        last = len(actions)
    return delta, RecordPosition(total, last if total else 0)


def apply_hands(record: dict[str, Any], hands: Iterable[list[Any]]) -> None:
    """Add an entry's ``hands`` to a ``truco-record/1`` dict (in place)."""
    stored = record["hands"]
    for h, deal, actions in hands:
        if deal is not None:
            if h != len(stored):
                raise JournalError(f"hand {h} dealt after {len(stored)} hands")
            stored.append({"deal": deal, "actions": []})
        elif not 0 <= h < len(stored):
            raise JournalError(f"actions for hand {h}, which was never dealt")
        stored[h]["actions"].extend(actions)


def fold(row: MatchRow, entries: Iterable[tuple[int, dict[str, Any]]]) -> None:
    """Bring a checkpoint up to date with the journal entries ``(version, entry)`` stored
    after it (in version order): the record, the version, and the events (kept on
    ``row.events`` for the table's resync buffer)."""
    for version, entry in entries:
        row.events.extend(entry.get("events", ()))
        if version <= row.version:
            continue  # already in the checkpoint; kept for its events only
        hands = entry.get("hands") or []
        if hands:
            if row.record is None:
                raise JournalError(f"table {row.id}: moves journaled before the match started")
            apply_hands(row.record, hands)
        row.version = version


@dataclass
class Journal:
    """How much of one table is durable, and the next write that makes the rest durable."""

    version: int = 0
    record: RecordPosition = field(default_factory=RecordPosition)
    table: dict[str, Any] | None = None
    status: str | None = None  # None: the table has no row yet
    entries: int = 0  # entries since the last checkpoint
    event_buffer: int = 1000  # events kept for ``since`` (entries older are dropped)

    @classmethod
    def restored(cls, row: MatchRow, game: Game | None, event_buffer: int) -> Journal:
        return cls(row.version, RecordPosition.at_end(game), row.table, row.status, 0, event_buffer)

    def pending(
        self,
        match_id: str,
        version: int,
        events: list[list[Any]],
        game: Game | None,
        table: dict[str, Any],
        status: str,
        snapshot: Callable[[], MatchRow],
    ) -> TableWrite | None:
        """The write that makes the table durable at ``version`` (None: nothing new).

        ``events`` are the table's events after :attr:`version` as ``[kind, who, body]``.
        A change of the record without any event (none is expected) still gets a version
        of its own, so that the write's version may be above ``version``: the table takes
        it over."""
        new_status = status != self.status
        if status not in LIVE and not new_status:
            return None  # a finished table's row is final
        delta: list[list[Any]] = []
        position = self.record
        if game is not None and status in LIVE:
            delta, position = record_delta(game, self.record)
        if not (events or delta or new_status or table != self.table):
            return None
        if delta and not events:
            version = max(version, self.version + 1)
        write = TableWrite(match_id, version)
        checkpoint = new_status or self.entries + 1 >= CHECKPOINT_EVERY
        if checkpoint:
            write.checkpoint = snapshot()
            write.checkpoint.version = version
            position = RecordPosition.at_end(game)
            if status in LIVE:
                write.drop_before = version - self.event_buffer + 1
            else:
                write.drop_before = version + 1  # the record is final: no entry is needed
        elif table != self.table:
            write.table = table
        if status in LIVE and (events or delta):
            write.entry = {"events": events}
            if delta and not checkpoint:
                write.entry["hands"] = delta
        write._after = (position.hands, position.actions, 0 if checkpoint else self.entries + 1)
        return write

    def committed(self, write: TableWrite, table: dict[str, Any], status: str) -> None:
        """``write`` is durable: move the marks past it."""
        self.version = write.version
        hands, actions, self.entries = write._after
        self.record = RecordPosition(hands, actions)
        self.table = table
        self.status = status


def event_json(audience: tuple[str, int | None], body: dict[str, Any]) -> list[Any]:
    """An event as the journal stores it: ``[audience kind, who, body]``."""
    return [audience[0], audience[1], body]
