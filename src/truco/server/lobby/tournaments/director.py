"""The tournament director: every :data:`INTERVAL` seconds, for each tournament due,
take its lease (:func:`.records.claim`: one node of a cluster at a time), note the
games whose match ended, and pair what is to be paired.

- An open tournament whose start came starts (Swiss: its first round), or is finished
  empty-handed with fewer than :data:`~.records.MIN_ENTRANTS`.
- **Swiss**: once every game of the round ended, the next round is paired
  (:func:`.matching.swiss_round`) from the standings; after the last, it is finished.
- **Arena**: whoever is free is paired at once (:func:`.matching.arena_pairs`) until the
  time is up; then, once the last games end, it is finished.

Each game is a table made by :func:`..challenges.seat_match` (rated if the tournament
is), the first entrant in seat 0. Pages learn of it by polling the tournament
(``GET /api/tournaments/{id}``, every 2 seconds): its state is the database's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, RowMapping

from ....rules import Rules
from ...parts import Server
from ...people.players import Player
from ...storage.store import tournament_games_table, tournaments_table
from ...tasks import spawn
from ..challenges import seat_match
from . import records
from .matching import ArenaEntrant, Game, arena_pairs, last_rivals, swiss_entrants, swiss_round

log = logging.getLogger("truco.server")

#: how often the director looks (seconds)
INTERVAL = 1.0
#: how long a tournament waits after a table could not be made for it (seconds)
REST = 30.0
#: how long a node's lease on a tournament lasts without renewal (seconds)
LEASE = 15.0


class Director:
    """Directs every due tournament this node can lease."""

    def __init__(
        self,
        server: Server,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.server = server
        self.interval = interval
        self.clock = clock
        self.name = f"director-{secrets.token_hex(6)}"
        self.task: asyncio.Task[None] | None = None
        #: tournaments not paired again before then (a table could not be made)
        self.resting: dict[str, float] = {}

    async def start(self) -> None:
        self.task = spawn(self._run(), name="tournament-director")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # a bad round (the database away) must not end the director
                log.exception("tournament director: a round failed, trying again")
            await asyncio.sleep(self.interval)

    async def tick(self) -> None:
        """One look at every due tournament."""
        engine = self.server.store.engine
        now = self.clock()
        for tournament_id in await asyncio.to_thread(records.due, engine, now):
            if self.resting.get(tournament_id, 0.0) <= now:
                self.resting.pop(tournament_id, None)
                await self.direct(tournament_id)

    async def direct(self, tournament_id: str) -> None:
        """Note ended games and pair what is due, if this node holds the lease."""
        engine = self.server.store.engine
        now = self.clock()

        def step() -> tuple[bool, list[tuple[int, list[str]]]]:
            with engine.begin() as conn:
                if not records.claim(conn, tournament_id, self.name, now, LEASE):
                    return False, []
                status = records._tournament(conn, tournament_id)["status"]
                ended = self._note_results(conn, tournament_id)
                pairs = self._plan(conn, tournament_id, now)
                moved = records._tournament(conn, tournament_id)["status"] != status
                return bool(ended or pairs or moved), pairs

        changed, pairs = await asyncio.to_thread(step)
        for seq, pair in pairs:
            await self._seat(tournament_id, seq, pair)
        if changed:  # the tournament's pages ask again (:mod:`~...notices`)
            self.server.notices.publish(f"tournament:{tournament_id}")

    # -------------------------------------------------------------- in the database
    def _note_results(self, conn: Connection, tournament_id: str) -> int:
        """The games whose tables ended, written as done; how many."""
        playing = conn.execute(
            select(tournament_games_table).where(
                tournament_games_table.c.tournament_id == tournament_id,
                tournament_games_table.c.status == "playing",
            )
        ).mappings()
        ended = []
        for game in playing.all():
            if game["table_id"] is None:
                continue
            over, team = records.match_outcome(conn, game["table_id"])
            if over:
                seats = {0: game["first_id"], 1: game["second_id"]}
                winner = None if team is None else seats.get(team)
                ended.append((game["seq"], winner))
        last = conn.execute(
            select(func.max(tournament_games_table.c.ended_seq)).where(
                tournament_games_table.c.tournament_id == tournament_id
            )
        ).scalar_one()
        order = last or 0
        for seq, winner in ended:
            order += 1
            conn.execute(
                update(tournament_games_table)
                .where(
                    tournament_games_table.c.tournament_id == tournament_id,
                    tournament_games_table.c.seq == seq,
                )
                .values(status="done", winner_id=winner, ended_seq=order)
            )
        return len(ended)

    def _plan(
        self, conn: Connection, tournament_id: str, now: float
    ) -> list[tuple[int, list[str]]]:
        """The games to seat now (their ``seq`` and entrants), written as ``playing``
        games without a table yet; the tournament started or finished as due."""
        row = records._tournament(conn, tournament_id)
        entrants = records.entrants_of(conn, tournament_id)
        active = [e["player_id"] for e in entrants if not e["withdrawn"]]
        games = records.games_of(conn, tournament_id)
        if row["status"] == "open":
            if len(active) < records.MIN_ENTRANTS:
                self._finish(conn, tournament_id, now)
                return []
            conn.execute(
                update(tournaments_table)
                .where(tournaments_table.c.id == tournament_id)
                .values(status="running")
            )
        orphans = [
            (g["seq"], [g["first_id"], g["second_id"]])
            for g in games
            if g["status"] == "playing" and g["table_id"] is None
        ]
        if orphans:  # planned by a node that stopped before seating them (this one
            return orphans  # seats what it plans before it looks again): seated now
        if row["format"] == "swiss":
            return self._plan_swiss(conn, row, entrants, active, games, now)
        return self._plan_arena(conn, row, entrants, active, games, now)

    def _plan_swiss(
        self,
        conn: Connection,
        row: RowMapping,
        entrants: list[RowMapping],
        active: list[str],
        games: list[RowMapping],
        now: float,
    ) -> list[tuple[int, list[str]]]:
        if any(g["status"] == "playing" for g in games):
            return []
        if row["round"] >= row["rounds"] or len(active) < records.MIN_ENTRANTS:
            self._finish(conn, row["id"], now)
            return []
        lines = records.standings("swiss", entrants, games)
        chosen = swiss_round([e for e in swiss_entrants(lines) if e.id in set(active)])
        number = row["round"] + 1
        seq = len(games)
        planned = []
        for first, second in chosen.pairs:
            self._add_game(conn, row["id"], seq, number, first, second)
            planned.append((seq, [first, second]))
            seq += 1
        if chosen.bye is not None:
            self._add_game(conn, row["id"], seq, number, chosen.bye, None, done=True)
        conn.execute(
            update(tournaments_table)
            .where(tournaments_table.c.id == row["id"])
            .values(round=number)
        )
        return planned

    def _plan_arena(
        self,
        conn: Connection,
        row: RowMapping,
        entrants: list[RowMapping],
        active: list[str],
        games: list[RowMapping],
        now: float,
    ) -> list[tuple[int, list[str]]]:
        playing = [g for g in games if g["status"] == "playing"]
        if now >= row["starts_at"] + 60 * row["minutes"]:
            if not playing:
                self._finish(conn, row["id"], now)
            return []
        busy = {g["first_id"] for g in playing} | {g["second_id"] for g in playing}
        lines = {s.id: s for s in records.standings("arena", entrants, games)}
        done = sorted(
            (g for g in games if g["status"] == "done"), key=lambda g: g["ended_seq"] or 0
        )
        last = last_rivals(Game(g["first_id"], g["second_id"], g["winner_id"]) for g in done)
        # the longest free first: by when their last game ended (never played: first)
        ended_at = {}
        for g in done:
            ended_at[g["first_id"]] = ended_at[g["second_id"]] = g["ended_seq"] or 0
        free = sorted((x for x in active if x not in busy), key=lambda x: (ended_at.get(x, -1), x))
        pairs = arena_pairs(
            [
                ArenaEntrant(x, int(lines[x].points), last.get(x), lines[x].seats)
                for x in free
                if x in lines
            ]
        )
        seq = len(games)
        planned = []
        for first, second in pairs:
            self._add_game(conn, row["id"], seq, 0, first, second)
            planned.append((seq, [first, second]))
            seq += 1
        return planned

    def _add_game(
        self,
        conn: Connection,
        tournament_id: str,
        seq: int,
        number: int,
        first: str,
        second: str | None,
        done: bool = False,
    ) -> None:
        conn.execute(
            insert(tournament_games_table).values(
                tournament_id=tournament_id,
                seq=seq,
                round=number,
                first_id=first,
                second_id=second,
                table_id=None,
                status="done" if done else "playing",
                winner_id=None,
                ended_seq=None,
            )
        )

    def _finish(self, conn: Connection, tournament_id: str, now: float) -> None:
        conn.execute(
            update(tournaments_table)
            .where(tournaments_table.c.id == tournament_id)
            .values(status="finished", finished_at=now, director=None, lease_until=0.0)
        )

    # -------------------------------------------------------------- the tables
    async def _seat(self, tournament_id: str, seq: int, pair: list[str]) -> None:
        """Make the game's table and write its code; a table that cannot be made is a
        draw (nobody is left waiting for it)."""
        engine = self.server.store.engine

        def read() -> tuple[RowMapping, dict[str, list[Player]]]:
            with engine.connect() as conn:
                row = records._tournament(conn, tournament_id)
                entrants = records.entrants_of(conn, tournament_id)
            teams = {
                e["player_id"]: [
                    Player(e["player_id"], e["name"], account=True),
                    *(
                        Player(m["id"], m["name"], account=True)
                        for m in json.loads(e["partners_json"] or "[]")
                    ),
                ]
                for e in entrants
            }
            return row, teams

        row, teams = await asyncio.to_thread(read)
        # the first entrant's team in the even seats, the second's in the odd ones
        players = [
            p for pair_seat in zip(teams[pair[0]], teams[pair[1]], strict=True) for p in pair_seat
        ]
        values: dict[str, Any]
        try:
            table = seat_match(
                self.server,
                players,
                Rules.from_dict(json.loads(row["rules_json"])),
                rated=bool(row["rated"]),
                name=row["name"],
            )
            await self.server.lobby.made(table)
            values = {"table_id": table.id}
        except Exception:  # void (not counted); the tournament waits before pairing again
            log.exception("tournament %s: no table for game %d", tournament_id, seq)
            values = {"status": "void"}
            self.resting[tournament_id] = self.clock() + REST

        def write() -> None:
            with engine.begin() as conn:
                conn.execute(
                    update(tournament_games_table)
                    .where(
                        tournament_games_table.c.tournament_id == tournament_id,
                        tournament_games_table.c.seq == seq,
                    )
                    .values(**values)
                )

        await asyncio.to_thread(write)
