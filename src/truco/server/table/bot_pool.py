"""Bot decisions off the tables' actors: which bots a guest may seat, and where they think.

A table never runs a search bot's decision itself. Cheap bots (``random``, ``simple``:
microseconds a decision) answer at once; search bots think in a pool of worker
processes (the search is CPU-bound Python: threads would share one core through the
GIL and slow every table's actor down with them). The pool holds at most
``workers + queue`` decisions at a time. A decision that finds it full, that overruns
the time budget, or whose worker fails is made by the cheap fallback bot instead, so a
table always gets a legal move in bounded time and a busy server degrades to weaker
bots rather than to a longer queue.

The worlds budget is the level itself: the network may only ask for the levels the
server offers (:func:`offered_bots`), and each of them has a fixed number of worlds.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ...bots import BOTS, PLUGIN_BOTS, Bot, make_bot
from ...rules import Rules
from ...view import SeatView
from ..metrics import BOT_CPU_SECONDS, BOT_DECISIONS
from ..worker_process import exit_with_parent

log = logging.getLogger("truco.server")

#: Bots whose decisions take microseconds: they answer on the table's own loop.
CHEAP_BOTS = frozenset({"random", "simple"})

How = Literal["inline", "pool", "full", "timeout", "error"]


def offered_bots() -> list[str]:
    """The bot specs a guest may ask for: every bot of :data:`truco.bots.BOTS`, with its
    levels when its module lists them (``LEVELS``). Never a file path (``linear:``)."""
    choices: list[str] = []
    for name, factory in BOTS.items():
        if name in PLUGIN_BOTS:  # registered once loaded; their level is a file, not a strength
            continue
        levels = getattr(factory, "LEVELS", None) or _known_levels(name)
        if levels:
            choices.extend(f"{name}:{level}" for level in levels)
        else:
            choices.append(name)
    return choices


def _known_levels(name: str) -> tuple[str, ...]:
    try:
        module = __import__(f"truco.bots.{name}", fromlist=["LEVELS"])
    except ImportError:
        return ()
    return tuple(getattr(module, "LEVELS", ()))


def check_bot_spec(spec: str) -> str:
    """``spec`` if the server offers it, else :class:`ValueError` naming the choices."""
    offered = offered_bots()
    if spec not in offered:
        shown = spec if len(spec) <= 40 else spec[:40] + "…"
        raise ValueError(f"no bot {shown!r} here (one of {', '.join(offered)})")
    return spec


@dataclass(frozen=True, slots=True)
class Decision:
    action: int
    how: How


# ------------------------------------------------------------------ worker side
_WORKER_BOTS: dict[str, Bot] = {}


def _decide(spec: str, view: SeatView, legal: Sequence[int], rules: Rules) -> tuple[int, float]:
    """In a worker: the decision of bot ``spec`` (one bot per spec per worker), and the
    CPU seconds it took."""
    bot = _WORKER_BOTS.get(spec)
    if bot is None:
        bot = _WORKER_BOTS[spec] = make_bot(spec)
    return _timed(bot, view, legal, rules)


def _timed(bot: Bot, view: SeatView, legal: Sequence[int], rules: Rules) -> tuple[int, float]:
    started = time.thread_time()
    action = bot.choose(view, legal, rules)
    return action, time.thread_time() - started


def _warm_up() -> None:
    """Import the bots in the worker before the first decision needs them, and end the
    worker with the server (:func:`~.worker_process.exit_with_parent`)."""
    exit_with_parent()
    make_bot("search:easy")


class BotPool:
    """Where a table's bots make their decisions; see the module's docstring."""

    def __init__(
        self,
        workers: int = 2,
        queue: int = 8,
        seconds: float = 3.0,
        fallback: str = "simple",
        kind: Literal["process", "thread"] = "process",
    ) -> None:
        self.workers = max(1, workers)
        self.capacity = self.workers + max(0, queue)
        self.seconds = seconds
        self.kind = kind
        self.fallback = make_bot(fallback)
        self.in_flight = 0
        self.counts: Counter[How] = Counter()
        self._executor: concurrent.futures.Executor | None = None

    def _pool(self) -> concurrent.futures.Executor:
        if self._executor is None:
            if self.kind == "thread":
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="truco-bot"
                )
            else:  # spawn: forking a process that runs threads and an event loop is unsafe
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_warm_up,
                )
        return self._executor

    def warm(self, bots: Iterable[Bot]) -> None:
        """Start the workers now if any of ``bots`` will need them (a process takes a
        second or more to start: better while the table waits for its players)."""
        if self._executor is None and any(b.name not in CHEAP_BOTS for b in bots):
            pool = self._pool()
            for _ in range(self.workers):
                pool.submit(_warm_up)

    async def decide(
        self, bot: Bot, view: SeatView, legal: Sequence[int], rules: Rules
    ) -> Decision:
        """``bot``'s action among ``legal``: at once for a cheap bot, from the pool for
        a search bot, from the fallback bot when the pool is full, slow or failing."""
        level = repr(bot)
        if bot.name in CHEAP_BOTS:
            action, cpu = _timed(bot, view, legal, rules)
            BOT_CPU_SECONDS.labels(level).inc(cpu)
            return self._count(Decision(action, "inline"), level)
        if self.in_flight >= self.capacity:
            return self._fall_back(view, legal, rules, "full", level)
        loop = asyncio.get_running_loop()
        self.in_flight += 1
        future = loop.run_in_executor(self._pool(), _decide, repr(bot), view, list(legal), rules)
        # the slot stays taken until the worker is really done, even after a timeout
        future.add_done_callback(self._release)
        try:
            action, cpu = await asyncio.wait_for(asyncio.shield(future), self.seconds)
        except TimeoutError:
            return self._fall_back(view, legal, rules, "timeout", level)
        except Exception:
            log.exception("bot %r failed; its fallback decides", bot)
            return self._fall_back(view, legal, rules, "error", level)
        BOT_CPU_SECONDS.labels(level).inc(cpu)
        if action not in legal:
            log.error("bot %r chose %r, not a legal action; its fallback decides", bot, action)
            return self._fall_back(view, legal, rules, "error", level)
        return self._count(Decision(action, "pool"), level)

    def _release(self, future: asyncio.Future[tuple[int, float]]) -> None:
        self.in_flight -= 1
        if not future.cancelled():
            future.exception()  # retrieved: a late failure is not "never retrieved"

    def _fall_back(
        self, view: SeatView, legal: Sequence[int], rules: Rules, how: How, level: str
    ) -> Decision:
        return self._count(Decision(self.fallback.choose(view, legal, rules), how), level)

    def _count(self, decision: Decision, level: str) -> Decision:
        """Count ``decision``, made for a bot of ``level`` (a fallback's too: it is what
        that level's seat got)."""
        self.counts[decision.how] += 1
        BOT_DECISIONS.labels(level, decision.how).inc()
        return decision

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
