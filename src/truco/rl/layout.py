"""The layout of the observation and information-state tensors, read from the encoder.

:func:`layout` lists the fields of a tensor of :class:`~truco.rl.encoding.Encoder` in
order, each with its offset, size and meaning; :func:`layout_table` writes them as the
Markdown table of docs/research.md (a test checks that the table there is this one).
Seats are relative to the viewer (0 = the viewer, 1 = the next seat in playing order,
...) and teams too (own, rival).

>>> from truco.rules import Rules
>>> fields = layout(Rules(), "observation")
>>> fields[0]
Field(name='seat', offset=0, size=2, meaning="the viewer's seat (one-hot, absolute)")
>>> sum(f.size for f in fields) == Encoder(Rules()).observation_shape[0]
True
"""

from __future__ import annotations

from typing import NamedTuple

from ..rules import Rules
from .encoding import Encoder

#: What each field of the tensors holds (every field of the encoder has an entry).
MEANINGS = {
    "seat": "the viewer's seat (one-hot, absolute)",
    "mano": "the mano (one-hot, relative seat)",
    "score": "own score, then rival score (one-hot each, 0..target)",
    "chicos": "own chicos won, then rival's (one-hot each, 0..2)",
    "hand": "the hand number over the most hands a match can last",
    "pica": "pica-pica: started in this chico; this hand is a pica-pica round",
    "round": "the seats of the round being played (relative; all of them but in pica-pica)",
    "dealt": "the viewer's three cards as dealt (card index 0..39)",
    "held": "the viewer's cards still in hand",
    "log": "the hand's visible actions in order: per slot, the seat (relative, one-hot) "
    "then the action (one-hot over the 61 actions)",
    "played": "the cards played: per baza (3), per relative seat, the card (40)",
    "calls": "calls and answers made by each team (own, rival), per call kind, the first "
    "and second time",
    "heard": "the megaphone words heard from each relative seat (own team only)",
    "showdown": "the tanto each relative seat declared (0..33), or 34: son buenas",
    "pending": "the call pending: kind (envido, truco, flor, ...), called team (own, rival), level",
    "truco": "the truco level (0..3), then who holds the word (nobody, own, rival)",
    "turn": "whose turn it is to play a card (relative)",
    "actors": "the seats that may act now (relative)",
    "in_hand": "the seats still in the hand (not gone to the mazo)",
    "flor": "the seats that sang flor",
    "bazas": "per baza (3): won by own team, rival team, or parda",
    "envido_open": "the envido may still be called",
    "outcome": "the match goes on, own team won, rival team won",
    "dealing": "between hands: a hand is being dealt",
}


class Field(NamedTuple):
    name: str
    offset: int
    size: int
    meaning: str


def layout(rules: Rules, kind: str = "observation", says_per_seat: int = 0) -> list[Field]:
    """The fields of the ``"observation"`` or ``"information_state"`` tensor of a table
    in order (``says_per_seat``: as :class:`~truco.rl.encoding.Encoder`)."""
    enc = Encoder(rules, says_per_seat)
    if kind == "observation":
        offsets, total = enc.observation_offsets, enc.observation_shape[0]
    elif kind == "information_state":
        offsets, total = enc.information_state_offsets, enc.information_state_shape[0]
    else:
        raise ValueError(f"kind must be 'observation' or 'information_state' (got {kind!r})")
    order = sorted(offsets.items(), key=lambda item: item[1])
    ends = [at for _, at in order[1:]] + [total]
    return [
        Field(name, at, end - at, MEANINGS[name])
        for (name, at), end in zip(order, ends, strict=True)
    ]


def layout_table(rules: Rules, kind: str = "observation") -> str:
    """:func:`layout` as a Markdown table (field, columns, size, meaning)."""
    rows = ["| field | columns | size | what it holds |", "| --- | --- | --- | --- |"]
    for f in layout(rules, kind):
        rows.append(f"| `{f.name}` | {f.offset}–{f.offset + f.size - 1} | {f.size} | {f.meaning} |")
    return "\n".join(rows)
