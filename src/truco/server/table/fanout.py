"""What each connection of a table is sent: a ``state`` frame (the whole table as its seat
may see it) when it joins or asks again, then one ``patch`` frame per round with what
changed for its audience.

An *audience* is a seat, or the spectators (``None``): every connection of one audience
is sent the same thing. Its *document* at a version is ``{"table": the summary, "view": the
seat's view (SeatView.to_json, the one encoder of a view), "you": {"seat", "committed"}}``.
:class:`Fanout` keeps, for each audience, the document last sent to it and that frame's
version; a :class:`Round` builds each audience's document at the new version once, and its
patch (:func:`truco.view.state_patch`, with the events the audience may see) once, for
every connection that holds the previous one. A connection that holds anything else (it
just sat down, it missed a frame) gets the whole state. Every frame carries the protocol
version (:data:`truco.view.PROTOCOL_VERSION`); docs/protocol.md describes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...cards import card_name
from ...game import Game
from ...view import PROTOCOL_VERSION, seat_view, shared_fields, state_patch
from .clients import Peer
from .events import EventLog, TableEvent, sees

JSON = dict[str, Any]


class Fanout:
    """What a table's audiences and connections were last sent (the table's, kept across
    rounds)."""

    def __init__(self) -> None:
        #: audience -> (the version of the last frame it was sent, its document then)
        self.audiences: dict[int | None, tuple[int, JSON]] = {}
        #: connection -> (the version of the last frame it was sent, its audience then)
        self.sent: dict[Peer, tuple[int, int | None]] = {}

    def forget(self, peer: Peer) -> None:
        """``peer`` left: nothing of it is kept."""
        self.sent.pop(peer, None)
        if not self.sent:
            self.audiences.clear()


class Round:
    """The frames of the table at one version."""

    def __init__(
        self,
        fanout: Fanout,
        log: EventLog,
        summary: JSON,
        game: Game | None,
        committed: dict[int, int],
        story: Callable[[], JSON | None],
    ) -> None:
        self.fanout = fanout
        self.log = log
        self.version = log.version
        self._summary = summary
        self._game = game  # as it is at this version (the actor changes it only after)
        self._committed = committed
        self._story = story
        self._shared: JSON | None = None
        self._before = dict(fanout.audiences)  # each audience's document before this round
        self._documents: dict[int | None, JSON] = {}
        self._patches: dict[tuple[int | None, int], str | None] = {}
        #: since -> the events after it, and their JSON if every seat sees all of them
        self._after: dict[int, tuple[list[TableEvent], list[Any] | None]] = {}

    def document(self, seat: int | None) -> JSON:
        """What the audience ``seat`` may see of the table at this version (built once)."""
        document = self._documents.get(seat)
        if document is None:
            game = self._game
            view = None
            if game is not None:
                if self._shared is None:
                    self._shared = shared_fields(game)
                view = seat_view(game, seat, self._shared).to_json()
            committed = self._committed.get(seat) if seat is not None else None
            you = {"seat": seat, "committed": None if committed is None else card_name(committed)}
            document = {"table": self._summary, "view": view, "you": you}
            self._documents[seat] = document
        return document

    def _events_since(self, seat: int | None, since: int) -> list[Any]:
        """The events after ``since`` that ``seat`` may see, as JSON."""
        after = self._after.get(since)
        if after is None:
            newer = self.log.after(since)
            everyone = None
            if all(e.audience[0] == "all" for e in newer):
                everyone = [e.body for e in newer]
            after = self._after[since] = (newer, everyone)
        newer, everyone = after
        if everyone is not None:
            return everyone
        return [e.body for e in newer if sees(seat, e.audience)]

    def frame(
        self, peer: Peer, seat: int | None, since: int | None, *, answer: bool = False
    ) -> str | None:
        """The frame for ``peer`` sitting in ``seat``, which was sent the events up to
        ``since``: a patch if it holds its audience's last document, else the whole state
        (``full`` when ``since`` is None or older than the log holds: its events start
        over). None when it may see nothing new, unless the frame ``answer``s a request
        (a sync, a join: always the whole state)."""
        full = since is None or not self.log.holds_after(since)
        events = [] if full or since is None else self._events_since(seat, since)
        if not (full or events or answer):
            return None
        held = self.fanout.sent.get(peer)
        before = self._before.get(seat)
        patching = not (answer or full or since is None or before is None)
        if patching and before is not None and since is not None and held == (before[0], seat):
            text = self._patch(seat, since, before)
            self._sent(peer, seat)
            return text
        document = self.document(seat)
        player = peer.player
        you = {
            **document["you"],
            "player": None if player is None else {"id": player.id, "name": player.name},
        }
        self._sent(peer, seat)
        return orjson.dumps(
            {
                "type": "state",
                "protocol": PROTOCOL_VERSION,
                "v": self.version,
                "full": full,
                "events": events,
                **document,
                "you": you,
                # a page that comes in late reads the last hand's story here
                "story": self._story(),
            }
        ).decode()

    def _patch(self, seat: int | None, since: int, before: tuple[int, JSON]) -> str:
        """The patch of the audience ``seat`` from its last document (encoded once)."""
        key = (seat, since)
        text = self._patches.get(key)
        if text is None:
            text = self._patches[key] = orjson.dumps(
                {
                    "type": "patch",
                    "protocol": PROTOCOL_VERSION,
                    "v": self.version,
                    "base": before[0],
                    "events": self._events_since(seat, since),
                    "set": state_patch(before[1], self.document(seat)),
                }
            ).decode()
        return text

    def _sent(self, peer: Peer, seat: int | None) -> None:
        self.fanout.sent[peer] = (self.version, seat)
        self.fanout.audiences[seat] = (self.version, self.document(seat))
