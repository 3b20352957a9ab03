"""Properties of every random legal match, on every table of the rule book.

Hypothesis draws a seed per example; the seed deals the match and drives a random
policy (see ``strategies.py``) that plays it to the end, sometimes going to the mazo and
sometimes using the megaphone. Each test is parametrized over all tables, so the suite
plays thousands of whole matches and checks, step by step:

- the cards are conserved and every seat is dealt 3 distinct cards;
- scores never decrease within a chico and never pass the target; a chico's closing
  hand shows the score capped at the target, and the next hand starts at 0-0;
- exactly one of "someone may act" and "the match is over" holds, and the seats that may
  act are exactly the seats with a legal action;
- an illegal action raises ``IllegalAction`` with a reason and changes nothing;
- every match's record replays to the same hands (also stopped in the middle of a hand);
- clones are independent and replay the same future;
- ``why`` adds up to ``points``, in the order flor, envido, truco;
- who may act and with what (turn, calls, answers, the pies, the flor obligation), and
  each closed hand's truco, envido, flor and mazo entries, against oracles written from
  docs/rules.md and the public state alone;
- a seed deals the same match twice, and hand ``h`` depends only on ``(seed, h)``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategies import (
    TABLES,
    RandomPolicy,
    deep_state,
    new_match,
    play_out,
    seeds,
    table_id,
)
from truco.actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    NO_QUIERO,
    NUM_ACTIONS,
    QUIERO,
    REAL_ENVIDO,
    SAY_ACTIONS,
    TRUCO,
    TRUCO_CALLS,
    action_token,
    is_say,
)
from truco.cards import STRENGTH, flor_value, has_flor, tanto
from truco.deal import SeededDealer, StreamDealer
from truco.game import Game, HandResult, IllegalAction, MatchPosition, Outcome
from truco.record import game_to_record, load_record, replay
from truco.rules import Rules
from truco.view import seat_view


def examples(n: int) -> settings:
    """Bounded, deadline-free settings: each example is a whole match."""
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


every_table = pytest.mark.parametrize("rules", TABLES, ids=[table_id(r) for r in TABLES])

SOURCES = ("flor", "envido", "truco")


# ---------------------------------------------------------------------------- checks


def check_cards(game: Game) -> None:
    """Each seat's remaining cards + its cards played this hand = its dealt cards; three
    distinct cards per seat, all different, all of the deck."""
    n = game.players
    dealt = game.dealt
    assert len(dealt) == n and all(len(h) == 3 for h in dealt)
    flat = [c for h in dealt for c in h]
    assert len(set(flat)) == 3 * n and all(0 <= c < 40 for c in flat)
    played: list[list[int]] = [[] for _ in range(n)]
    for seat, action in game.actions:
        if action < 40:
            played[seat].append(action)
    for seat in range(n):
        assert sorted(game.cards[seat] + played[seat]) == sorted(dealt[seat]), seat
    for baza in game.bazas:
        for seat, card in baza:
            assert card in played[seat]


def check_actors(game: Game) -> None:
    """Exactly one of "someone may act" and "finished"; the actors are exactly the
    seats with a legal non-megaphone action; megaphone words where docs/rules.md allows."""
    actors = game.actors()
    assert bool(actors) != game.is_over
    assert len(set(actors)) == len(actors)
    assert not game.needs_deal or game.is_over  # an auto-dealer never leaves a hand waiting
    for seat in range(game.players):
        plain = game.legal_actions(seat, megaphone=False)
        full = game.legal_actions(seat)
        assert len(set(full)) == len(full)
        assert not any(is_say(a) for a in plain)
        assert bool(plain) == (seat in actors), (seat, actors, plain)
        says = [a for a in full if a not in plain]
        may_talk = (
            game.players > 2 and not game.pica_now and not game.is_over and game.in_hand[seat]
        )
        assert says == (list(SAY_ACTIONS) if may_talk else [])
        assert [a for a in full if not is_say(a)] == plain
    if game.pica_now and not game.is_over:
        assert not any(is_say(a) for _, a in game.actions)
        a, b = sorted(game.round_seats)
        assert b == a + 3


def _flor_obliged(game: Game, seat: int) -> bool:
    """docs/rules.md: a flor holder who has not sung it (and has not played) must sing it."""
    return (
        game.rules.flor
        and has_flor(game.dealt[seat])
        and not game.flor_sung[seat]
        and len(game.cards[seat]) == 3
    )


def _envido_raises(chain: tuple[str, ...]) -> set[int]:
    """docs/rules.md: envido repeats once, straight after a single envido; real envido comes
    once; falta envido ends the chain."""
    if chain == ("envido",):
        return {ENVIDO, REAL_ENVIDO, FALTA_ENVIDO}
    if chain == ("envido", "envido"):
        return {REAL_ENVIDO, FALTA_ENVIDO}
    if chain[-1] == "real-envido":
        return {FALTA_ENVIDO}
    return set()


def check_turn_rules(game: Game) -> None:
    """Who may do what, from docs/rules.md and the public state (not pica-pica hands, whose
    three rounds share one action list): cards only on one's turn with no call waiting;
    the truco chain; opening the envido (first baza, dealer not played, truco not
    accepted, once a hand, caller not played, pies in teams); answers to each call."""
    if game.is_over or game.pica_now:
        return
    view = seat_view(game, None)
    n = game.players
    actors = game.actors()
    table = game.bazas
    first_baza = len(table) == 1
    played_first = {s for s, _ in table[0]}
    dealer = (game.mano - 1) % n
    no_envido_yet = not any(a in ENVIDO_CALLS or a == FLOR for _, a in game.actions)
    envido_time = first_baza and dealer not in played_first and no_envido_yet
    legal = {s: set(game.legal_actions(s, megaphone=False)) for s in range(n)}
    if view.pending is None:
        assert actors == (view.turn,)
        seat = actors[0]
        acts = legal[seat]
        if _flor_obliged(game, seat):
            assert acts == {FLOR, MAZO}
            return
        assert {a for a in acts if a < 40} == set(game.cards[seat]) and MAZO in acts
        assert not acts & {
            QUIERO,
            NO_QUIERO,
            FLOR,
            CONTRAFLOR,
            CONTRAFLOR_AL_RESTO,
            CON_FLOR_ME_ACHICO,
        }
        level, owner = view.truco_level, view.truco_owner
        if level == 0:
            truco = {TRUCO}
        elif level < 3 and owner == seat & 1:
            truco = {TRUCO + level}
        else:
            truco = set()
        assert acts & set(TRUCO_CALLS) == truco
        order = [(game.mano + k) % n for k in range(n)]
        pie = [s for s in order if game.in_hand[s] and s & 1 == seat & 1][-1]
        may_open = envido_time and level == 0 and seat not in played_first and pie == seat
        assert bool(acts & set(ENVIDO_CALLS)) == may_open, (may_open, acts)
        if may_open:
            assert set(ENVIDO_CALLS) <= acts
        return
    pending = view.pending
    team_seats = [s for s in range(n) if s & 1 == pending.team and game.in_hand[s]]
    if pending.kind == "flor":
        team_seats = [s for s in team_seats if has_flor(game.dealt[s])]
    assert sorted(actors) == team_seats
    for seat in range(n):
        acts = legal[seat]
        assert not any(a < 40 for a in acts), "no card is played while a call waits"
        if seat not in actors:
            continue
        assert MAZO in acts
        if pending.kind in ("truco", "envido") and _flor_obliged(game, seat):
            assert acts == {FLOR, MAZO}
            continue
        if pending.kind == "truco":
            raises = {TRUCO + pending.level} if pending.level < 3 else set()
            primero = set(ENVIDO_CALLS) if pending.level == 1 and envido_time else set()
            assert acts == {QUIERO, NO_QUIERO, MAZO} | raises | primero, (acts, primero)
        elif pending.kind == "envido":
            assert acts == {QUIERO, NO_QUIERO, MAZO} | _envido_raises(pending.chain)
        elif pending.kind == "flor":
            answers = {CON_FLOR_ME_ACHICO, CONTRAFLOR, CONTRAFLOR_AL_RESTO, MAZO}
            assert acts == answers | ({QUIERO} if game.rules.con_flor_quiero else set())
        elif pending.kind == "contraflor":
            assert acts == {QUIERO, NO_QUIERO, CONTRAFLOR_AL_RESTO, MAZO}
        else:
            assert pending.kind == "contraflor-al-resto"
            assert acts == {QUIERO, NO_QUIERO, MAZO}


class PicaWatch:
    """docs/rules.md, pica-pica: the three 1v1 rounds go one after another, starting with the
    pair that holds the hand's mano and going on in seat order; in each pair the seat
    that comes first counting from the hand's mano is the round's mano, and plays first."""

    def __init__(self) -> None:
        self.hand = -1
        self.rounds: list[tuple[int, ...]] = []
        self.starts: list[int] = []  # where each round's actions begin
        self.closed = False

    def __call__(self, game: Game) -> None:
        last = game.history[-1] if game.history else None
        if last is not None and last.index == self.hand and last.pica_pica and not self.closed:
            self.closed = True
            assert len(self.rounds) == 3, self.rounds  # every pair played its round
            bounds = [*self.starts, len(last.actions)]
            trucos = [(t, p) for t, src, p in last.why if src == "truco"]
            for k, seats in enumerate(self.rounds):
                expected = oracle_round(last.actions[bounds[k] : bounds[k + 1]], list(seats))
                if expected is not None:
                    assert trucos[k] == expected, (k, trucos, expected, last.actions)
        if game.is_over or not game.pica_now:
            return
        if game.hand_index != self.hand:
            self.hand, self.rounds, self.starts, self.closed = game.hand_index, [], [], False
            mano = game.mano
            self.expected = []
            for k in range(3):
                a = (mano % 3 + k) % 3
                pair = sorted((a, a + 3), key=lambda s: (s - mano) % 6)
                self.expected.append(tuple(pair))
        seats = tuple(game.round_seats)
        if not self.rounds or self.rounds[-1] != seats:
            self.rounds.append(seats)
            self.starts.append(len(game.actions))
            assert self.rounds == self.expected[: len(self.rounds)], (self.rounds, self.expected)
            assert game.actors() == (seats[0],) or _flor_obliged(game, seats[0])
        assert [s for s in range(6) if game.in_hand[s]] <= sorted(seats)


class ScoreWatch:
    """Follows a match hand by hand: scores, chicos, the why of every closed hand."""

    def __init__(self, game: Game) -> None:
        self.leave = LeaveWatch()
        self.flor = FlorWatch()
        self.rules = game.rules
        self.first_mano = game.first_mano
        self.start = game.score
        self.chicos = game.chicos
        self.seen = 0
        self.pica_from: int | None = None  # first hand of the chico that reached 5
        self.chico_first = 0  # index of the chico's first hand
        assert self.start == (0, 0) and self.chicos == (0, 0)

    def __call__(self, game: Game) -> None:
        target = self.rules.target
        assert all(0 <= x <= target for x in game.score)
        assert game.mano == (self.first_mano + game.hand_index) % game.players
        assert game.dealer_seat == (game.mano - 1) % game.players
        if len(game.history) == self.seen:
            # points are only added when a hand closes
            assert game.score == self.start and game.chicos == self.chicos
            assert game.hand_index == self.seen
            return
        assert len(game.history) == self.seen + 1
        hand = game.history[-1]
        chico_winner = self.check_hand(hand)
        if chico_winner is None or game.is_over:
            assert game.score == hand.score
        else:
            assert game.score == (0, 0)  # the next hand starts the new chico
        needed = self.rules.chicos_to_win
        over = [t for t in (0, 1) if hand.chicos[t] >= needed]
        assert game.is_over == bool(over)
        if over:
            assert game.winner == over[0]
            assert game.outcome == Outcome(over[0], hand.chicos)
        else:
            assert game.outcome is None and game.hand_index == hand.index + 1
        self.seen += 1
        self.start = game.score
        self.chicos = hand.chicos

    def check_hand(self, hand: HandResult) -> int | None:
        rules = self.rules
        assert hand.index == self.seen
        assert hand.mano == (self.first_mano + hand.index) % rules.players
        check_why(hand, rules)
        check_oracles(hand, rules, self.start)
        self.leave.check(hand)
        self.flor.check(hand, left=self.leave.expected is not None)
        # points go on in the order flor, envido, truco; the first team to reach the
        # target takes the chico and the rest is dropped
        score = list(self.start)
        chico_winner = None
        for team, _, points in hand.why:
            score[team] += points
            if score[team] >= rules.target:
                score[team] = rules.target
                chico_winner = team
                break
        assert hand.score == tuple(score), (hand.score, self.start, hand.why)
        chicos = list(self.chicos)
        if chico_winner is not None:
            chicos[chico_winner] += 1
        assert hand.chicos == tuple(chicos)
        self.check_pica(hand)
        if chico_winner is not None:
            self.pica_from = None
            self.chico_first = hand.index + 1
        return chico_winner

    def check_pica(self, hand: HandResult) -> None:
        """docs/rules.md: the hand right after a team first reaches 5 is a pica-pica hand,
        then a normal one, alternating while both teams are under 25."""
        expected = (
            self.rules.pica_pica
            and self.pica_from is not None
            and (hand.index - self.pica_from) % 2 == 1
            and max(self.start) < 25
        )
        assert hand.pica_pica == expected, (hand.index, self.pica_from, self.start)
        if self.pica_from is None and max(hand.score) >= 5:
            self.pica_from = hand.index
        if hand.pica_pica:
            assert not any(is_say(a) for _, a in hand.actions)


def oracle_truco(hand: HandResult, n: int) -> tuple[int, int] | None:
    """The truco entry of a hand nobody left (not pica-pica), worked out from docs/rules.md
    alone: bazas in playing order, pardas, who leads, the accepted or refused level."""
    if hand.pica_pica:
        return None
    return oracle_round(hand.actions, [(hand.mano + k) % n for k in range(n)])


def oracle_round(acts: Any, seats: list[int]) -> tuple[int, int] | None:
    """The truco entry of one round played by ``seats`` (in playing order from the
    round's mano) in which nobody went to the mazo; ``None`` if someone did."""
    if any(a == MAZO for _, a in acts):
        return None
    n = len(seats)
    mano = seats[0]
    level = max((a - TRUCO + 1 for _, a in acts if a in TRUCO_CALLS), default=0)
    seat, last = acts[-1]
    if last == NO_QUIERO:  # only a refused truco ends a round with an answer
        return (1 - (seat & 1), level)
    plays = [(s, a) for s, a in acts if a < 40]
    assert len(plays) % n == 0, "a round nobody left ends with a full baza"
    bazas = [plays[i : i + n] for i in range(0, len(plays), n)]
    leader = mano
    results: list[int] = []
    decided = None
    for baza in bazas:
        assert decided is None, "the third baza is not played once the hand is decided"
        start = seats.index(leader)
        assert [s for s, _ in baza] == seats[start:] + seats[:start], "playing order"
        best = max(STRENGTH[c] for _, c in baza)
        top = [(s, c) for s, c in baza if STRENGTH[c] == best]
        teams = {s & 1 for s, _ in top}
        result = -1 if len(teams) == 2 else top[0][0] & 1
        results.append(result)
        leader = mano if result == -1 else top[0][0]
        if len(results) == 2:
            first, second = results
            if first == -1 and second != -1:
                decided = second
            elif first != -1 and second in (-1, first):
                decided = first
        elif len(results) == 3:
            first, _, third = results
            decided = third if third != -1 else (first if first != -1 else mano & 1)
    assert decided is not None, f"the round closed undecided: {results}"
    return (decided, level + 1)


def oracle_envido(hand: HandResult, rules: Rules, start: tuple[int, int]) -> tuple[int, int] | None:
    """The envido entry of a hand without flor, mazo or pica-pica: the chain's value
    for the best tanto (ties: the earlier from the mano), or the
    refused value for the last caller."""
    acts = hand.actions
    if hand.pica_pica or any(a in (MAZO, FLOR) for _, a in acts):
        return None
    calls = [(s, a) for s, a in acts if a in ENVIDO_CALLS]
    if not calls:
        return None
    chain = [a for _, a in calls]
    worth = [2 if a == ENVIDO else 3 for a in chain]
    if not hand.showdowns:  # refused
        return (calls[-1][0] & 1, 1 if len(chain) == 1 else sum(worth[:-1]))
    n = len(hand.deal)
    order = [(hand.mano + k) % n for k in range(n)]
    best = max(order, key=lambda s: (tanto(hand.deal[s]), -order.index(s)))
    declared = [d for d in hand.showdowns[0] if d.tanto is not None]
    assert declared[-1].seat == best and declared[-1].tanto == tanto(hand.deal[best])
    if chain[-1] == FALTA_ENVIDO:
        return (best & 1, falta_worth(rules, start, best & 1))
    return (best & 1, sum(worth))


def falta_worth(rules: Rules, start: tuple[int, int], winner: int) -> int:
    """An accepted falta envido, by the table's variant (docs/rules.md)."""
    mine, theirs = start[winner], start[1 - winner]
    target = rules.target
    both_malas = target == 30 and max(start) < 15
    if rules.falta_envido == "leader":  # the default: what the leader needs, or the chico
        return target - mine if both_malas else target - max(start)
    if rules.falta_envido == "loser":  # the classic rule book: what the loser of the falta needs
        return target - theirs
    # the third rule book: the chico if the winner leads or the rival is in las malas
    if mine > theirs or (target == 30 and theirs < 15):
        return target - mine
    return target - theirs


class LeaveWatch:
    """Remembers, before each action, what a whole team leaving would owe (docs/rules.md,
    irse al mazo): the call waiting against the leaving team counts as refused, and the
    rival scores the truco value in force."""

    def __init__(self) -> None:
        self.expected: dict[str, list[tuple[int, int]]] | None = None

    def before(self, game: Game, seat: int, action: int) -> None:
        self.expected = None
        if action != MAZO or game.pica_now:
            return
        team = seat & 1
        if any(game.in_hand[s] for s in range(game.players) if s != seat and s & 1 == team):
            return  # a teammate plays on
        view = seat_view(game, None)
        pending = view.pending if view.pending is not None and view.pending.team == team else None
        rival = 1 - team
        truco = view.truco_level + 1
        expected: dict[str, list[tuple[int, int]]] = {}
        if pending is not None and pending.kind == "truco":
            truco = pending.level
        elif pending is not None and pending.kind == "envido":
            worth = [2 if c == "envido" else 3 for c in pending.chain]
            expected["envido"] = [(rival, 1 if len(worth) == 1 else sum(worth[:-1]))]
        elif pending is not None:
            refused = {
                "flor": 3,
                "contraflor": 4 if game.rules.con_flor_quiero else 3,
                "contraflor-al-resto": 6,
            }[pending.kind]
            expected["flor"] = [(rival, refused)]
        expected["truco"] = [(rival, truco)]
        self.expected = expected

    def check(self, hand: HandResult) -> None:
        if self.expected is None:
            return
        for source, entries in self.expected.items():
            got = [(t, p) for t, src, p in hand.why if src == source]
            assert got == entries, (source, got, entries, hand.actions)


def _flor_answer_entry(
    kind: str, action: int, caller: int, best: int, resto: int, cfq: bool
) -> tuple[int, int] | None:
    """The flor entry an answer to a flor call of ``kind`` scores (docs/rules.md "Flor"):
    achico 3; con flor quiero 4; contraflor accepted 6, refused 3 (4 con flor quiero);
    al resto accepted what the leader needs, refused 6."""
    if kind == "flor":
        if action == CON_FLOR_ME_ACHICO:
            return (caller, 3)
        if action == QUIERO:
            assert cfq
            return (best, 4)
        return None
    if kind == "contraflor":
        if action == QUIERO:
            return (best, 6)
        if action == NO_QUIERO:
            return (caller, 4 if cfq else 3)
        return None
    if action == QUIERO:
        return (best, resto)
    if action == NO_QUIERO:
        return (caller, 6)
    return None


class FlorWatch:
    """Works out, action by action, the flor entries of a hand (not pica-pica) from
    docs/rules.md: an uncontested flor 3; achico 3; contraflor accepted 6, refused 3; al resto
    accepted what the leader needs (15 in las malas), refused 6; con flor quiero 4 and a
    refused contraflor 4; flores compared by team totals, ties to the mano's team."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, int]] = []
        self.sung = False
        self.valid = True

    def before(self, game: Game, seat: int, action: int) -> None:
        if not game.actions:  # a new hand
            self.entries, self.sung, self.valid = [], False, not game.pica_now
        if not self.valid or not game.rules.flor:
            return
        view = seat_view(game, None)
        pending = view.pending
        team = seat & 1
        holders = [s for s in range(game.players) if game.in_hand[s] and has_flor(game.dealt[s])]
        if action == FLOR and not self.sung:
            self.sung = True
            if not any(s & 1 != team for s in holders):
                self.entries.append((team, 3))
            return
        if pending is None or pending.kind not in ("flor", "contraflor", "contraflor-al-resto"):
            return
        caller = 1 - pending.team
        if action == MAZO:
            mates = [
                s for s in range(game.players) if s != seat and s & 1 == team and game.in_hand[s]
            ]
            if (
                pending.kind == "flor"
                and mates
                and not any(s in holders for s in mates if s != seat)
            ):
                self.entries.append((caller, 3))  # nobody left to answer: it stands
            return  # a whole team leaving: LeaveWatch
        totals = [0, 0]
        for s in holders:
            totals[s & 1] += flor_value(game.dealt[s])
        best = game.mano & 1 if totals[0] == totals[1] else int(totals[1] > totals[0])
        score = game.score
        resto = (
            15 - max(score)
            if game.rules.target == 30 and max(score) < 15
            else game.rules.target - max(score)
        )
        entry = _flor_answer_entry(
            pending.kind, action, caller, best, resto, game.rules.con_flor_quiero
        )
        if entry is not None:
            self.entries.append(entry)

    def check(self, hand: HandResult, left: bool) -> None:
        if not self.valid:
            return
        got = [(t, p) for t, src, p in hand.why if src == "flor"]
        if left:  # a team that left may add a refused flor call at the end
            assert got[: len(self.entries)] == self.entries, (got, self.entries, hand.actions)
        else:
            assert got == self.entries, (got, self.entries, hand.actions)


def check_oracles(hand: HandResult, rules: Rules, start: tuple[int, int]) -> None:
    truco = oracle_truco(hand, rules.players)
    if truco is not None:
        entries = [(t, p) for t, src, p in hand.why if src == "truco"]
        assert entries == [truco], (hand.why, truco, hand.actions)
    envido = oracle_envido(hand, rules, start)
    if envido is not None:
        entries = [(t, p) for t, src, p in hand.why if src == "envido"]
        assert entries == [envido], (hand.why, envido, hand.actions)


def check_why(hand: HandResult, rules: Rules) -> None:
    """``why`` adds up to ``points``; sources flor, envido, truco in that order; one
    truco entry per round (three rounds in a pica-pica hand)."""
    totals = [0, 0]
    order = []
    for entry in hand.why:
        team, source, points = entry
        assert team in (0, 1) and source in SOURCES, entry
        assert isinstance(points, int) and points > 0, entry
        totals[team] += points
        order.append(SOURCES.index(source))
    assert tuple(totals) == hand.points
    assert order == sorted(order), hand.why
    rounds = 3 if hand.pica_pica else 1
    count = {s: sum(1 for _, src, _ in hand.why if src == s) for s in SOURCES}
    assert count["truco"] == rounds
    assert count["envido"] <= rounds and count["flor"] <= rounds
    if not rules.flor:
        assert count["flor"] == 0


# ---------------------------------------------------------------------------- properties


@every_table
@examples(25)
@given(seed=seeds)
def test_invariants_at_every_step(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    watch = ScoreWatch(game)

    pica = PicaWatch()

    def on_step(g: Game) -> None:
        check_cards(g)
        check_actors(g)
        check_turn_rules(g)
        pica(g)
        watch(g)

    def before(g: Game, seat: int, action: int) -> None:
        watch.leave.before(g, seat, action)
        watch.flor.before(g, seat, action)

    play_out(game, policy, on_step, before=before)
    assert game.is_over and game.actors() == ()
    assert max(game.chicos) == rules.chicos_to_win
    assert len(game.history) == watch.seen


def public_snapshot(game: Game) -> Any:
    n = game.players
    return (
        json.dumps(game_to_record(game)),
        game.actors(),
        [game.legal_actions(s) for s in range(n)],
        [game.legal_actions(s, megaphone=False) for s in range(n)],
        game.score,
        game.chicos,
        game.is_over,
        game.winner,
        game.outcome,
        len(game.history),
        [seat_view(game, s) for s in range(n)],
        seat_view(game, None),
    )


def try_illegal(game: Game, rng: random.Random, tries: int) -> None:
    before = public_snapshot(game)
    state = deep_state(game)
    for _ in range(tries):
        if rng.random() < 0.1:
            seat = rng.choice((-1, game.players, game.players + 3))
            action = rng.randrange(NUM_ACTIONS)
        else:
            seat = rng.randrange(game.players)
            legal = set(game.legal_actions(seat))
            illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
            action = rng.choice(illegal)
        with pytest.raises(IllegalAction) as info:
            game.apply(seat, action)
        error = info.value
        assert isinstance(error, ValueError)
        assert error.reason.strip() and "\n" not in error.reason
        assert error.seat == seat and error.token == action_token(action)
        assert not game.is_legal(seat, action)
    assert deep_state(game) == state
    assert public_snapshot(game) == before


@every_table
@examples(6)
@given(seed=seeds)
def test_illegal_actions_raise_and_change_nothing(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    rng = random.Random(seed ^ 0x5EED)

    def on_step(g: Game) -> None:
        if rng.random() < 0.15:
            try_illegal(g, rng, tries=4)

    play_out(game, policy, on_step)
    try_illegal(game, rng, tries=5)  # after the match, everything is illegal
    for seat in range(game.players):
        assert game.legal_actions(seat) == []


@pytest.mark.parametrize("action", [NUM_ACTIONS, 999])
def test_action_number_out_of_range_is_illegal(action: int) -> None:
    game = Game(seed=1)
    state = deep_state(game)
    with pytest.raises(IllegalAction):
        game.apply(0, action)
    assert deep_state(game) == state


def test_negative_action_number_names_no_card() -> None:
    game = Game(seed=1)
    with pytest.raises(IllegalAction) as info:
        game.apply(0, -1)
    assert "12c" not in str(info.value)


def expected_summaries(game: Game) -> list[dict[str, Any]]:
    """What docs/record-format.md says ``truco replay`` prints for the hands of ``game``."""
    hands: list[dict[str, Any]] = [
        {
            "points": list(h.points),
            "why": [list(w) for w in h.why],
            "score": list(h.score),
            "chicos": list(h.chicos),
            "closed": True,
        }
        for h in game.history
    ]
    if not game.is_over:  # the hand being played: nothing scored yet
        hands.append(
            {
                "points": [0, 0],
                "why": [],
                "score": list(game.score),
                "chicos": list(game.chicos),
                "closed": False,
            }
        )
    return hands


@every_table
@examples(12)
@given(seed=seeds, stop=st.one_of(st.none(), st.integers(min_value=0, max_value=400)))
def test_records_replay_to_the_same_match(rules: Rules, seed: int, stop: int | None) -> None:
    game, policy = new_match(rules, seed)
    play_out(game, policy, stop_after=stop)
    record = game_to_record(game)
    result = replay(load_record(json.dumps(record)))
    assert result.error is None, result.error
    out = json.loads(json.dumps(result.to_json()))
    assert out["hands"] == expected_summaries(game)
    assert out["winner"] == (game.winner if game.is_over else None)
    # the replayed match is the same match: same state, same views for every seat
    replayed = result.game
    assert replayed is not None
    assert game_to_record(replayed)["hands"] == record["hands"]
    assert replayed.actors() == game.actors()
    for seat in [*range(game.players), None]:
        assert seat_view(replayed, seat) == seat_view(game, seat)
    if game.seed is not None:  # a seeded record replays without its deals
        for hand in record["hands"]:
            del hand["deal"]
        assert replay(load_record(json.dumps(record))).to_json() == result.to_json()


@every_table
@examples(8)
@given(seed=seeds, fork=st.integers(min_value=0, max_value=300))
def test_clones_are_independent(rules: Rules, seed: int, fork: int) -> None:
    game, policy = new_match(rules, seed)
    play_out(game, policy, stop_after=fork)
    before = deep_state(game)
    clone = game.clone()
    assert deep_state(clone) == before
    # advancing the clone never changes the original ...
    future = play_out(clone, RandomPolicy(random.Random(seed + 1)))
    assert deep_state(game) == before
    # ... and the original, given the same actions, lives the same future
    for seat, action in future:
        game.apply(seat, action)
    assert deep_state(game) == deep_state(clone)
    assert game_to_record(game) == game_to_record(clone)
    # the other way round: advancing the original never changes an earlier clone
    game2, policy2 = new_match(rules, seed)
    play_out(game2, policy2, stop_after=fork)
    clone2 = game2.clone()
    kept = deep_state(clone2)
    play_out(game2, RandomPolicy(random.Random(seed + 2)))
    assert deep_state(clone2) == kept


def test_a_clone_with_a_stream_dealer_does_not_change_the_originals_deals() -> None:
    def future_deals(advance_clone: bool) -> list[Any]:
        game = Game(Rules(), dealer=StreamDealer(7))
        if advance_clone:
            play_out(game.clone(), RandomPolicy(random.Random(1)))
        play_out(game, RandomPolicy(random.Random(2)))
        return [h.deal for h in game.history]

    assert future_deals(True) == future_deals(False)


@every_table
@examples(5)
@given(seed=seeds)
def test_a_hand_rebuilt_from_its_position_plays_the_same(rules: Rules, seed: int) -> None:
    """``Game.position()`` at the start of a hand holds all the hand depends on besides
    the cards: a game started there with the same deal and actions closes it the same."""
    game, policy = new_match(rules, seed)
    positions: dict[int, MatchPosition] = {}

    def on_step(g: Game) -> None:
        if not g.is_over and not g.actions:
            positions.setdefault(g.hand_index, g.position())

    play_out(game, policy, on_step)
    assert sorted(positions) == [h.index for h in game.history]
    for hand in game.history:
        rebuilt = Game.at_position(positions[hand.index], manual_deal=True)
        assert rebuilt.actors() == () and rebuilt.needs_deal
        rebuilt.deal(hand.deal)
        for seat, action in hand.actions:
            rebuilt.apply(seat, action)
        assert rebuilt.history and rebuilt.history[-1] == hand


@every_table
@examples(5)
@given(seed=seeds)
def test_a_seed_deals_the_same_match(rules: Rules, seed: int) -> None:
    one, policy_one = new_match(rules, seed, dealer="seeded")
    play_out(one, policy_one)
    two, policy_two = new_match(rules, seed, dealer="seeded")
    play_out(two, policy_two)
    assert game_to_record(one) == game_to_record(two)
    assert game_to_record(one)["seed"] == seed
    n = rules.players
    # hand h's deal depends only on (seed, h): not on the play, nor on the mano
    other = Game(rules, first_mano=(one.first_mano + 1) % n, seed=seed)
    play_out(other, RandomPolicy(random.Random(~seed)))
    for h in one.history + other.history:
        assert h.deal == SeededDealer(seed).deal(n, h.index)
    fresh = SeededDealer(seed)
    late = fresh.deal(n, 7)
    assert [fresh.deal(n, h) for h in range(8)][7] == late
    assert len({SeededDealer(seed).deal(n, h) for h in range(8)}) == 8
    assert SeededDealer(seed + 1).deal(n, 0) != SeededDealer(seed).deal(n, 0)
