"""What a seat may see (``truco.view.seat_view``): its own cards and nobody else's,
played cards, the envido winner's cards and the flor cards compared once the hand
closes, and only its own team's megaphone words. Spectators see no hand at all.

The property test walks every field of every view (nested dataclasses included) at
every step of random matches on every table. Each field is classified below by what it
may hold; a new field of the view makes the walk fail until it is classified, so a
field added later cannot leak a card unnoticed.
"""

from __future__ import annotations

import random
import re
from dataclasses import fields, is_dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from strategies import TABLES, new_match, play_out, seeds, table_id
from truco.actions import SAY_ACTIONS, action_token, is_say, parse_action
from truco.cards import card_name, has_flor, parse_card, tanto
from truco.events import hand_events
from truco.game import Declaration, Game, IllegalAction, MatchPosition
from truco.rules import Rules
from truco.view import SeatView, seat_view
from util import deal, new_game, play

# What each field of the view objects may hold.
PUBLIC = "public"  # no card: seats, scores, levels, flags, names, tantos
NESTED = "nested"  # dataclasses (or tuples of them), walked field by field
OWN = "own"  # cards of the viewing seat
PAIRS = "pairs"  # (seat, card) played cards
BAZAS = "bazas"  # tuples of (seat, card) played cards
LOG = "log"  # (seat, action): cards played, calls, megaphone words
LEGAL = "legal"  # the viewing seat's legal actions
REVEALED = "revealed"  # (seat, cards) shown when the hand closed

FIELDS: dict[str, dict[str, str]] = {
    "SeatView": {
        "seat": PUBLIC, "rules": NESTED, "position": NESTED, "hand_index": PUBLIC,
        "mano": PUBLIC, "dealer": PUBLIC, "score": PUBLIC, "chicos": PUBLIC, "winner": PUBLIC,
        "hand": OWN, "dealt": OWN, "played": PAIRS, "bazas": BAZAS, "baza_results": PUBLIC,
        "turn": PUBLIC, "actors": PUBLIC, "legal": LEGAL, "pending": NESTED,
        "truco_level": PUBLIC, "truco_owner": PUBLIC, "envido_open": PUBLIC,
        "showdowns": NESTED, "flor_sung": PUBLIC, "in_hand": PUBLIC, "pica_pica": PUBLIC,
        "round_seats": PUBLIC, "log": LOG, "last_hand": NESTED, "notes": PUBLIC,
        "scored": PUBLIC,
    },
    "PublicHand": {
        "index": PUBLIC, "mano": PUBLIC, "why": PUBLIC, "points": PUBLIC, "score": PUBLIC,
        "chicos": PUBLIC, "played": PAIRS, "revealed": REVEALED, "showdowns": NESTED,
        "notes": PUBLIC,
        "actions": LOG,
    },
    "PendingCall": {"kind": PUBLIC, "team": PUBLIC, "level": PUBLIC, "chain": PUBLIC},
    "Declaration": {"seat": PUBLIC, "tanto": PUBLIC},
    "MatchPosition": {
        "rules": NESTED, "first_mano": PUBLIC, "hand_index": PUBLIC, "score": PUBLIC,
        "chicos": PUBLIC, "pica_started": PUBLIC, "pica_now": PUBLIC,
    },
    "Rules": {name: PUBLIC for name in (
        "players", "flor", "target", "chicos", "falta_envido", "con_flor_quiero", "pica_pica",
        "hand_size")},
}  # fmt: skip


_ATOMS = {int, bool, str, float, type(None)}


def _dataclasses_in(value: Any) -> list[Any]:
    kind = type(value)
    if kind in _ATOMS:
        return []
    if is_dataclass(kind):
        return [value]
    if kind is tuple or kind is list:
        return [d for v in value if type(v) not in _ATOMS for d in _dataclasses_in(v)]
    return []


_CHECKED: dict[type, tuple[tuple[str, str], ...]] = {}


def _field_kinds(obj: Any) -> tuple[tuple[str, str], ...]:
    """``(field, kind)`` of a view object's class, once its fields are all classified."""
    known = _CHECKED.get(type(obj))
    if known is not None:
        return known
    name = type(obj).__name__
    kinds = FIELDS.get(name)
    assert kinds is not None, f"view type {name} is not classified in tests/test_views.py"
    present = {f.name for f in fields(obj)}
    assert present == set(kinds), (
        f"fields of {name} changed ({sorted(present ^ set(kinds))}): classify them in "
        "tests/test_views.py FIELDS"
    )
    known = _CHECKED[type(obj)] = tuple(sorted(kinds.items()))
    return known


