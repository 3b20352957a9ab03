"""The event log of a table and its audiences: who may see which event.

Every change is an event with a version number. An event is for everyone, one team
(a megaphone word) or one seat (a card released early); a client gets the events its
seat may see. The log keeps the latest ``buffer`` events, so that a client coming back
with the last version it saw gets exactly what it missed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Literal

#: who may see an event: everyone, one team, or one seat
Audience = tuple[Literal["all"], None] | tuple[Literal["team", "seat"], int]
EVERYONE: Audience = ("all", None)


@dataclass(slots=True)
class TableEvent:
    """One version of the table: what happened (``body``, fixed once emitted), for whom."""

    version: int
    audience: Audience
    body: dict[str, Any]


def sees(seat: int | None, audience: Audience) -> bool:
    """Whether ``seat`` (None: a spectator) may see an event for ``audience``."""
    kind, who = audience
    if kind == "all":
        return True
    if seat is None:
        return False
    return seat & 1 == who if kind == "team" else seat == who


class EventLog:
    """The table's version and its latest events."""

    def __init__(self, buffer: int, version: int = 0) -> None:
        self.version = version
        self.events: deque[TableEvent] = deque(maxlen=buffer)

    def emit(self, body: dict[str, Any], audience: Audience = EVERYONE) -> None:
        """A new version: ``body`` (its ``v`` is set here) for ``audience``."""
        self.version += 1
        body["v"] = self.version
        self.events.append(TableEvent(self.version, audience, body))

    def after(self, version: int) -> list[TableEvent]:
        """The events newer than ``version``, oldest first."""
        newer = []
        for event in reversed(self.events):
            if event.version <= version:
                break
            newer.append(event)
        newer.reverse()
        return newer

    def visible(self, since: int, seat: int | None) -> list[dict[str, Any]]:
        """The bodies of the events after ``since`` that ``seat`` may see."""
        return [e.body for e in self.after(since) if sees(seat, e.audience)]

    def holds_after(self, since: int) -> bool:
        """Whether every event after ``since`` is still in the log (else: send the full state)."""
        if since > self.version:
            return False
        if not self.events:
            return since >= self.version
        return since >= self.events[0].version - 1
