"""Failed logins slow the next attempt down: a delay that grows, not a wall, and counted
per (name, address) and per address, never per name alone, so that an attacker guessing
an account's password from elsewhere never locks its owner out of it.

After ``free`` failures of a key, each further attempt of that key must wait
``2 ** (failures - free)`` seconds (at most ``max_delay``) after its last failure; a key
with no failure for ``forget`` seconds starts again from nothing, and a successful login
clears its (name, address) key. An address has ``address_factor`` times the free failures
of a pair (several people may share one address).

>>> now = [0.0]
>>> throttle = LoginThrottle(free=2, clock=lambda: now[0])
>>> keys = throttle.keys("ana", "1.2.3.4")
>>> throttle.failed(*keys); throttle.wait(*keys)  # the first two tries are free
0.0
>>> throttle.failed(*keys); throttle.wait(*keys)  # the third waits 1 s, the next 2 s...
1.0
>>> throttle.wait(*throttle.keys("ana", "5.6.7.8"))  # the owner, from home
0.0
>>> now[0] = 1.0; throttle.wait(*keys)
0.0
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(slots=True)
class _Failures:
    count: int
    last: float


class LoginThrottle:
    """Failed logins per key, and how long a key must still wait."""

    def __init__(
        self,
        free: int = 3,
        max_delay: float = 300.0,
        forget: float = 3600.0,
        address_factor: int = 5,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.free = free
        self.max_delay = max_delay
        self.forget = forget
        self.address_factor = address_factor
        self.clock = clock
        self.max_keys = max_keys
        self._failures: dict[tuple[str, ...], _Failures] = {}

    @staticmethod
    def keys(name_key: str, address: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The keys of one attempt: the (name, address) pair, and the address."""
        return ("pair", name_key, address), ("address", address)

    def _free(self, key: tuple[str, ...]) -> int:
        return self.free * (self.address_factor if key[0] == "address" else 1)

    def wait(self, *keys: tuple[str, ...]) -> float:
        """Seconds before an attempt of ``keys`` may be tried (0: now)."""
        now = self.clock()
        longest = 0.0
        for key in keys:
            failures = self._failures.get(key)
            if failures is None:
                continue
            if now - failures.last > self.forget:
                del self._failures[key]
                continue
            over = failures.count - self._free(key)
            if over >= 0:
                delay = min(self.max_delay, 2.0**over)
                longest = max(longest, failures.last + delay - now)
        return max(0.0, longest)

    def failed(self, *keys: tuple[str, ...]) -> None:
        """Count one failure against each of ``keys``."""
        now = self.clock()
        if len(self._failures) >= self.max_keys:
            self._sweep(now)
        for key in keys:
            failures = self._failures.get(key)
            if failures is None or now - failures.last > self.forget:
                self._failures[key] = _Failures(1, now)
            else:
                failures.count += 1
                failures.last = now

    def succeeded(self, pair: tuple[str, ...]) -> None:
        """The owner got in: their (name, address) pair starts again."""
        self._failures.pop(pair, None)

    def _sweep(self, now: float) -> None:
        for key in [k for k, f in self._failures.items() if now - f.last > self.forget]:
            del self._failures[key]
        if len(self._failures) >= self.max_keys:  # a flood of fresh keys: the oldest go
            for key in sorted(self._failures, key=lambda k: self._failures[k].last)[
                : self.max_keys // 2
            ]:
                del self._failures[key]