def walk(obj: Any, out: list[tuple[str, str, Any]], when: str = "now") -> None:
    """Collect ``(when, kind, value)`` for every card-bearing field of a view, ``when``
    being ``"now"`` for the hand in play and ``"last"`` inside ``last_hand``."""
    for field_name, kind in _field_kinds(obj):
        value = getattr(obj, field_name)
        if kind == NESTED:
            inner = "last" if field_name == "last_hand" else when
            for nested in _dataclasses_in(value):
                walk(nested, out, inner)
        elif kind == PUBLIC:
            assert not _dataclasses_in(value), f"{field_name} holds objects: classify it"
        else:
            out.append((when, kind, value))


def check_view(game: Game, seat: int | None) -> SeatView:
    """``seat``'s view holds no card of another seat that was not played (this hand) or
    revealed (the last closed hand); a spectator's holds no unplayed card at all."""
    view = seat_view(game, seat)
    assert view.seat == seat
    n = game.players
    over = game.is_over
    hidden = {c for s in range(n) if s != seat for c in game.cards[s]}
    plays = [(s, a) for s, a in game.actions if a < 40]
    played_by: dict[int, set[int]] = {s: set() for s in range(n)}
    for s, c in plays:
        played_by[s].add(c)
    team = None if seat is None else seat & 1

    found: list[tuple[str, str, Any]] = []
    walk(view, found)
    last = game.history[-1] if game.history else None
    for when, kind, value in found:
        if when == "last":
            assert last is not None
            check_last_hand_field(game, kind, value)
            continue
        if kind == OWN:
            assert seat is not None or value == ()
            assert not set(value) & hidden
            assert value == (
                ()
                if over or seat is None
                else (tuple(game.cards[seat]) if value == view.hand else game.dealt[seat])
            )
        elif kind == PAIRS:
            assert not over or value == ()
            for s, c in value:
                assert c in played_by[s] and c not in hidden - set(game.cards[s])
        elif kind == BAZAS:
            for baza in value:
                for s, c in baza:
                    assert c in played_by[s]
        elif kind == LOG:
            for s, a in value:
                if a < 40:
                    assert a in played_by[s]
                if is_say(a):
                    assert team is not None and s & 1 == team, "a rival's megaphone word leaks"
        elif kind == LEGAL:
            assert seat is not None or value == ()
            assert not {a for a in value if a < 40} & hidden
        else:
            raise AssertionError(f"{kind} outside last_hand")

    check_card_fields(game, seat, view, plays)
    return view


def check_card_fields(
    game: Game, seat: int | None, view: SeatView, plays: list[tuple[int, int]]
) -> None:
    """The exact content of the fields that carry cards."""
    over = game.is_over
    team = None if seat is None else seat & 1
    last = game.history[-1] if game.history else None
    if seat is not None and not over:
        assert view.hand == tuple(game.cards[seat]) and view.dealt == game.dealt[seat]
    else:
        assert view.hand == () and view.dealt == ()
    assert view.legal == (tuple(game.legal_actions(seat)) if seat is not None else ())
    if not over:
        assert view.played == tuple(plays)
        visible = tuple(
            (s, a) for s, a in game.actions if not is_say(a) or (team is not None and s & 1 == team)
        )
        assert view.log == visible
    check_events(game, seat)
    if last is not None:
        assert view.last_hand is not None
        assert view.last_hand.played == tuple((s, a) for s, a in last.actions if a < 40)
        assert view.last_hand.revealed == last.revealed


CARD_WORD = re.compile(r"\b(?:1[0-2]|[1-7])[eboc]\b")


def check_events(game: Game, seat: int | None) -> None:
    """``hand_events`` for a seat: the visible actions, in order, and no card named that
    was not played in that hand; no rival megaphone word."""
    hands: list[Any] = [game.history[-1]] if game.history else []
    if not game.is_over:
        hands.append(game)
    team = None if seat is None else seat & 1
    for source in hands:
        actions = source.actions
        events = hand_events(source, seat)
        visible = [(s, a) for s, a in actions if not is_say(a) or s & 1 == team]
        said = [(e.seat, e.text) for e in events if e.kind == "action"]
        assert said == [(s, f"seat {s}: {action_token(a)}") for s, a in visible]
        played = {card_name(a) for _, a in actions if a < 40}
        for event in events:
            named = set(CARD_WORD.findall(event.text))
            assert named <= played, (event, named - played)
            assert event.after <= len(actions)


