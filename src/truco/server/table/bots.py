"""Bot scheduling: one bot of a table thinks at a time, after the pacing delay, on the
view of that moment, in the bot pool; its move comes back through the table's inbox."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable

from ...actions import is_say
from ...bots import Bot
from ...rules import Rules
from ...view import SeatView
from ..tasks import spawn
from .bot_pool import BotPool
from .inbox import BotMove, Message

log = logging.getLogger("truco.server")

#: what a bot decides on, asked for when its thinking starts: None if it has nothing to do
Ask = Callable[[int, int], tuple[Bot, SeatView, list[int]] | None]


class BotScheduler:
    """Starts and tracks the thinking of a table's bots."""

    def __init__(
        self, table_id: str, rules: Rules, delay: float, inbox: asyncio.Queue[Message]
    ) -> None:
        self.table_id = table_id
        self.rules = rules
        self.delay = delay
        self.inbox = inbox
        self.pool: BotPool | None = None  # where search bots think (set by the lobby)
        self.thinking: int | None = None  # the move counter a bot is thinking about
        self.spoke: dict[int, int] = {}  # bot seat -> move counter it spoke at
        self.task: asyncio.Task[None] | None = None  # the bot thinking now

    def legal(self, legal: list[int], seat: int, move: int) -> list[int]:
        """What a bot may do of ``legal``: megaphone words included, but at most one word
        between two moves (as in the terminal game)."""
        if self.spoke.get(seat) == move:
            return [a for a in legal if not is_say(a)]
        return legal

    def wake(self, seat: int, move: int, ask: Ask) -> None:
        """Let the bot of ``seat`` think about move ``move`` (unless one thinks about it)."""
        if self.thinking == move:
            return
        self.thinking = move
        self.task = spawn(self._think(seat, move, ask), f"table-{self.table_id}-bot-{seat}")

    def done(self, move: BotMove) -> None:
        """The bot thinking about ``move`` is done."""
        if self.thinking == move.move:
            self.thinking = None

    def played(self, move: BotMove) -> None:
        """``move`` was applied: a word counts against the bot's one word per move."""
        if is_say(move.action):
            self.spoke[move.seat] = move.move

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = None

    async def _think(self, seat: int, move: int, ask: Ask) -> None:
        if self.delay > 0:
            await asyncio.sleep(self.delay)
        action = -1  # nothing to do: the move only tells the actor the bot is done
        question = ask(seat, move)
        if question is not None:
            bot, view, legal = question
            try:
                if self.pool is not None:
                    action = (await self.pool.decide(bot, view, legal, self.rules)).action
                else:
                    action = await asyncio.to_thread(bot.choose, view, legal, self.rules)
            except Exception:  # a failing bot must not stall the table
                log.exception("table %s: bot %r failed; playing a random move", self.table_id, bot)
                action = secrets.choice([a for a in legal if not is_say(a)] or legal)
        await self.inbox.put(BotMove(seat, action, move))
