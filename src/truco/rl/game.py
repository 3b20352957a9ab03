"""Truco in OpenSpiel's shape, without importing OpenSpiel.

:class:`TrucoGame` holds the table and the game parameters; :class:`TrucoState` wraps one
engine :class:`~truco.game.Game` and maps OpenSpiel's calls onto it. The engine decides
every rule: this module only translates.

**Actions** are the engine's fixed enumeration (:mod:`truco.actions`), ``0..60``:
``0..39`` play that card (``truco.cards`` numbering), 40 envido, 41 real envido, 42 falta
envido, 43 flor, 44 contraflor, 45 contraflor al resto, 46 con flor me achico, 47 truco,
48 retruco, 49 vale cuatro, 50 quiero, 51 no quiero, 52 mazo, 53..60 the megaphone words.
``action_to_string`` gives the token of docs/record-format.md.

**Chance nodes** (``current_player() == CHANCE_PLAYER_ID``), each outcome uniform:

- the deal, card by card: a hand opens with ``3 * players`` chance nodes, seat 0's three
  cards first, then seat 1's, and so on; each outcome is a card still in the deck (ids
  ``0..39``);
- with ``first_mano=-1``, the episode opens with one chance node that draws the first mano
  (outcomes: the seats);
- **who answers**: OpenSpiel is turn-based, truco is not quite: any player of a called
  team may answer. When several may, a chance node picks one of them (outcomes: those
  seats), as ``truco arena`` does, so that training and evaluation agree. Partners
  therefore never race; everything else follows the engine.

**Megaphone.** The 8 words are in the enumeration; with ``megaphone=False`` (the default
for RL) they are never legal. With ``megaphone=True`` (2v2, 3v3) the current player may
say up to ``says_per_seat`` words per hand before acting (a word keeps the turn).

**Returns** (team-zero-sum, every player of a team gets the same): ``returns="match"``
+1 / -1 to the teams that won / lost the match, at its end; ``returns="hand"`` every
closed hand rewards each player with its team's points minus the rival's points in
that hand (the ``points`` of ``truco replay``). ``max_hands`` (0 = the whole match)
ends the episode after that many hands: ``max_hands=1, returns="hand"`` is the
one-hand game most papers study.

>>> game = TrucoGame(players=2, max_hands=1, returns="hand")
>>> state = game.new_initial_state()
>>> for card in [0, 1, 2, 10, 11, 12]:  # 1e 2e 3e | 1b 2b 3b
...     state.apply_action(card)
>>> state.current_player(), state.legal_actions()
(0, [0, 1, 2, 40, 41, 42, 47, 52])
>>> state.apply_action(52)  # mazo
>>> state.is_terminal(), state.returns()
(True, [-1.0, 1.0])
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..actions import NUM_ACTIONS, action_token, is_say
from ..cards import DECK
from ..game import Game
from ..record import game_to_record, load_record
from ..rules import Rules
from ..scoring import al_resto, falta_envido, truco_value
from ..view import SeatView, seat_view
from .encoding import Encoder, max_hand_actions, max_hands

CHANCE_PLAYER_ID = -1
TERMINAL_PLAYER_ID = -4  # as pyspiel.PlayerId.TERMINAL

_RULE_PARAMS = (
    "players",
    "flor",
    "target",
    "chicos",
    "falta_envido",
    "con_flor_quiero",
    "pica_pica",
    "hand_size",
)

#: ``first_mano`` value for a mano drawn by the episode's first chance node.
RANDOM_MANO = -1

#: Game parameters and their defaults (the ``Rules`` defaults, plus the RL ones).
DEFAULT_PARAMS: dict[str, Any] = {
    **Rules().to_dict(),
    "hand_size": 3,
    "deck": "",
    "first_mano": 0,
    "returns": "match",
    "max_hands": 0,
    "megaphone": False,
    "says_per_seat": 2,
}


class TrucoGame:
    """A table of truco as an OpenSpiel-style game (see the module doc for the
    parameters). ``TrucoGame(players=4, flor=True)`` or ``TrucoGame({"players": 4})``."""

    short_name = "python_truco_argento"
    long_name = "Truco Argento"

    def __init__(self, params: dict[str, Any] | None = None, **kwargs: Any) -> None:
        merged = {**DEFAULT_PARAMS, **(params or {}), **kwargs}
        unknown = set(merged) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown game parameter(s): {', '.join(sorted(unknown))}")
        self.params = merged
        self.rules = Rules(**{k: merged[k] for k in _RULE_PARAMS})
        if merged["returns"] not in ("match", "hand"):
            raise ValueError(f"returns must be 'match' or 'hand' (got {merged['returns']!r})")
        if not isinstance(merged["max_hands"], int) or merged["max_hands"] < 0:
            raise ValueError("max_hands must be an integer >= 0 (0: the whole match)")
        n = self.rules.players
        if not RANDOM_MANO <= merged["first_mano"] < n:
            raise ValueError(f"first_mano must be a seat from 0 to {n - 1}, or -1 (drawn)")
        self.megaphone = bool(merged["megaphone"]) and n > 2
        self.says_per_seat = int(merged["says_per_seat"]) if self.megaphone else 0
        self.returns_per = merged["returns"]
        self.max_hands = merged["max_hands"]
        self.first_mano = merged["first_mano"]
        #: the cards the chance nodes deal from (``deck``: card names separated by commas,
        #: ``""``: the 40 cards); mini-truco deals from a few
        self.deck = _deck(merged["deck"])
        self.hand_size = self.rules.hand_size
        if len(self.deck) < self.hand_size * n:
            raise ValueError(
                f"a deck of {len(self.deck)} cards cannot deal {self.hand_size} to {n}"
            )
        self.encoder = Encoder(self.rules, self.says_per_seat)

    # -- OpenSpiel's game API
    def new_initial_state(self, first_mano: int | None = None) -> TrucoState:
        """A new episode; ``first_mano`` overrides the game's (``-1``: drawn by chance)."""
        mano = self.first_mano if first_mano is None else first_mano
        if not RANDOM_MANO <= mano < self.rules.players:
            raise ValueError(f"first_mano must be a seat from 0 to {self.rules.players - 1}")
        return TrucoState(self, first_mano=mano)

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def num_players(self) -> int:
        return self.rules.players

    def max_chance_outcomes(self) -> int:
        return 40

    def max_game_length(self) -> int:
        """Player actions in the longest episode (chance nodes not counted)."""
        hands = self.max_hands or max_hands(self.rules)
        return hands * max_hand_actions(self.rules, self.says_per_seat)

    def max_chance_nodes_in_history(self) -> int:
        """The deals, the draw of the first mano, and (2v2, 3v3) who answers: at most
        once per action that is not a card."""
        n = self.rules.players
        per_hand = self.hand_size * n + (max_hand_actions(self.rules) if n > 2 else 0)
        return (self.max_hands or max_hands(self.rules)) * per_hand + int(
            self.first_mano == RANDOM_MANO
        )

    def information_state_tensor_shape(self) -> list[int]:
        return list(self.encoder.information_state_shape)

    def information_state_tensor_size(self) -> int:
        return self.encoder.information_state_shape[0]

    def observation_tensor_shape(self) -> list[int]:
        return list(self.encoder.observation_shape)

    def observation_tensor_size(self) -> int:
        return self.encoder.observation_shape[0]

    def max_hand_points(self) -> int:
        """What one hand can score for a team at most (the rival scoring nothing): the
        envido at its dearest (a falta envido at the worst score), the flor at its
        dearest (6, or al resto), the truco 4. Envido and flor exclude each other at a
        1v1 table (a flor must be sung before the envido settles); a partner's late flor
        can follow a settled envido in 2v2/3v3. A pica-pica hand: three 1v1 rounds.
        1v1 sin flor to 30: 30 + 4 = 34."""
        r = self.rules
        scores = [(a, b) for a in range(r.target) for b in range(r.target)]
        envido = max(falta_envido(w, sc, r.target, r.falta_envido) for w in (0, 1) for sc in scores)
        flor = max(6, *(al_resto(sc, r.target) for sc in scores)) if r.flor else 0
        truco = truco_value(3)
        duel = max(envido, flor) + truco
        team = envido + flor + truco if r.players > 2 and r.flor else duel
        return max(team, 3 * duel) if r.pica_pica else team

    def min_utility(self) -> float:
        return -self.max_utility()

    def max_utility(self) -> float:
        if self.returns_per == "match":
            return 1.0
        return float((self.max_hands or max_hands(self.rules)) * self.max_hand_points())

    def utility_sum(self) -> float:
        return 0.0

    def get_parameters(self) -> dict[str, Any]:
        return dict(self.params)

    def action_to_string(self, action: int, player: int | None = None) -> str:
        return action_to_string(action, player)

    def deserialize_state(self, text: str) -> TrucoState:
        return TrucoState.deserialize(self, text)

    def __str__(self) -> str:
        changed = {k: v for k, v in self.params.items() if DEFAULT_PARAMS[k] != v}
        return f"{self.short_name}({','.join(f'{k}={v}' for k, v in changed.items())})"


