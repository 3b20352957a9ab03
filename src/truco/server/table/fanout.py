"""What each connection of a table is sent: ``state`` frames with the events its seat
may see and its seat's view.

A :class:`Round` builds the frames of one moment of the table. What connections share
is computed and encoded once: the table summary, each event (see
:class:`~.events.TableEvent`), the event list of each audience, and the part of the views
that every seat sees alike (:func:`truco.view.shared_fields`); each seat's own part of its
view is built only when a connection of that seat gets a frame. A frame is those pieces
joined, plus the few bytes that name the connection (``you``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ...cards import card_name
from ...game import Game
from ...rules import Rules
from ...view import PublicHand, game_moment_json, own_json, public_hand
from ..players import Player
from .clients import Peer
from .events import EventLog, TableEvent, sees

#: the encoded closed hands and rules of the live tables (public: the same for every seat)
_HANDS: dict[int, tuple[Any, bytes]] = {}
_RULES: dict[int, tuple[Any, bytes]] = {}
_KEPT = 4096


def _encoded_once(
    cache: dict[int, tuple[Any, bytes]], value: Any, data: Callable[[], Any]
) -> bytes:
    """``value``'s JSON, encoded once: found by identity (hashing it each round would cost
    more than encoding it); the value is kept alive with its bytes, so its id stays its own."""
    known = cache.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    if len(cache) >= _KEPT:
        cache.clear()
    encoded = orjson.dumps(data())
    cache[id(value)] = (value, encoded)
    return encoded


def _hand_json(hand: PublicHand | None) -> bytes:
    """A closed hand's JSON: every view of the next hand shows it."""
    return b"null" if hand is None else _encoded_once(_HANDS, hand, hand.to_json)


def _rules_json(rules: Rules) -> bytes:
    """A table's rules' JSON."""
    return _encoded_once(_RULES, rules, rules.to_dict)


#: the ``you`` part of frames: (seat, id of the player, committed card) -> (player, JSON)
_YOU: dict[tuple[int | None, int, int | None], tuple[Player | None, bytes]] = {}


def _you_json(seat: int | None, player: Player | None, committed: int | None) -> bytes:
    """Who a frame is for, as JSON: the same bytes for every frame of one connection
    while its committed card is the same (found by the player's identity, as
    :func:`_encoded_once` finds values)."""
    key = (seat, id(player), committed)
    known = _YOU.get(key)
    if known is not None and known[0] is player:
        return known[1]
    if len(_YOU) >= _KEPT:
        _YOU.clear()
    you = orjson.dumps(
        {
            "seat": seat,
            "player": None if player is None else {"id": player.id, "name": player.name},
            "committed": None if committed is None else card_name(committed),
        }
    )
    _YOU[key] = (player, you)
    return you


class Round:
    """The frames of the table at one version."""

    def __init__(
        self,
        log: EventLog,
        summary: dict[str, Any],
        game: Game | None,
        committed: dict[int, int],
        story: Callable[[], dict[str, Any] | None],
    ) -> None:
        self.log = log
        self.version = log.version
        self._summary = orjson.dumps(summary)
        self._game = game  # as it is at this version (the actor changes it only after)
        self._committed = committed
        self._story_of = story
        self._story: bytes | None = None
        self._views: dict[int | None, bytes] = {}
        self._shared_json = b""  # their JSON, without the braces
        self._events: dict[tuple[int | None, int], bytes] = {}
        #: since -> the events after it, and their list if every seat sees all of them
        self._after: dict[int, tuple[list[TableEvent], bytes | None]] = {}

    def _view(self, seat: int | None) -> bytes:
        """The view of ``seat`` as JSON (the seat None is a spectator's; ``null`` before the
        match starts): its own fields, then the shared ones, encoded once per round."""
        view = self._views.get(seat)
        if view is None:
            game = self._game
            if game is None:
                view = b"null"
            else:
                if not self._shared_json:
                    last = public_hand(game.history[-1]) if game.history else None
                    self._shared_json = b"".join(
                        (
                            b'"rules":',
                            _rules_json(game.rules),
                            b',"last_hand":',
                            _hand_json(last),
                            b",",
                            orjson.dumps(game_moment_json(game))[1:-1],
                        )
                    )
                # the seat's own fields, then the shared ones: the order of SeatView.to_json
                view = orjson.dumps(own_json(game, seat))[:-1] + b"," + self._shared_json + b"}"
            self._views[seat] = view
        return view

    def _last_story(self) -> bytes:
        if self._story is None:
            self._story = orjson.dumps(self._story_of())
        return self._story

    def _events_since(self, seat: int | None, since: int) -> bytes:
        """The events after ``since`` that ``seat`` may see, as a JSON list ("" if none):
        the same bytes for every seat when all of them are for everyone (the usual case)."""
        after = self._after.get(since)
        if after is None:
            newer = self.log.after(since)
            listed = None
            if all(e.audience[0] == "all" for e in newer):
                listed = b"[" + b",".join([e.json() for e in newer]) + b"]" if newer else b""
            after = self._after[since] = (newer, listed)
        newer, everyone = after
        if everyone is not None:
            return everyone
        key = (seat, since)
        events = self._events.get(key)
        if events is None:
            bodies = [e.json() for e in newer if sees(seat, e.audience)]
            events = self._events[key] = b"[" + b",".join(bodies) + b"]" if bodies else b""
        return events

    def frame(
        self, peer: Peer, seat: int | None, since: int | None, *, answer: bool = False
    ) -> str | None:
        """The ``state`` frame for ``peer`` sitting in ``seat``: the full state (``since``
        None, or older than the log holds), else the events after ``since``. None when it
        may see nothing new, unless the frame ``answer``s a request (a sync, a join)."""
        frame = self.frame_bytes(peer, seat, since, answer=answer)
        return None if frame is None else frame.decode()

    def frame_bytes(
        self, peer: Peer, seat: int | None, since: int | None, *, answer: bool = False
    ) -> bytes | None:
        """:meth:`frame` as the UTF-8 it is made of (a socket writes it as it is: decoding
        then encoding again a frame that is not ASCII, and the summary's description
        never is, cost more than the rest of the frame)."""
        if since is None or not self.log.holds_after(since):
            events, full = b"[]", b"true"
        else:
            events, full = self._events_since(seat, since), b"false"
            if not events:
                if not answer:
                    return None
                events = b"[]"
        player = peer.player
        committed = self._committed.get(seat) if seat is not None else None
        you = _you_json(seat, player, committed)
        return b"".join(
            (
                b'{"type":"state","v":%d,"full":%s,"events":' % (self.version, full),
                events,
                b',"table":',
                self._summary,
                b',"view":',
                self._view(seat),
                b',"you":',
                you,
                # a page that comes in late reads the last hand's story here
                b',"story":' + self._last_story() if full == b"true" else b"",
                b"}",
            )
        )
