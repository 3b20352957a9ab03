"""The table's deadlines: the turn clock of the people to act, the reconnect grace of a
seat whose person left, and how long a waiting table nobody joins stays open."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Deadlines:
    """Times on the event loop's clock (``loop.time()``); None: not running."""

    turn: float | None = None  # the people to act must act by then
    turn_total: float = 0.0  # the seconds the running turn clock started with
    reconnect: dict[int, float] = field(default_factory=dict)  # seat -> bot covers it then
    idle_since: float | None = None  # a waiting table nobody is connected to

    def next(self, abandon_after: float | None) -> float | None:
        """The earliest deadline (``abandon_after``: None unless the table is waiting)."""
        times = list(self.reconnect.values())
        if self.turn is not None:
            times.append(self.turn)
        if self.idle_since is not None and abandon_after is not None:
            times.append(self.idle_since + abandon_after)
        return min(times) if times else None

    def start_turn(self, now: float, seconds: float) -> None:
        self.turn_total = seconds
        self.turn = now + seconds

    def turn_over(self, now: float) -> bool:
        """Whether the turn clock ran out (it stops then)."""
        if self.turn is None or self.turn > now:
            return False
        self.turn = None
        return True

    def reconnects_due(self, now: float) -> list[int]:
        """The seats whose grace ran out (their deadlines are dropped)."""
        due = [seat for seat, when in self.reconnect.items() if when <= now]
        for seat in due:
            del self.reconnect[seat]
        return due

    def remaining(self, now: float) -> float:
        assert self.turn is not None
        return max(0.0, self.turn - now)
