"""The rule-based bot: a sensible beginner.

It sings its flor, plays envido by tanto thresholds, calls and answers truco by the
strength of its cards and the bazas won, plays the cheapest card that wins the baza
(the lowest when nothing wins or its partner already wins), and in team games answers
its partner's megaphone words and sends its own (each word once a hand).

Its ``table`` level (``simple:table``) judges a truco late in a hand by the cards on the
table (:func:`~.judgement.table_power`) instead of the first baza's rough score, which
counts a won baza as strength whatever is left to take another: the base of the
exploitability benchmark's stronger learner, not a level offered to players.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    ENVIDO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    MEGAPHONE_WORDS,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    SAY_FIRST,
    TRUCO,
    TRUCO_CALLS,
    VALE_CUATRO,
    is_say,
)
from ..cards import STRENGTH, flor_value, tanto
from ..rules import Rules
from ..view import SeatView
from .base import Bot
from .judgement import GOOD, VERY_GOOD, follow, highest, lowest, view_power

SAY = {word: SAY_FIRST + i for i, word in enumerate(MEGAPHONE_WORDS)}
_TRUCO_CALLS = (TRUCO, TRUCO + 1, VALE_CUATRO)


class CallReader:
    """How often the rivals open envido and truco, hand by hand, from the seat's views
    (only the public log): the beginner's "este canta todo".

    >>> CallReader().rates()
    (0.2, 0.2)
    """

    #: the opening rates of a sensible rival (about this bot's own), and their weight
    #: in hands
    BASE = (0.2, 0.2)
    PRIOR = 4.0

    def __init__(self) -> None:
        self.hands: dict[int, tuple[bool, bool]] = {}  # hand -> rivals opened (envido, truco)
        self.team = 0

    def observe(self, view: SeatView) -> None:
        """Take in a view of this seat (at every decision)."""
        if view.seat is None:
            return
        if self.hands and max(self.hands) > view.hand_index:
            self.hands = {}  # a new match
        self.team = view.seat & 1
        opened = [False, False]
        for family, calls in enumerate((ENVIDO_CALLS, TRUCO_CALLS)):
            first = next((s for s, a in view.log if a in calls), None)
            opened[family] = first is not None and first & 1 != self.team
        seen = self.hands.get(view.hand_index, (False, False))
        self.hands[view.hand_index] = (seen[0] or opened[0], seen[1] or opened[1])

    def rates(self) -> tuple[float, float]:
        """The rivals' envido and truco opening rates, shrunk towards :data:`BASE`."""
        n, seen = len(self.hands), self.hands.values()
        envido = sum(e for e, _ in seen) + self.PRIOR * self.BASE[0]
        truco = sum(t for _, t in seen) + self.PRIOR * self.BASE[1]
        return (round(envido / (n + self.PRIOR), 3), round(truco / (n + self.PRIOR), 3))


