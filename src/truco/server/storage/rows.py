"""What the store hands out and refuses: a table's row, and the error of a write whose
lease is stale. Beside :mod:`.store` so that the journal and the PostgreSQL writer,
which the store uses, can name them without importing the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class FenceError(RuntimeError):
    """A write of a table by a node whose lease token is older than the table's fence:
    another node has taken the table over, so the write is refused."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"table {match_id}: another node holds it now (stale lease token)")
        self.match_id = match_id


@dataclass(slots=True)
class MatchRow:
    """One stored table: its options and seats, and its record once started."""

    id: str
    name: str
    status: str
    created_at: float
    updated_at: float
    version: int
    winner: int | None
    table: dict[str, Any]
    record: dict[str, Any] | None = None
    #: a live table's latest events (``[kind, who, body]``), from the journal
    events: list[list[Any]] = field(default_factory=list)
