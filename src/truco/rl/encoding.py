"""What one seat knows, as a string and as fixed-shape tensors.

Everything here is computed from a :class:`~truco.view.SeatView` (plus, while a hand is
being dealt card by card, the seat's own cards dealt so far): the view is built by the
engine so that it holds no other seat's unrevealed card and no rival megaphone word,
hence the encodings cannot leak them either. A :class:`~truco.rl.policy_bot.PolicyBot`
uses the very same functions, so an agent sees at the online table what it saw in
training.

**Scope of the information state.** The current hand (own cards, the seat's visible
log of the hand in order, the tantos declared, the calls pending, bazas, who may act)
plus the match position (score, chicos, hand number, mano, pica-pica). Earlier hands
are summed up by the match position: every hand is dealt from a fresh deck, so they say
nothing about the hidden cards of this one. Within a hand it is perfect recall.

**Information-state tensor** (floats in ``[0, 1]``, seats relative to the viewer:
0 = the viewer, 1 = the next seat in playing order, ...; teams relative: own, rival):
the viewer's seat, the mano, both scores and chicos (one-hot), the hand number, the
pica-pica flags and the seats of the round, the dealt and held cards (40 each), the
visible log as ``max_log`` slots of ``(seat one-hot, action one-hot)``, the tanto each
seat declared (or "son buenas"), the pending call, the truco level and who owns it, the
turn, the seats that may act, the seats in the hand, the flores sung, the baza results,
whether the envido is still open, the outcome and whether a hand is being dealt.

**Observation tensor**: the same without the ordered log; instead the cards played in
each baza by each seat, the calls made by each team (how many times), and the
megaphone words the viewer has heard. Smaller, and what a linear or MLP policy needs.

>>> from truco import Game, Rules
>>> from truco.view import seat_view
>>> enc = Encoder(Rules())
>>> game = Game(Rules(), seed=1)
>>> view = seat_view(game, 0)
>>> enc.information_state_tensor(view).shape == enc.information_state_shape
True
>>> print(enc.information_state_string(view))  # doctest: +ELLIPSIS
seat 0 | hand 0 mano 0 | score 0-0 chicos 0-0 | cards ... | log - | showdown - | pending - | ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np

from ..actions import MEGAPHONE_WORDS, NUM_ACTIONS, SAY_FIRST, action_token
from ..cards import card_name
from ..game import PENDING_NAMES
from ..rules import Rules
from ..view import SeatView

#: Calls and answers counted per team in the observation tensor (envido .. mazo).
_CALLS = tuple(range(40, SAY_FIRST))
_TANTO_SLOTS = 35  # 0..33, then 34 = "son buenas"
_PENDING_INDEX = {name: i for i, name in enumerate(PENDING_NAMES)}
#: Where the tensors are written: a float32 array, or a list of floats (OpenSpiel's).
_Out: TypeAlias = np.ndarray | list[float]


def max_hand_actions(rules: Rules, says_per_seat: int = 0) -> int:
    """An upper bound on the actions of one hand (pica-pica: of its three rounds).

    Per round of ``k`` seats: ``3k`` cards, ``k`` mazos, ``k`` flores and 3 flor answers,
    4 envido calls and their answer, 3 truco calls and 3 answers, so ``5k + 14``; plus
    ``says_per_seat`` megaphone words of every seat.

    >>> max_hand_actions(Rules()), max_hand_actions(Rules(players=6, pica_pica=True))
    (24, 72)
    """
    n = rules.players
    normal = 5 * n + 14
    if rules.pica_pica:
        normal = max(normal, 3 * (5 * 2 + 14))
    return normal + n * says_per_seat


def max_hands(rules: Rules) -> int:
    """An upper bound on the hands of a match: each hand scores at least one point, so a
    chico lasts at most ``2 * target - 1`` hands, and a match at most ``chicos`` chicos."""
    return rules.chicos * (2 * rules.target - 1)


class Encoder:
    """Strings and tensors of seat views for one table.

    ``says_per_seat``: the megaphone words a seat may say per hand (0: none; the
    information state then never holds one and its tensor has no room for them).
    """

    def __init__(self, rules: Rules, says_per_seat: int = 0) -> None:
        self.rules = rules
        self.n = n = rules.players
        self.says_per_seat = says_per_seat
        # the viewer hears its own team's words only
        self.max_log = max_hand_actions(rules, 0) + (n // 2) * says_per_seat
        self.max_hands = max_hands(rules)
        t1 = rules.target + 1
        self._head = [
            ("seat", n), ("mano", n), ("score", 2 * t1), ("chicos", 6), ("hand", 1),
            ("pica", 2), ("round", n), ("dealt", 40), ("held", 40),
        ]  # fmt: skip
        self._tail = [
            ("showdown", n * _TANTO_SLOTS), ("pending", 5 + 2 + 4), ("truco", 4 + 3),
            ("turn", n), ("actors", n), ("in_hand", n), ("flor", n), ("bazas", 9),
            ("envido_open", 1), ("outcome", 3), ("dealing", 1),
        ]  # fmt: skip
        self._slot = n + NUM_ACTIONS
        info = [*self._head, ("log", self.max_log * self._slot), *self._tail]
        words = len(MEGAPHONE_WORDS)
        obs = [
            *self._head,
            ("played", 3 * n * 40), ("calls", 2 * len(_CALLS) * 2), ("heard", n * words),
            *self._tail,
        ]  # fmt: skip
        self.information_state_offsets = _offsets(info)
        self.observation_offsets = _offsets(obs)
        self.information_state_shape = (sum(size for _, size in info),)
        self.observation_shape = (sum(size for _, size in obs),)
        # the hand number's column, as float32 holds it (the lists give the same values)
        self._hand_fraction = tuple(
            float(np.float32(h / self.max_hands)) for h in range(self.max_hands + 1)
        )

    # ------------------------------------------------------------------ strings
    def information_state_string(self, view: SeatView, dealing: Sequence[int] = ()) -> str:
        """The seat's information state in words; two states give the same string
        exactly when the seat has seen the same (within the scope above)."""
        v = view
        log = " ".join(f"{s}:{action_token(a).replace(' ', '_')}" for s, a in v.log) or "-"
        return " | ".join([*self._head_words(v, dealing), f"log {log}", *self._state_words(v)])

    def observation_string(self, view: SeatView, dealing: Sequence[int] = ()) -> str:
        """The seat's current observation in words: like the information state, but the
        bazas on the table instead of the ordered log."""
        v = view
        bazas = " / ".join(" ".join(f"{s}:{card_name(c)}" for s, c in b) for b in v.bazas) or "-"
        calls = (
            " ".join(f"{s}:{action_token(a).replace(' ', '_')}" for s, a in v.log if a >= 40) or "-"
        )
        return " | ".join(
            [
                *self._head_words(v, dealing),
                f"bazas {bazas}",
                f"calls {calls}",
                *self._state_words(v),
            ]
        )

    def _head_words(self, v: SeatView, dealing: Sequence[int]) -> list[str]:
        pos = v.position
        dealt = v.dealt or tuple(dealing)
        cards = " ".join(card_name(c) for c in sorted(dealt)) or "-"
        held = " ".join(card_name(c) for c in sorted(v.hand)) or "-"
        round_seats = _seats(v.round_seats)
        pica = f" pica {int(pos.pica_started)}{int(v.pica_pica)} round {round_seats}"
        return [
            f"seat {v.seat}",
            f"hand {v.hand_index} mano {v.mano}",
            f"score {v.score[0]}-{v.score[1]} chicos {v.chicos[0]}-{v.chicos[1]}"
            + (pica if self.rules.pica_pica else ""),
            f"cards {cards} held {held}",
        ]

    def _state_words(self, v: SeatView) -> list[str]:
        if _between_hands(v):
            return ["dealing" if v.winner is None else f"outcome team {v.winner} won"]
        shows = (
            " ".join(
                f"{d.seat}={'buenas' if d.tanto is None else d.tanto}"
                for sd in v.showdowns
                for d in sd
            )
            or "-"
        )
        if v.pending is None:
            pending = "-"
        else:
            p = v.pending
            pending = f"{p.kind} team {p.team} level {p.level}" + (
                f" [{' '.join(p.chain)}]" if p.chain else ""
            )
        owner = "-" if v.truco_owner is None else v.truco_owner
        turn = "-" if v.turn is None else v.turn
        bazas = "".join("p" if r < 0 else str(r) for r in v.baza_results) or "-"
        return [
            f"showdown {shows}",
            f"pending {pending}",
            f"truco {v.truco_level} owner {owner}",
            f"turn {turn} actors {_seats(v.actors)} in {''.join(str(int(b)) for b in v.in_hand)}",
            f"flor {_seats(v.flor_sung)} bazas {bazas} envido "
            + ("open" if v.envido_open else "closed"),
        ]

    # ------------------------------------------------------------------ tensors
    def information_state_tensor(self, view: SeatView, dealing: Sequence[int] = ()) -> np.ndarray:
        """The information state as a flat float32 vector of :attr:`information_state_shape`."""
        out = np.zeros(self.information_state_shape, dtype=np.float32)
        self._fill_information_state(out, view, dealing)
        return out

    def information_state_list(self, view: SeatView, dealing: Sequence[int] = ()) -> list[float]:
        """``information_state_tensor(view, dealing).tolist()``, written straight into a
        list (what OpenSpiel's ``information_state_tensor()`` returns), faster."""
        out = [0.0] * self.information_state_shape[0]
        self._fill_information_state(out, view, dealing)
        return out

    def observation_tensor(self, view: SeatView, dealing: Sequence[int] = ()) -> np.ndarray:
        """The current observation as a flat float32 vector of :attr:`observation_shape`."""
        out = np.zeros(self.observation_shape, dtype=np.float32)
        self._fill_observation(out, view, dealing)
        return out

    def observation_list(self, view: SeatView, dealing: Sequence[int] = ()) -> list[float]:
        """``observation_tensor(view, dealing).tolist()``, written straight into a list."""
        out = [0.0] * self.observation_shape[0]
        self._fill_observation(out, view, dealing)
        return out

    def _fill_information_state(self, out: _Out, view: SeatView, dealing: Sequence[int]) -> None:
        off = self.information_state_offsets
        self._fill_head(out, off, view, dealing)
        me, n, slot = view.seat or 0, self.n, self._slot
        base = off["log"]
        if len(view.log) > self.max_log:
            raise ValueError(
                f"a hand of {len(view.log)} visible actions exceeds the bound {self.max_log}"
            )
        for i, (seat, action) in enumerate(view.log):
            out[base + i * slot + (seat - me) % n] = 1.0
            out[base + i * slot + n + action] = 1.0
        self._fill_tail(out, off, view)

    def _fill_observation(self, out: _Out, view: SeatView, dealing: Sequence[int]) -> None:
        off = self.observation_offsets
        self._fill_head(out, off, view, dealing)
        me, n = view.seat or 0, self.n
        base = off["played"]
        for b, baza in enumerate(view.bazas[:3]):
            for seat, card in baza:
                out[base + (b * n + (seat - me) % n) * 40 + card] = 1.0
        counts: dict[tuple[int, int], int] = {}
        base_calls, base_heard = off["calls"], off["heard"]
        my_team = me & 1
        for seat, action in view.log:
            if action >= SAY_FIRST:
                out[base_heard + ((seat - me) % n) * len(MEGAPHONE_WORDS) + action - SAY_FIRST] = (
                    1.0
                )
            elif action >= 40:
                key = (int(seat & 1 != my_team), action - 40)
                k = counts[key] = counts.get(key, 0) + 1
                if k <= 2:
                    out[base_calls + (key[0] * len(_CALLS) + key[1]) * 2 + k - 1] = 1.0
        self._fill_tail(out, off, view)

    def _fill_head(
        self, out: _Out, off: dict[str, int], v: SeatView, dealing: Sequence[int]
    ) -> None:
        me, n = v.seat or 0, self.n
        my_team = me & 1
        t1 = self.rules.target + 1
        out[off["seat"] + me] = 1.0
        out[off["mano"] + (v.mano - me) % n] = 1.0
        out[off["score"] + v.score[my_team]] = 1.0
        out[off["score"] + t1 + v.score[1 - my_team]] = 1.0
        out[off["chicos"] + v.chicos[my_team]] = 1.0
        out[off["chicos"] + 3 + v.chicos[1 - my_team]] = 1.0
        out[off["hand"]] = self._hand_fraction[min(v.hand_index, self.max_hands)]
        out[off["pica"]] = float(v.position.pica_started)
        out[off["pica"] + 1] = float(v.pica_pica)
        for s in v.round_seats:
            out[off["round"] + (s - me) % n] = 1.0
        for c in v.dealt or dealing:
            out[off["dealt"] + c] = 1.0
        for c in v.hand:
            out[off["held"] + c] = 1.0

    def _fill_tail(self, out: _Out, off: dict[str, int], v: SeatView) -> None:
        me, n = v.seat or 0, self.n
        my_team = me & 1
        out[off["outcome"] + (0 if v.winner is None else 1 + int(v.winner != my_team))] = 1.0
        if _between_hands(v):
            out[off["dealing"]] = float(v.winner is None)
            return
        for showdown in v.showdowns:
            for d in showdown:
                value = _TANTO_SLOTS - 1 if d.tanto is None else d.tanto
                out[off["showdown"] + ((d.seat - me) % n) * _TANTO_SLOTS + value] = 1.0
        p = v.pending
        if p is not None:
            out[off["pending"] + _PENDING_INDEX[p.kind]] = 1.0
            out[off["pending"] + 5 + int(p.team != my_team)] = 1.0
            out[off["pending"] + 7 + p.level] = 1.0
        out[off["truco"] + v.truco_level] = 1.0
        owner = 0 if v.truco_owner is None else 1 + int(v.truco_owner != my_team)
        out[off["truco"] + 4 + owner] = 1.0
        if v.turn is not None:
            out[off["turn"] + (v.turn - me) % n] = 1.0
        for s in v.actors:
            out[off["actors"] + (s - me) % n] = 1.0
        for s in range(n):
            if v.in_hand[s]:
                out[off["in_hand"] + (s - me) % n] = 1.0
        for s in v.flor_sung:
            out[off["flor"] + (s - me) % n] = 1.0
        for b, r in enumerate(v.baza_results[:3]):
            out[off["bazas"] + 3 * b + (2 if r < 0 else int(r != my_team))] = 1.0
        out[off["envido_open"]] = float(v.envido_open)


def _between_hands(v: SeatView) -> bool:
    """No hand is in play (being dealt, or the match over). Read from the public round
    (every hand in play has its seats), never from the seat's own cards: a view without
    them (a public observer's, a spectator's) still tells a hand in play."""
    return not v.round_seats


def _offsets(layout: list[tuple[str, int]]) -> dict[str, int]:
    offsets, at = {}, 0
    for name, size in layout:
        offsets[name] = at
        at += size
    return offsets


def _seats(seats: Sequence[int]) -> str:
    return ",".join(map(str, seats)) or "-"
