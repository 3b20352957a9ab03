"""What one seat (or a spectator) is allowed to see.

A :class:`SeatView` is built from the game for one seat and simply does not contain
another seat's unrevealed cards, nor the rival team's megaphone words: bots, clients
and the terminal game get this object, so they cannot peek by mistake.

>>> from truco import Game, Rules
>>> game = Game(Rules(players=4), seed=3)
>>> v = seat_view(game, 1)
>>> len(v.hand), v.seat, v.team
(3, 1, 1)
>>> spectator = seat_view(game, None)
>>> spectator.hand
()
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import action_token, is_say, parse_action
from .cards import card_name, parse_card
from .game import Declaration, Game, HandResult, MatchPosition
from .rules import Rules
from .vocabulary import CallKind, Card, Seat

JSON = dict[str, Any]


class ViewError(ValueError):
    """JSON that is not a seat view (:meth:`SeatView.from_json`)."""


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call waiting for its answer: ``kind`` one of truco, envido, flor, contraflor,
    contraflor-al-resto (:attr:`CallKind.token <truco.vocabulary.CallKind.token>`); ``team``
    the team that must answer; ``level`` the truco level asked (1 truco, 2 retruco, 3 vale
    cuatro; 0 for the other calls); ``chain`` the envido calls so far, as record tokens."""

    kind: str
    team: int
    level: int
    chain: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PublicHand:
    """A closed hand as everyone may see it: the points and the cards shown, and its
    public actions (every call, answer and card; no megaphone word) in order."""

    index: int
    mano: int
    why: tuple[tuple[int, str, int], ...]
    points: tuple[int, int]
    score: tuple[int, int]
    chicos: tuple[int, int]
    played: tuple[tuple[int, int], ...]
    revealed: tuple[tuple[int, tuple[int, ...]], ...]
    showdowns: tuple[tuple[Declaration, ...], ...] = ()
    #: how the hand was settled, step by step (see :attr:`SeatView.notes`)
    notes: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
    actions: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> JSON:
        """The hand as JSON (cards by name); :meth:`from_json` reads it back."""
        return {
            "index": self.index,
            "mano": self.mano,
            "why": [list(w) for w in self.why],
            "points": list(self.points),
            "score": list(self.score),
            "chicos": list(self.chicos),
            "played": _plays_json(self.played),
            "revealed": [[seat, _cards_json(cards)] for seat, cards in self.revealed],
            "showdowns": _showdowns_json(self.showdowns),
            "notes": _notes_json(self.notes),
            "actions": [[seat, action_token(a)] for seat, a in self.actions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PublicHand:
        """The inverse of :meth:`to_json`."""
        return cls(
            index=data["index"],
            mano=data["mano"],
            why=tuple((team, source, points) for team, source, points in data["why"]),
            points=_pair(data["points"]),
            score=_pair(data["score"]),
            chicos=_pair(data["chicos"]),
            played=_plays(data["played"]),
            revealed=tuple((seat, _cards(cards)) for seat, cards in data["revealed"]),
            showdowns=_showdowns(data.get("showdowns", ())),
            notes=_notes(data.get("notes", ())),
            actions=tuple((seat, parse_action(token)) for seat, token in data.get("actions", ())),
        )


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat knows now. ``seat`` is ``None`` for a spectator."""

    seat: int | None
    rules: Rules
    position: MatchPosition
    hand_index: int
    mano: int
    dealer: int
    score: tuple[int, int]
    chicos: tuple[int, int]
    winner: int | None
    hand: tuple[int, ...]
    dealt: tuple[int, ...]
    played: tuple[tuple[int, int], ...]
    bazas: tuple[tuple[tuple[int, int], ...], ...]
    baza_results: tuple[int, ...]
    turn: int | None
    actors: tuple[int, ...]
    legal: tuple[int, ...]
    pending: PendingCall | None
    truco_level: int
    truco_owner: int | None
    envido_open: bool
    """The envido may still be opened in this round (:meth:`Game.why_envido_closed`):
    by a pie on their turn, or as "el envido está primero" against a first truco."""
    showdowns: tuple[tuple[Declaration, ...], ...]
    flor_sung: tuple[int, ...]
    in_hand: tuple[bool, ...]
    pica_pica: bool
    round_seats: tuple[int, ...]
    log: tuple[tuple[int, int], ...]
    last_hand: PublicHand | None
    #: the hand's settlements so far, all public: ``(after, kind, data)`` with kind
    #: ``baza`` (number, result, winning seat), ``envido`` (winning seat, points) or
    #: ``round`` (team, points) (flor only in ``last_hand``); ``after`` counts the hand's
    #: public actions (calls, answers, cards: not the megaphone words)
    notes: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
    #: envido and truco points won in this hand so far, ``(team, source, points)``:
    #: they reach the score when the hand closes (flor points are told then)
    scored: tuple[tuple[int, str, int], ...] = ()

    @property
    def team(self) -> int | None:
        return None if self.seat is None else self.seat & 1

    def log_tokens(self) -> list[tuple[int, str]]:
        """The visible log with actions as record tokens."""
        return [(seat, action_token(a)) for seat, a in self.log]

    def describe(self) -> str:
        """A short text of the view, for logs and debugging."""
        cards = " ".join(card_name(c) for c in self.hand) or "-"
        return (
            f"hand {self.hand_index} mano {self.mano} score {self.score[0]}-{self.score[1]} "
            f"seat {self.seat} cards {cards} turn {self.turn}"
        )

    def to_json(self) -> JSON:
        """The view as JSON: cards by name, actions as record tokens (the online
        table's wire format, see docs/protocol.md). :meth:`from_json` is its exact
        inverse: ``SeatView.from_json(view.to_json()) == view``. It is the one encoder of
        a view: a server encodes each audience's once per version (a seat's, the
        spectators'), and sends what changed as a patch (:func:`state_patch`)."""
        pending, position, last_hand = self.pending, self.position, self.last_hand
        return {
            "seat": self.seat,
            "team": self.team,
            "hand": _cards_json(self.hand),
            "dealt": _cards_json(self.dealt),
            "legal": [action_token(a) for a in self.legal],
            "log": [[seat, action_token(a)] for seat, a in self.log],
            "rules": _rules_json(self.rules),
            "last_hand": None if last_hand is None else last_hand.to_json(),
            "position": {
                "first_mano": position.first_mano,
                "hand_index": position.hand_index,
                "score": list(position.score),
                "chicos": list(position.chicos),
                "pica_started": position.pica_started,
                "pica_now": position.pica_now,
            },
            "hand_index": self.hand_index,
            "mano": self.mano,
            "dealer": self.dealer,
            "score": list(self.score),
            "chicos": list(self.chicos),
            "winner": self.winner,
            "played": _plays_json(self.played),
            "bazas": [_plays_json(baza) for baza in self.bazas],
            "baza_results": list(self.baza_results),
            "turn": self.turn,
            "actors": list(self.actors),
            "pending": None
            if pending is None
            else {
                "kind": pending.kind,
                "team": pending.team,
                "level": pending.level,
                "chain": list(pending.chain),
            },
            "truco_level": self.truco_level,
            "truco_owner": self.truco_owner,
            "envido_open": self.envido_open,
            "showdowns": _showdowns_json(self.showdowns),
            "flor_sung": list(self.flor_sung),
            "in_hand": list(self.in_hand),
            "pica_pica": self.pica_pica,
            "round_seats": list(self.round_seats),
            "notes": _notes_json(self.notes),
            "scored": [list(w) for w in self.scored],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatView:
        """The view that :meth:`to_json` wrote; raise :class:`ViewError` naming what
        is missing or wrong in anything else."""
        try:
            return cls._from_json(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ViewError(f"not a seat view: {type(exc).__name__}: {exc}") from None

    @classmethod
    def _from_json(cls, data: Mapping[str, Any]) -> SeatView:
        rules = Rules.from_dict(data["rules"])
        where = data["position"]
        pending = data["pending"]
        last_hand = data["last_hand"]
        return cls(
            seat=data["seat"],
            rules=rules,
            position=MatchPosition(
                rules,
                where["first_mano"],
                where["hand_index"],
                _pair(where["score"]),
                _pair(where["chicos"]),
                where["pica_started"],
                where["pica_now"],
            ),
            hand_index=data["hand_index"],
            mano=data["mano"],
            dealer=data["dealer"],
            score=_pair(data["score"]),
            chicos=_pair(data["chicos"]),
            winner=data["winner"],
            hand=_cards(data["hand"]),
            dealt=_cards(data["dealt"]),
            played=_plays(data["played"]),
            bazas=tuple(_plays(baza) for baza in data["bazas"]),
            baza_results=tuple(data["baza_results"]),
            turn=data["turn"],
            actors=tuple(data["actors"]),
            legal=tuple(parse_action(token) for token in data["legal"]),
            pending=None
            if pending is None
            else PendingCall(
                pending["kind"], pending["team"], pending["level"], tuple(pending["chain"])
            ),
            truco_level=data["truco_level"],
            truco_owner=data["truco_owner"],
            envido_open=data["envido_open"],
            showdowns=_showdowns(data["showdowns"]),
            flor_sung=tuple(data["flor_sung"]),
            in_hand=tuple(data["in_hand"]),
            pica_pica=data["pica_pica"],
            round_seats=tuple(data["round_seats"]),
            log=tuple((seat, parse_action(token)) for seat, token in data["log"]),
            last_hand=None if last_hand is None else PublicHand.from_json(last_hand),
            notes=_notes(data.get("notes", ())),
            scored=tuple((team, source, points) for team, source, points in data.get("scored", ())),
        )


# ------------------------------------------------------------------ state patches
#: the version of the table's wire format (docs/protocol.md): every frame says it
PROTOCOL_VERSION = 2


def state_patch(before: Mapping[str, Any], after: Mapping[str, Any]) -> JSON:
    """What turns the document ``before`` into ``after`` (both objects of sections, such
    as ``{"table": ..., "view": ..., "you": ...}``), as :func:`apply_patch` takes it: a
    section that is an object both times with the same keys gives ``"section.key": value``
    for each key whose value changed; any other changed section is given whole
    (``"section": value``). Equal documents give ``{}``."""
    changes: JSON = {}
    for name, new in after.items():
        old = before.get(name, _MISSING)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
            for key, value in new.items():
                if old[key] != value:
                    changes[f"{name}.{key}"] = value
        else:
            changes[name] = new
    return changes


def apply_patch(document: Mapping[str, Any], changes: Mapping[str, Any]) -> JSON:
    """``document`` with a :func:`state_patch` applied (a new object; sections that change
    are copied, ``document`` is left as it was)."""
    result = dict(document)
    copied: set[str] = set()
    for path, value in changes.items():
        name, dot, key = path.partition(".")
        if not dot:
            result[name] = value
            copied.add(name)
            continue
        if name not in copied:
            result[name] = dict(result[name])
            copied.add(name)
        result[name][key] = value
    return result


_MISSING = object()


# ------------------------------------------------------------------ JSON pieces
def _notes_json(notes: tuple[tuple[int, str, tuple[int, ...]], ...]) -> list[list[Any]]:
    return [[after, kind, list(data)] for after, kind, data in notes]


def _notes(data: Sequence[Sequence[Any]]) -> tuple[tuple[int, str, tuple[int, ...]], ...]:
    return tuple((after, kind, tuple(values)) for after, kind, values in data)


def _pair(values: Sequence[int]) -> tuple[int, int]:
    first, second = values
    return (first, second)


def _cards_json(cards: Iterable[Card]) -> list[str]:
    return [card_name(c) for c in cards]


def _cards(names: Iterable[str]) -> tuple[Card, ...]:
    return tuple(parse_card(name) for name in names)


def _plays_json(plays: Iterable[tuple[Seat, Card]]) -> list[list[Any]]:
    return [[seat, card_name(card)] for seat, card in plays]


def _plays(plays: Iterable[Sequence[Any]]) -> tuple[tuple[Seat, Card], ...]:
    return tuple((seat, parse_card(card)) for seat, card in plays)


def _showdowns_json(showdowns: Iterable[tuple[Declaration, ...]]) -> list[list[JSON]]:
    return [[{"seat": d.seat, "tanto": d.tanto} for d in words] for words in showdowns]


def _showdowns(data: Iterable[Iterable[Mapping[str, Any]]]) -> tuple[tuple[Declaration, ...], ...]:
    return tuple(tuple(Declaration(d["seat"], d["tanto"]) for d in words) for words in data)


def _visible_log(
    actions: tuple[tuple[int, int], ...] | list[tuple[int, int]], seat: int | None
) -> tuple[tuple[int, int], ...]:
    if seat is None:
        return tuple(a for a in actions if not is_say(a[1]))
    team = seat & 1
    return tuple(a for a in actions if not is_say(a[1]) or a[0] & 1 == team)


def _public_notes(
    actions: Sequence[tuple[int, int]], notes: Iterable[tuple[int, str, tuple[int, ...]]]
) -> tuple[tuple[int, str, tuple[int, ...]], ...]:
    """The notes with ``after`` counting only public actions: counting megaphone words
    would tell a seat how many signals the other team exchanged."""
    public = [0]
    for _, action in actions:
        public.append(public[-1] + (not is_say(action)))
    return tuple((public[after], kind, data) for after, kind, data in notes)


def _rules_json(rules: Rules) -> JSON:
    """``rules.to_dict()``, worked out once per options (a copy each time: it is the
    caller's to change)."""
    known = _RULES_JSON.get(rules)
    if known is None:
        if len(_RULES_JSON) >= 64:
            _RULES_JSON.clear()
        known = _RULES_JSON[rules] = rules.to_dict()
    return dict(known)


_RULES_JSON: dict[Rules, JSON] = {}


def public_hand(result: HandResult) -> PublicHand:
    """The public face of a closed hand (no unplayed card except those revealed); kept
    for the latest hands asked about, as every view of the next hand shows it."""
    known = _PUBLIC_HANDS.get(id(result))  # one read: threads (bots) may ask too
    if known is not None and known[0] is result:
        return known[1]
    face = _public_hand(result)
    if len(_PUBLIC_HANDS) >= _PUBLIC_HANDS_KEPT:
        _PUBLIC_HANDS.clear()
    _PUBLIC_HANDS[id(result)] = (result, face)  # the result kept alive: its id stays its own
    return face


def _public_hand(result: HandResult) -> PublicHand:
    played = tuple((s, a) for s, a in result.actions if a < 40)
    return PublicHand(
        index=result.index,
        mano=result.mano,
        why=result.why,
        points=result.points,
        score=result.score,
        chicos=result.chicos,
        played=played,
        revealed=result.revealed,
        showdowns=result.showdowns,
        notes=_public_notes(result.actions, result.notes),
        actions=_visible_log(result.actions, None),
    )


#: the closed hands :func:`public_hand` was asked about lately, by id, with their faces
#: (both immutable); a server's live tables each ask about their last one over and over
_PUBLIC_HANDS: dict[int, tuple[HandResult, PublicHand]] = {}
_PUBLIC_HANDS_KEPT = 4096


#: the fields of a :class:`SeatView` that depend on the seat; all others are the same for
#: every seat (and spectator) of one moment of the game (:func:`shared_fields`)
OWN_FIELDS = ("seat", "hand", "dealt", "legal", "log")


def shared_fields(game: Game) -> dict[str, Any]:
    """The fields of :func:`seat_view` that every seat shares, as the game is now: build
    them once to make the views of several seats of the same moment."""
    waiting = game.needs_deal or game.winner is not None
    pending = None
    if game.pending and not waiting:
        kind, team, level = game.pending[-1]
        chain = tuple(action_token(c) for c in game.envido_calls) if kind == CallKind.ENVIDO else ()
        pending = PendingCall(kind.token, team, level, chain)
    actions = () if waiting else game.actions
    return {
        "rules": game.rules,
        "position": game.position(),
        "hand_index": game.hand_index,
        "mano": game.mano,
        "dealer": game.dealer_seat,
        "score": game.score,
        "chicos": game.chicos,
        "winner": game.winner,
        "played": tuple((s, a) for s, a in actions if a < 40),
        "bazas": () if waiting else tuple(tuple(b) for b in game.bazas),
        "baza_results": () if waiting else tuple(game.baza_results),
        "turn": None if waiting or game.pending else game.turn,
        "actors": game.actors(),
        "pending": pending,
        "truco_level": 0 if waiting else game.truco_level,
        "truco_owner": None if waiting else game.truco_owner,
        "envido_open": not waiting and game.why_envido_closed() is None,
        "showdowns": () if waiting else tuple(game.showdowns),
        "flor_sung": () if waiting else tuple(s for s in range(game.players) if game.flor_sung[s]),
        "in_hand": (False,) * game.players if waiting else tuple(game.in_hand),
        "pica_pica": game.pica_now,
        "round_seats": () if waiting else game.round_seats,
        "last_hand": public_hand(game.history[-1]) if game.history else None,
        # a compared flor's winner is known at the close (the flores are shown then): no
        # flor in the hand's notes and points before it
        "notes": ()
        if waiting
        else tuple(n for n in _public_notes(game.actions, game.notes) if n[1] != "flor"),
        "scored": () if waiting else tuple(game.why_envido + game.why_truco),
    }


def seat_view(game: Game, seat: int | None, shared: dict[str, Any] | None = None) -> SeatView:
    """The view of ``seat`` (``None``: a spectator, who sees no hand). ``shared``: the
    :func:`shared_fields` of the game as it is now, when they are built once for several
    seats (never those of another moment)."""
    if shared is None:
        shared = shared_fields(game)
    waiting = game.needs_deal or game.winner is not None
    own = seat is not None and not waiting
    return SeatView(
        seat=seat,
        hand=tuple(game.cards[seat]) if own and seat is not None else (),
        dealt=tuple(game.dealt[seat]) if own and seat is not None else (),
        legal=tuple(game.legal_actions(seat)) if seat is not None else (),
        log=_visible_log(() if waiting else game.actions, seat),
        **shared,
    )