def check_last_hand_field(game: Game, kind: str, value: Any) -> None:
    last = game.history[-1]
    if kind == PAIRS:
        for s, c in value:
            assert (s, c) in last.actions and c in last.deal[s]
        return
    if kind == LOG:  # the closed hand's public actions: no megaphone word at all
        assert value == tuple((s, a) for s, a in last.actions if not is_say(a))
        return
    assert kind == REVEALED, kind
    check_revealed(game.rules, last.deal, last.showdowns, last.why, value)


def check_revealed(rules: Rules, dealt: Any, showdowns: Any, why: Any, revealed: Any) -> None:
    """Only the envido winners' tanto cards and the flores of a compared flor are shown,
    and every envido winner's cards are."""
    winners = []
    for words in showdowns:
        declared = [d for d in words if d.tanto is not None]
        assert declared, words
        for d in declared:
            assert d.tanto == tanto(dealt[d.seat]), "a declared tanto must be the true one"
        assert [d.tanto for d in declared] == sorted(d.tanto for d in declared)
        winners.append(declared[-1])
    envido_shown = []
    for seat, cards in revealed:
        assert set(cards) <= set(dealt[seat])
        if len(cards) == 3:
            assert rules.flor and has_flor(dealt[seat]) and any(src == "flor" for _, src, _ in why)
        else:
            envido_shown.append((seat, cards))
    assert len(envido_shown) == len(winners)
    for (seat, cards), winner in zip(envido_shown, winners, strict=True):
        assert seat == winner.seat and 1 <= len(cards) <= 2
        assert tanto(cards) == winner.tanto


# ---------------------------------------------------------------------------- property


@pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_no_view_shows_an_unrevealed_card(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    rng = random.Random(seed)

    def on_step(g: Game) -> None:
        if rng.random() > 0.4 and not g.is_over and g.actions:
            return  # a sample of the steps; always the first and the last
        for seat in range(g.players):
            check_view(g, seat)
        check_view(g, None)

    play_out(game, policy, on_step)


def test_a_new_view_field_must_be_classified() -> None:
    assert set(FIELDS["SeatView"]) == {f.name for f in fields(SeatView)}


# ---------------------------------------------------------------------------- scenarios


def cards_in_view(view: SeatView) -> set[int]:
    """Every card that appears anywhere in the hand in play of a view."""
    found: list[tuple[str, str, Any]] = []
    walk(view, found)
    cards: set[int] = set()
    for when, kind, value in found:
        if when != "now":
            continue
        if kind == OWN:
            cards |= set(value)
        elif kind == PAIRS:
            cards |= {c for _, c in value}
        elif kind == BAZAS:
            cards |= {c for b in value for _, c in b}
        elif kind in (LOG, LEGAL):
            items = value if kind == LEGAL else [a for _, a in value]
            cards |= {a for a in items if a < 40}
    return cards


def c(text: str) -> int:
    return parse_card(text)


def test_a_seat_sees_its_cards_and_no_other() -> None:
    game = new_game("1e 7o 4c", "3b 2c 12o")
    mine, theirs = set(game.dealt[0]), set(game.dealt[1])
    view = seat_view(game, 0)
    assert set(view.hand) == mine and set(view.dealt) == mine
    assert cards_in_view(view) == mine
    assert cards_in_view(seat_view(game, 1)) == theirs
    play(game, "0 play 4c")
    view = seat_view(game, 1)
    assert cards_in_view(view) == theirs | {c("4c")}
    assert view.played == ((0, c("4c")),) and view.bazas == (((0, c("4c")),),)
    assert set(seat_view(game, 0).hand) == {c("1e"), c("7o")}


@pytest.mark.parametrize("players", [2, 4, 6])
def test_spectators_see_no_hand(players: int) -> None:
    game = Game(Rules(players=players), seed=players)
    view = seat_view(game, None)
    assert view.hand == () and view.dealt == () and view.legal == ()
    assert cards_in_view(view) == set()
    seat = game.actors()[0]
    card = game.cards[seat][0]
    game.apply(seat, card)
    assert cards_in_view(seat_view(game, None)) == {card}


@pytest.mark.parametrize(
    "hands,speaker,word",
    [
        (("4c 10e 11b", "5c 12o 11e", "7e 6e 1o", "7o 5o 12b"), 2, "say voy"),
        (("4c 10e 11b", "5c 12o 11e", "7e 6e 1o", "7o 5o 12b"), 1, "say no-tengo-nada"),
        (
            ("4c 10e 11b", "5c 12o 11e", "7e 6e 1o", "7o 5o 12b", "1e 2e 3e", "1c 2c 3c"),
            4,
            "say tantos",
        ),
        (
            ("4c 10e 11b", "5c 12o 11e", "7e 6e 1o", "7o 5o 12b", "1e 2e 3e", "1c 2c 3c"),
            3,
            "say cantale",
        ),
    ],
    ids=["2v2-team0", "2v2-team1", "3v3-team0", "3v3-team1"],
)
def test_megaphone_words_reach_only_the_speakers_team(
    hands: tuple[str, ...], speaker: int, word: str
) -> None:
    game = new_game(*hands)
    said = (speaker, parse_action(word))
    play(game, [(speaker, word), (0, "play 4c")])
    for seat in range(game.players):
        log = seat_view(game, seat).log
        assert (0, c("4c")) in log
        assert (said in log) == (seat % 2 == speaker % 2), seat
    assert said not in seat_view(game, None).log
    # and the words stay out of every later view of the rivals, also after the hand
    if game.players == 4:
        play(game, "1 mazo; 2 play 7e; 3 mazo")
    else:
        play(game, "1 mazo; 2 play 7e; 3 mazo; 4 play 1e; 5 mazo")
    assert game.history and said in game.history[-1].actions
    for seat in range(game.players):
        if seat % 2 != speaker % 2:
            assert said not in seat_view(game, seat).log


def pica_game() -> Game:
    position = MatchPosition(Rules(players=6, pica_pica=True), 0, 3, (5, 2), (0, 0), True, True)
    game = Game.at_position(position, manual_deal=True)
    game.deal(deal("4c 10e 11b", "5c 12o 11e", "7e 6e 1o", "7o 5o 12b", "1e 2e 3e", "1c 2c 3c"))
    return game


def test_no_megaphone_in_a_pica_pica_hand() -> None:
    game = pica_game()
    assert game.pica_now
    rng = random.Random(0)
    while game.pica_now and not game.is_over:
        for seat in range(6):
            assert not set(SAY_ACTIONS) & set(game.legal_actions(seat))
            before = seat_view(game, seat)
            with pytest.raises(IllegalAction) as info:
                game.apply(seat, SAY_ACTIONS[rng.randrange(len(SAY_ACTIONS))])
            assert info.value.reason
            assert seat_view(game, seat) == before
        seat = game.actors()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat, megaphone=False)))
    assert game.history[-1].pica_pica
    assert not any(is_say(a) for _, a in game.history[-1].actions)
    # the next hand is a normal one: the megaphone is back
    game.deal(deal("4c 10e 11b", "5c 12o 11e", "7e 6e 1o", "7o 5o 12b", "1e 2e 3e", "1c 2c 3c"))
    assert not game.pica_now and set(SAY_ACTIONS) <= set(game.legal_actions(game.actors()[0]))


