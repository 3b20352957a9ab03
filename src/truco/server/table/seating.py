"""Seating: who sits where (people, bots), who may change it, and the bots' brains."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ...bots import Bot, make_bot
from ...bots.names import BOT_NAMES
from ..people.players import Player
from .bot_pool import check_bot_spec
from .errors import TableError


@dataclass(slots=True)
class Seat:
    """Who sits in a seat. A person covered by a bot (clock ran out, disconnected)
    is ``away`` until they come back."""

    kind: Literal["empty", "human", "bot"] = "empty"
    player_id: str | None = None
    name: str = ""
    bot: str | None = None
    away: bool = False
    #: a person with an account (a profile to open, someone to challenge), not a guest
    account: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "player_id": self.player_id,
            "name": self.name,
            "bot": self.bot,
            "away": self.away,
            "account": self.account,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        return cls(
            data["kind"],
            data.get("player_id"),
            data.get("name", ""),
            data.get("bot"),
            bool(data.get("away")),
            bool(data.get("account")),
        )


def name_bots(seats: list[Seat]) -> None:
    """Name the bots in seat order, as every client, record and listing names them
    ("Rosa", "Tito", ...); run whenever a bot sits or stands, before the match starts."""
    number = 0
    for seat in seats:
        if seat.kind == "bot":
            seat.name = BOT_NAMES[number % len(BOT_NAMES)]
            number += 1


def seat_names(seats: list[Seat]) -> list[str]:
    """The seats' names as the page shows them: two people of one name told apart by
    their seat number, a free seat by its number."""
    names = [seat.name for seat in seats]
    return [
        f"Seat {i + 1}"
        if seat.kind == "empty" or not seat.name
        else f"{seat.name} ({i + 1})"
        if names.count(seat.name) > 1
        else seat.name
        for i, seat in enumerate(seats)
    ]


class Seating:
    """The seats of a table, its creator (who seats and removes bots) and the bot of
    every seat a bot plays or covers. Refusals raise :class:`TableError`; whether seats
    may change at all (before the match) is the table's to check."""

    def __init__(
        self,
        players: int,
        creator: str | None,
        seats: list[Seat] | None = None,
        rated: bool = False,
    ) -> None:
        self.creator = creator
        self.rated = rated  # accounts only, no bots
        self.seats: list[Seat] = seats or [Seat() for _ in range(players)]
        self.bots: dict[int, Bot] = {}

    def seat_of(self, player: Player | None) -> int | None:
        """The seat ``player`` sits in (None: a spectator)."""
        if player is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat.kind == "human" and seat.player_id == player.id:
                return i
        return None

    def full(self) -> bool:
        return all(seat.kind != "empty" for seat in self.seats)

    def require_empty(self, seat: int) -> None:
        if seat >= len(self.seats):
            raise TableError("no_seat", seat=seat, players=len(self.seats))
        if self.seats[seat].kind != "empty":
            raise TableError("seat_taken", seat=seat)

    def sit(self, player: Player | None, seat: int) -> int | None:
        """Seat ``player`` (leaving the seat they held: returned)."""
        if player is None:
            raise TableError("no_player")
        if self.rated and not player.account:
            raise TableError("account_needed")
        self.require_empty(seat)
        old = self.seat_of(player)
        if old is not None:
            self.seats[old] = Seat()
        self.seats[seat] = Seat("human", player.id, player.name, account=player.account)
        return old

    def stand(self, player: Player | None) -> int:
        """Free the seat of ``player`` (returned)."""
        seat = self.seat_of(player)
        if seat is None:
            raise TableError("not_seated")
        self.seats[seat] = Seat()
        return seat

    def require_creator(self, player: Player | None) -> None:
        if player is None or player.id != self.creator:
            raise TableError("not_creator")

    def add_bot(self, seat: int, level: str) -> Bot:
        """Seat a bot of ``level`` (one the server offers)."""
        self.require_empty(seat)
        if self.rated:
            raise TableError("rated_no_bots")
        try:
            bot = make_bot(check_bot_spec(level))
        except ValueError:
            raise TableError("bad_bot", level=repr(level)[:50]) from None
        self.bots[seat] = bot
        self.seats[seat] = Seat("bot", None, "", level)
        name_bots(self.seats)
        return bot

    def remove_bot(self, seat: int) -> None:
        if seat >= len(self.seats) or self.seats[seat].kind != "bot":
            raise TableError("no_bot", seat=seat)
        self.seats[seat] = Seat()
        name_bots(self.seats)
        self.bots.pop(seat, None)

    def bot_controls(self, seat: int) -> bool:
        """A bot plays the seat: a bot's, or an away person's."""
        info = self.seats[seat]
        return info.kind == "bot" or (info.kind == "human" and info.away)

    def humans(self, seats: Iterable[int]) -> list[int]:
        """Those of ``seats`` a person present plays."""
        return [s for s in seats if self.seats[s].kind == "human" and not self.seats[s].away]

    def bot_of(self, seat: int, cover_bot: str) -> Bot:
        """The bot that plays ``seat`` (a person's is the cover bot, made when first needed)."""
        bot = self.bots.get(seat)
        if bot is None or self.seats[seat].kind == "human":
            bot = self.bots[seat] = make_bot(self.seats[seat].bot or cover_bot)
        return bot

    def to_json(self) -> list[dict[str, Any]]:
        return [seat.to_json() for seat in self.seats]
