"""What a table refuses, with a stable short code."""

from __future__ import annotations


class TableError(ValueError):
    """A request the table refuses; ``code`` is a stable short name."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