def test_no_megaphone_in_pica_pica_hands_reached_in_play() -> None:
    rules = Rules(players=6, pica_pica=True)
    reached = talked = 0
    for seed in range(40):
        game, policy = new_match(rules, seed)
        policy.say_rate = 0.5

        def on_step(g: Game) -> None:
            nonlocal reached
            if g.pica_now and not g.is_over:
                reached += 1
                assert all(not set(SAY_ACTIONS) & set(g.legal_actions(s)) for s in range(6))
                assert not any(is_say(a) for _, a in g.actions)
                for s in range(6):
                    assert not any(is_say(a) for _, a in seat_view(g, s).log)

        play_out(game, policy, on_step)
        assert not any(is_say(a) for h in game.history if h.pica_pica for _, a in h.actions)
        talked += sum(is_say(a) for h in game.history if not h.pica_pica for _, a in h.actions)
    assert reached > 100 and talked > 100  # both kinds of hand were played, with words


def test_envido_winner_cards_are_shown_when_the_hand_closes() -> None:
    # seat 0 (mano) 33 of tanto with 7o 6o; seat 1 has 23 and says "son buenas"
    game = new_game("7o 6o 4c", "1e 2e 12b")
    play(game, "0 envido; 1 quiero")
    mid = seat_view(game, 1)
    assert mid.showdowns == ((Declaration(0, 33), Declaration(1, None)),)
    assert cards_in_view(mid) == {c("1e"), c("2e"), c("12b")}  # nothing shown before the close
    assert mid.last_hand is None
    play(game, "0 play 4c; 1 play 1e; 1 play 2e; 0 mazo")
    for seat in (0, 1, None):
        last = seat_view(game, seat).last_hand
        assert last is not None
        assert last.revealed == ((0, (c("7o"), c("6o"))),)
        assert last.played == ((0, c("4c")), (1, c("1e")), (1, c("2e")))
        assert last.why == ((0, "envido", 2), (1, "truco", 1))
        assert last.showdowns == ((Declaration(0, 33), Declaration(1, None)),)
    # seat 1's unplayed 12b is in nobody's view of the next hand
    for seat in (0, None):
        view = seat_view(game, seat)
        assert view.last_hand is not None
        shown = {x for _, cs in view.last_hand.revealed for x in cs} | {
            x for _, x in view.last_hand.played
        }
        assert c("12b") not in shown


