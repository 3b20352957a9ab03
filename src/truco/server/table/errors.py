"""What a table refuses: a refusal code and its parameters (see :mod:`truco.refusals`)."""

from __future__ import annotations

from ...refusals import Param, Refusal


class TableError(ValueError):
    """A request the table refuses: ``refusal`` (its ``code``, ``params``, and ``reason``
    the English sentence)."""

    def __init__(self, code: str | Refusal, **params: Param) -> None:
        refusal = code if isinstance(code, Refusal) else Refusal.of(code, **params)
        super().__init__(refusal.reason)
        self.refusal = refusal
        self.code = refusal.code
        self.reason = refusal.reason