def action_to_string(action: int, player: int | None = None) -> str:
    """The record token of a player action; a chance outcome is written ``deal <card>``."""
    if player == CHANCE_PLAYER_ID:
        return "deal " + action_token(action).split()[1]
    return action_token(action)


class TrucoState:
    """One point of an episode: an engine :class:`Game` plus the hand being dealt."""

    __slots__ = (
        "_dealing",
        "_hand_start",
        "_hands_closed",
        "_history",
        "_mano_drawn",
        "_responder",
        "_returns",
        "_rewards",
        "game",
        "game_spec",
    )

    def __init__(
        self, game_spec: TrucoGame, engine: Game | None = None, first_mano: int | None = None
    ) -> None:
        self.game_spec = game_spec
        mano = game_spec.first_mano if first_mano is None else first_mano
        self._mano_drawn = engine is not None or mano != RANDOM_MANO
        self.game = engine or Game(game_spec.rules, first_mano=max(mano, 0), manual_deal=True)
        self._responder: int | None = None  # who answers, once chance has picked
        self._dealing: list[int] = []  # the cards of the hand being dealt, seat by seat
        self._hands_closed = 0
        n = game_spec.rules.players
        self._returns = [0.0] * n
        self._rewards = [0.0] * n
        self._history: list[int] = []
        #: this state just before the first card of the hand in play or being dealt
        #: (what :meth:`resample_from_infostate` deals again from)
        self._hand_start: TrucoState | None = None

    # ------------------------------------------------------------------ who acts
    def is_terminal(self) -> bool:
        g = self.game
        max_hands = self.game_spec.max_hands
        return g.is_over or bool(max_hands and self._hands_closed >= max_hands)

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE_PLAYER_ID

    def is_player_node(self) -> bool:
        return self.current_player() >= 0

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL_PLAYER_ID
        g = self.game
        if g.needs_deal or not self._mano_drawn:
            return CHANCE_PLAYER_ID
        if self._responder is not None:
            return self._responder
        actors = g.actors()
        return actors[0] if len(actors) == 1 else CHANCE_PLAYER_ID

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of a chance node, each with the same probability: the seats
        (who is the first mano; who answers among the partners who may) or the cards
        still in the deck."""
        if not self.is_chance_node():
            return []
        if not self._mano_drawn:
            left = list(range(self.game.n))
        elif not self.game.needs_deal:
            left = list(self.game.actors())
        else:
            left = [c for c in self.game_spec.deck if c not in self._dealing]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def chance_kind(self) -> str | None:
        """``"mano"``, ``"answer"`` or ``"deal"`` at a chance node, else ``None``."""
        if not self.is_chance_node():
            return None
        if not self._mano_drawn:
            return "mano"
        return "deal" if self.game.needs_deal else "answer"

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal actions of ``player`` (default: the current player; chance
        outcomes at a chance node). Empty for anyone else."""
        current = self.current_player()
        if player is None:
            player = current
        if current == CHANCE_PLAYER_ID:
            return [c for c, _ in self.chance_outcomes()] if player == CHANCE_PLAYER_ID else []
        if player != current or current < 0:
            return []
        spec = self.game_spec
        acts = self.game.legal_actions(player, megaphone=spec.megaphone)
        if spec.megaphone:
            said = sum(1 for s, a in self.game.actions if s == player and is_say(a))
            if said >= spec.says_per_seat:
                acts = [a for a in acts if not is_say(a)]
        return sorted(acts)

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        """1 for each legal action of ``player`` over ``num_distinct_actions`` (at a chance
        node, over the 40 cards)."""
        size = 40 if self.is_chance_node() else NUM_ACTIONS
        mask = [0] * size
        for a in self.legal_actions(player):
            mask[a] = 1
        return mask

    # ------------------------------------------------------------------ acting
    def apply_action(self, action: int) -> None:
        """Apply a chance outcome (a card dealt) or the current player's action; an
        action that is not legal raises ``ValueError`` and changes nothing."""
        action = int(action)
        if self.is_terminal():
            raise ValueError("the episode is over")
        g = self.game
        if not self._mano_drawn:
            if not 0 <= action < g.n:
                raise ValueError(f"no seat {action} may be the first mano")
            self.game = Game(self.game_spec.rules, first_mano=action, manual_deal=True)
            self._mano_drawn = True
            self._history.append(action)
            return
        if g.needs_deal:
            if not 0 <= action < 40 or action in self._dealing:
                raise ValueError(f"card {action} is not in the deck")
            if not self._dealing:
                self._hand_start = self.clone()
                self._hand_start._hand_start = None  # one hand back is all it needs
            self._dealing.append(action)
            self._history.append(action)
            k = self.game_spec.hand_size
            if len(self._dealing) == k * g.n:
                cards = self._dealing
                g.deal(tuple(tuple(cards[k * s : k * s + k]) for s in range(g.n)))
                self._dealing = []
            return
        player = self.current_player()
        if player == CHANCE_PLAYER_ID:  # who answers
            if action not in g.actors():
                raise ValueError(f"seat {action} may not answer now")
            self._responder = action
            self._history.append(action)
            return
        if action not in self.legal_actions(player):
            raise ValueError(f"player {player} may not {action_to_string(action)!r} now")
        self._push(player, action)

    def _push(self, player: int, action: int) -> None:
        g = self.game
        before = len(g.history)
        g.push(player, action)
        if not is_say(action):  # a word keeps the turn
            self._responder = None
        self._history.append(action)
        rewards = [0.0] * g.n
        if len(g.history) != before:  # a hand closed
            self._hands_closed += 1
            spec = self.game_spec
            if spec.returns_per == "hand":
                points = g.history[-1].points
                for s in range(g.n):
                    rewards[s] = float(points[s & 1] - points[1 - (s & 1)])
            elif g.is_over:
                for s in range(g.n):
                    rewards[s] = 1.0 if s & 1 == g.winner else -1.0
        self._rewards = rewards
        for s in range(g.n):
            self._returns[s] += rewards[s]

    def step(self, action: int) -> None:
        """Alias of :meth:`apply_action`."""
        self.apply_action(action)

    def rewards(self) -> list[float]:
        """What each player received with the last player action (0 except when it
        closed a hand or the match). Chance nodes pay nothing and leave it as it was, so
        the sum of ``rewards()`` read at every decision node and at the end is the
        return, as OpenSpiel's own tests read it."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        """What each player has received so far in the episode (the final utility at a
        terminal state); team-zero-sum."""
        return list(self._returns)

    def player_return(self, player: int) -> float:
        return self._returns[player]

    def history(self) -> list[int]:
        """Chance outcomes and actions since the start of the episode."""
        return list(self._history)

    # ------------------------------------------------------------------ what a seat knows
    def seat_view(self, player: int) -> SeatView:
        return seat_view(self.game, player)

    def _own_dealing(self, player: int) -> tuple[int, ...]:
        cards = self._dealing
        k = self.game_spec.hand_size
        return tuple(cards[k * player : k * player + k])

    def action_to_string(self, player: int, action: int) -> str:
        """The record token of an action; at a chance node ``deal <card>``, ``mano
        <seat>`` or ``answers <seat>``."""
        if player == CHANCE_PLAYER_ID and self.chance_kind() in ("mano", "answer"):
            return f"{'mano' if self.chance_kind() == 'mano' else 'answers'} {action}"
        return action_to_string(action, player)

    def information_state_string(self, player: int | None = None) -> str:
        player = self._player(player)
        return self.game_spec.encoder.information_state_string(
            self.seat_view(player), self._own_dealing(player)
        )

    def information_state_tensor(self, player: int | None = None) -> np.ndarray:
        player = self._player(player)
        return self.game_spec.encoder.information_state_tensor(
            self.seat_view(player), self._own_dealing(player)
        )

    def observation_string(self, player: int | None = None) -> str:
        player = self._player(player)
        return self.game_spec.encoder.observation_string(
            self.seat_view(player), self._own_dealing(player)
        )

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        player = self._player(player)
        return self.game_spec.encoder.observation_tensor(
            self.seat_view(player), self._own_dealing(player)
        )

    def _player(self, player: int | None) -> int:
        if player is None:
            player = self.current_player()
        if not 0 <= player < self.game_spec.rules.players:
            raise ValueError(f"no player {player} at this table")
        return player

    # ------------------------------------------------------------------ copies
    def clone(self) -> TrucoState:
        new = TrucoState.__new__(TrucoState)
        new.game_spec = self.game_spec
        new.game = self.game.clone()
        new._mano_drawn = self._mano_drawn
        new._responder = self._responder
        new._dealing = self._dealing[:]
        new._hands_closed = self._hands_closed
        new._returns = self._returns[:]
        new._rewards = self._rewards[:]
        new._history = self._history[:]
        new._hand_start = self._hand_start
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> TrucoState:
        """:meth:`clone` (what ``copy.deepcopy`` and OpenSpiel's ``clone()`` use): the
        same episode, its history whole, without copying the game's fixed parts."""
        return self.clone()

    def resample_from_infostate(
        self,
        player: int,
        rng: random.Random | np.random.Generator | Callable[[], float] | int | None = None,
    ) -> TrucoState:
        """A state that ``player`` cannot tell from this one (same information state),
        with every card it has not seen drawn again among the deals consistent with what
        it has seen (:func:`truco.determinize.sample_game`). Earlier hands are kept as
        they were (a fresh deck each: they say nothing of this hand's cards), so
        :meth:`history` is whole: the episode's start, then this hand on its new cards,
        a path that replays from :meth:`TrucoGame.new_initial_state`. ``rng``: a
        ``random.Random``, a numpy ``Generator``, OpenSpiel's ``probability_sampler`` (a
        callable returning floats in [0, 1)), a seed, or ``None``."""
        r = _as_random(rng)
        start = self._hand_start
        between_hands = self.game.needs_deal and not self._dealing
        if self.is_terminal() or start is None or between_hands:
            return self.clone()  # nothing of a hand dealt: nothing hidden
        new = start.clone()
        n = self.game.n
        if self._dealing:  # in the middle of a deal: the seat's own cards kept
            own = set(self._own_dealing(player))
            pool = [c for c in self.game_spec.deck if c not in own]
            r.shuffle(pool)
            for i, c in enumerate(self._dealing):
                k = self.game_spec.hand_size
                new.apply_action(c if k * player <= i < k * player + k else pool.pop())
            return new
        from ..determinize import sample_game

        world = sample_game(self.seat_view(player), r)
        for s in range(n):
            for c in world.dealt[s]:
                new.apply_action(c)
        for seat, action in world.actions:  # what the seat saw, replayed on the new cards
            if new.chance_kind() == "answer" and seat in new.game.actors():
                new.apply_action(seat)
            if new.current_player() == seat:
                new.apply_action(action)
            else:  # a word of a seat that keeps the turn
                new._push(seat, action)
        if self._responder is not None and new.chance_kind() == "answer":
            new.apply_action(self._responder)  # who answers is public once picked
        return new

    # ------------------------------------------------------------------ records
    def to_record(self, headers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The episode so far as a ``truco-record/1`` object (docs/record-format.md); a hand still
        being dealt is kept under ``headers["rl_dealing"]``, the partner picked to answer
        (before answering) under ``headers["rl_answers"]``."""
        all_headers = dict(headers or {})
        if self._dealing:
            all_headers["rl_dealing"] = [action_token(c).split()[1] for c in self._dealing]
        if self._responder is not None:
            all_headers["rl_answers"] = self._responder
        return game_to_record(self.game, all_headers or None)

    def serialize(self) -> str:
        """The record (JSON) of the episode; :meth:`TrucoGame.deserialize_state` reads it."""
        return json.dumps(self.to_record(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def deserialize(cls, game_spec: TrucoGame, text: str) -> TrucoState:
        """Replay a record through a fresh state: deals as chance outcomes, then the
        actions (with :meth:`apply_action`, so every one is checked)."""
        from ..cards import parse_card

        record = load_record(text)
        state = game_spec.new_initial_state()
        if record.rules != game_spec.rules or game_spec.first_mano not in (
            record.first_mano,
            RANDOM_MANO,
        ):
            raise ValueError("the record is for another table")
        if state.chance_kind() == "mano":
            state.apply_action(record.first_mano)
        for hand in record.hands:
            assert hand.deal is not None, "records written by the RL layer carry every deal"
            for cards in hand.deal:
                for c in cards:
                    state.apply_action(c)
            for seat, action in hand.actions:
                if state.chance_kind() == "answer" and seat in state.game.actors():
                    state.apply_action(seat)  # chance picked this partner to answer
                if state.current_player() != seat:
                    # a word of a seat not on turn: replay it as the engine allows
                    if action not in state.game.legal_actions(seat, megaphone=True):
                        raise ValueError(f"seat {seat} may not {action_token(action)!r} here")
                    state._push(seat, action)
                else:
                    state.apply_action(action)
        for token in record.headers.get("rl_dealing", []):
            state.apply_action(parse_card(token))
        if "rl_answers" in record.headers and state.chance_kind() == "answer":
            state.apply_action(record.headers["rl_answers"])
        return state

    def __str__(self) -> str:
        g = self.game
        hands = " ".join(
            "".join(action_token(c).split()[1] + " " for c in g.cards[s]).strip() or "-"
            for s in range(g.n)
        )
        log = " ".join(f"{s}:{action_token(a)}" for s, a in g.actions)
        return f"hand {g.hand_index} score {g.score[0]}-{g.score[1]} cards [{hands}] log [{log}]"

    def __repr__(self) -> str:
        return f"<TrucoState {self}>"


def _deck(names: str) -> tuple[int, ...]:
    """The cards of a ``deck`` parameter (names separated by commas; ``""``: all 40)."""
    if not names:
        return tuple(DECK)
    from ..cards import parse_card

    try:
        cards = tuple(sorted({parse_card(n.strip()) for n in names.split(",")}))
    except ValueError as exc:
        raise ValueError(f"deck: {exc}") from None
    return cards


def _as_random(
    rng: random.Random | np.random.Generator | Callable[[], float] | int | None,
) -> random.Random:
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, np.random.Generator):
        return random.Random(int(rng.integers(2**63)))
    if callable(rng):
        return random.Random(int(rng() * 2**53))
    return random.Random(rng)