def test_the_envido_winner_and_points_are_in_the_view_at_the_showdown() -> None:
    # the points wait for the close to reach the score, but every seat knows them now
    game = new_game("7o 6o 4c", "1e 2e 12b")
    play(game, "0 envido; 1 quiero")
    for seat in (0, 1, None):
        view = seat_view(game, seat)
        assert view.score == (0, 0)
        assert view.notes == ((2, "envido", (0, 2)),)
        assert view.scored == ((0, "envido", 2),)
    play(game, "0 play 4c; 1 play 1e")
    view = seat_view(game, None)
    assert view.notes[-1] == (4, "baza", (0, 1, 1))  # baza 1 to team 1, by seat 1
    play(game, "1 play 2e; 0 mazo")
    last = seat_view(game, 0).last_hand
    assert last is not None
    assert [kind for _, kind, _ in last.notes] == ["envido", "baza", "round"]
    assert seat_view(game, 0).notes == () and seat_view(game, 0).scored == ()  # a new hand


def test_the_notes_do_not_count_the_other_teams_megaphone_words() -> None:
    # team 1 talks before a baza is settled: no seat learns how many words from the notes
    game = new_game("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b")
    play(game, "1 say voy; 3 say no-tengo-nada; 0 play 4o; 1 play 4c; 2 play 4e; 3 play 4b")
    notes = {seat: seat_view(game, seat).notes for seat in (0, 1, None)}
    assert notes[0] == notes[1] == notes[None] == ((4, "baza", (0, -1, 0)),)
    play(game, "0 play 5o; 1 play 5c; 2 play 5e; 3 play 5b")
    play(game, "0 play 1e; 1 play 6c; 2 play 1b; 3 play 6b")
    last = seat_view(game, 0).last_hand
    assert last is not None and last.notes[0] == (4, "baza", (0, -1, 0))


def test_a_refused_envido_is_scored_in_the_view_before_the_close() -> None:
    game = new_game("7o 6o 4c", "1e 2e 12b")
    play(game, "0 real-envido; 1 no-quiero")
    assert seat_view(game, 1).scored == ((0, "envido", 1),)
    assert seat_view(game, 1).notes == ()  # no showdown: nothing settled by comparison


def test_envido_won_by_the_later_declaration_shows_only_the_winner() -> None:
    # seat 0 declares 23, seat 1 beats it with 33: only seat 1's tanto cards are shown
    game = new_game("1e 2e 12b", "7o 6o 4c")
    play(game, "0 envido; 1 quiero")
    assert game.showdowns[-1] == (Declaration(0, 23), Declaration(1, 33))
    play(game, "0 mazo")
    last = seat_view(game, 0).last_hand
    assert last is not None and last.revealed == ((1, (c("7o"), c("6o"))),)
    assert last.played == ()


def test_envido_winner_in_2v2_shows_one_card_tanto() -> None:
    game = new_game("7c 10e 11b", "5c 12o 11e", "6e 1o 12c", "3o 4b 10c")
    play(game, "0 play 7c; 1 play 5c; 2 play 6e; 3 envido; 0 quiero")
    # declarations from the mano: 0 says 7, the others cannot beat it
    assert game.showdowns[-1][0] == Declaration(0, 7)
    assert [d.tanto for d in game.showdowns[-1]] == [7, None, None, None]
    play(game, "3 mazo; 0 play 10e; 1 mazo")
    for seat in range(4):
        last = seat_view(game, seat).last_hand
        assert last is not None and last.revealed == ((0, (c("7c"),)),)


def test_compared_flores_are_shown_when_the_hand_closes() -> None:
    game = new_game("7e 6e 5e", "1c 2c 3c", flor=True)
    play(game, "0 flor; 1 contraflor; 0 quiero")
    assert cards_in_view(seat_view(game, 1)) == {c("1c"), c("2c"), c("3c")}
    play(game, "0 mazo")
    last = seat_view(game, 1).last_hand
    assert last is not None
    assert last.why == ((0, "flor", 6), (1, "truco", 1))
    assert last.revealed == ((0, (c("7e"), c("6e"), c("5e"))),)