class SimpleBot(Bot):
    """Rule-based: thresholds on tanto and hand strength, cheapest winning card."""

    name = "simple"

    def __init__(self, level: str = "default", seed: int | None = None) -> None:
        super().__init__(level, seed)
        self.reader = CallReader()
        self.reads_table = level == "table"

    def _power(self, view: SeatView, team: int) -> float:
        """The hand's strength for a truco: the rough score, or (level ``table``) once a
        card is down the chance of taking the bazas left."""
        return view_power(view, team, self.reads_table)

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        self.reader.observe(view)
        acts = [a for a in legal if not is_say(a)]
        if len(acts) == 1 and len(acts) == len(legal):
            return acts[0]
        if FLOR in acts:
            return FLOR
        if (
            view.pending is not None
            and view.seat is not None
            and view.pending.team == view.seat & 1
        ):
            return self._answer(view, acts)
        word = self._word_to_send(view, legal)
        if word is not None:
            return word
        return self._turn(view, acts)

    # -- answers to calls
    def _answer(self, view: SeatView, acts: list[int]) -> int:
        pending = view.pending
        assert pending is not None
        tantos = tanto(view.dealt)
        if pending.kind == "flor":
            mine = flor_value(view.dealt)
            if mine >= 34 and CONTRAFLOR in acts:
                return CONTRAFLOR
            return CON_FLOR_ME_ACHICO if CON_FLOR_ME_ACHICO in acts else acts[0]
        if pending.kind in ("contraflor", "contraflor-al-resto"):
            return QUIERO if flor_value(view.dealt) >= 33 else NO_QUIERO
        if pending.kind == "envido":
            falta = "falta-envido" in pending.chain
            if REAL_ENVIDO in acts and tantos >= 31 and not falta:
                return REAL_ENVIDO
            if falta:  # the match is at stake: no slack
                return QUIERO if tantos >= 29 else NO_QUIERO
            need = 27 + min(len(pending.chain) - 1, 2) - self._partners(view) - self._envido_slack()
            return QUIERO if tantos >= need else NO_QUIERO
        # truco: el envido está primero
        if ENVIDO in acts and tantos >= 27:
            return REAL_ENVIDO if tantos >= 31 else ENVIDO
        power = self._power(view, view.seat & 1 if view.seat is not None else 0)
        raise_call = TRUCO + pending.level
        if pending.level < 3 and raise_call in acts and power >= 0.8:
            return raise_call
        threshold = 0.3 + 0.1 * pending.level - 0.1 * self._partners(view) - self._truco_slack()
        if power >= threshold or self.rng.random() < 0.05:
            return QUIERO
        return NO_QUIERO

    def _envido_slack(self) -> int:
        """Tanto points given away against a rival who sings envido much more than a
        sensible player (a bluffer's calls are not all 28s): up to 3."""
        return min(3, max(0, round(10 * (self.reader.rates()[0] - 0.25))))

    def _truco_slack(self) -> float:
        """Hand power given away against a rival who calls truco at every hand: up to 0.3."""
        return min(0.3, max(0.0, 0.75 * (self.reader.rates()[1] - 0.3)))

    # -- own turn
    def _turn(self, view: SeatView, acts: list[int]) -> int:
        seat = view.seat
        assert seat is not None
        team = seat & 1
        heard = self._partner_words(view)
        cards = [a for a in acts if a < 40]
        envidos = [a for a in acts if a in (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO)]
        if envidos:
            tantos = tanto(view.dealt)
            if tantos >= 31 and REAL_ENVIDO in envidos:
                return REAL_ENVIDO
            if tantos >= 28 or ("tantos" in heard and tantos >= 25):
                return ENVIDO
        truco = next((a for a in acts if a in _TRUCO_CALLS), None)
        if truco is not None:
            power = self._power(view, team)
            level = truco - TRUCO
            if power >= 0.6 + 0.08 * level or ("cantale" in heard and level == 0 and power >= 0.5):
                return truco
            if (
                view.bazas
                and len(view.bazas[-1])
                and self._wins_for_sure(view, cards)
                and level < 2
            ):
                return truco
        if cards:
            table = view.bazas[-1] if view.bazas else ()
            if not table and ("pone" in heard or "voy" in heard):
                return highest(cards)
            if not table and "veni" in heard:
                return lowest(cards)
            return follow(cards, table, team)
        return next((a for a in acts if a != MAZO), acts[0])

    @staticmethod
    def _partners(view: SeatView) -> int:
        """Partners still in the hand: their cards count too when answering for the team."""
        if view.seat is None:
            return 0
        return sum(
            1
            for s, inside in enumerate(view.in_hand)
            if inside and s != view.seat and s & 1 == view.seat & 1
        )

    def _wins_for_sure(self, view: SeatView, cards: list[int]) -> bool:
        """Our team won a baza and this card wins the last one for sure (nobody after)."""
        return (
            view.seat is not None
            and view.seat & 1 in view.baza_results
            and bool(cards)
            and STRENGTH[highest(cards)] >= 13
        )

    # -- megaphone
    def _partner_words(self, view: SeatView) -> set[str]:
        if view.seat is None or view.rules.players == 2:
            return set()
        team = view.seat & 1
        return {
            MEGAPHONE_WORDS[a - SAY_FIRST]
            for s, a in view.log
            if is_say(a) and s != view.seat and s & 1 == team
        }

    def _word_to_send(self, view: SeatView, legal: Sequence[int]) -> int | None:
        """One word for the partners when this seat has something to tell them."""
        if view.seat is None or SAY["tantos"] not in legal or view.turn != view.seat:
            return None
        said = {a for s, a in view.log if s == view.seat and is_say(a)}
        if len(view.hand) < 3:
            return None  # words are for the start of the hand
        tantos = tanto(view.dealt)
        if view.envido_open and tantos >= 28 and SAY["tantos"] not in said:
            return SAY["tantos"]
        strong = sum(1 for c in view.hand if STRENGTH[c] >= GOOD)
        if strong >= 2 and view.truco_level == 0 and SAY["cantale"] not in said:
            return SAY["cantale"]
        if (
            strong == 0
            and SAY["no-tengo-nada"] not in said
            and not any(STRENGTH[c] >= VERY_GOOD for c in view.hand)
        ):
            return SAY["no-tengo-nada"]
        return None
