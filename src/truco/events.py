"""The events of a hand, as one seat (or a spectator) may see them.

Built on request from the game's compact log (actions and settlement notes), so the
hot path allocates nothing for them. For logs, servers, the terminal and replays.

>>> from truco import Game
>>> from truco.cards import parse_card as c
>>> game = Game(manual_deal=True)
>>> game.deal(((c("1e"), c("3c"), c("4b")), (c("2o"), c("5c"), c("6e"))))
>>> for seat, token in [(0, "envido"), (1, "quiero"), (0, "play 1e"), (1, "play 2o")]:
...     game.play(seat, token)
>>> for event in hand_events(game, 1):
...     print(event.text)
seat 0: envido
seat 1: quiero
envido: seat 1 wins with 6, 2 points
seat 0: play 1e
seat 1: play 2o
baza 1: seat 0 wins it
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .actions import action_token, is_say
from .game import Declaration, Game, HandResult
from .vocabulary import PARDA


@dataclass(frozen=True, slots=True)
class Event:
    """One line of a hand's story: ``kind`` is ``action``, ``baza``, ``envido``,
    ``flor`` or ``round``; ``after`` counts the hand's actions up to it."""

    after: int
    kind: str
    seat: int | None
    text: str


def hand_events(source: Game | HandResult, seat: int | None = None) -> list[Event]:
    """The events of the current hand of a game (or of a closed hand) that ``seat``
    may see: megaphone words only for the speaker's team, none for spectators."""
    if isinstance(source, Game):
        actions, notes, showdowns = source.actions, source.notes, tuple(source.showdowns)
    else:
        actions, notes, showdowns = list(source.actions), list(source.notes), source.showdowns
    declarations: Iterator[tuple[Declaration, ...]] = iter(showdowns)
    by_index: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
    for after, kind, data in notes:
        by_index.setdefault(after, []).append((kind, data))
    events: list[Event] = []
    for i, (actor, action) in enumerate(actions, start=1):
        if not is_say(action) or (seat is not None and actor & 1 == seat & 1):
            events.append(Event(i, "action", actor, f"seat {actor}: {action_token(action)}"))
        for kind, data in by_index.get(i, ()):
            events.append(_note_event(i, kind, data, declarations))
    return events


def _note_event(
    after: int, kind: str, data: tuple[int, ...], declarations: Iterator[tuple[Declaration, ...]]
) -> Event:
    if kind == "baza":
        number, result, best = data
        text = (
            f"baza {number + 1}: parda"
            if result == PARDA
            else f"baza {number + 1}: seat {best} wins it"
        )
        return Event(after, kind, None if result == PARDA else best, text)
    if kind == "envido":
        best, points = data
        words = next(declarations, ())
        tanto = next((d.tanto for d in words if d.seat == best), None)
        shown = f" with {tanto}" if tanto is not None else ""
        return Event(after, kind, best, f"envido: seat {best} wins{shown}, {points} points")
    if kind == "flor":
        team, points = data
        return Event(after, kind, None, f"flor: team {team} wins the comparison, {points} points")
    team, points = data
    return Event(after, kind, None, f"truco: team {team} takes {points}")
