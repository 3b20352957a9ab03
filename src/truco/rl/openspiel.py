"""Truco registered with OpenSpiel (``pyspiel``), where ``open_spiel`` is installed.

Importing this module registers ``python_truco_argento``; then
``pyspiel.load_game("python_truco_argento", {"players": 4, "flor": True})`` gives a
game OpenSpiel's algorithms can run (what works with which, as tried, is in
docs/research.md: ``MCTSBot``, Python IS-MCTS through ``resample_from_infostate``,
outcome/external-sampling MCCFR; the C++ ``ISMCTSBot`` crashes on Python games).
Without ``open_spiel`` the module imports cleanly and :data:`AVAILABLE` is ``False``.
The pyspiel classes only forward to :class:`truco.rl.game.TrucoState`: the same
enumeration, strings, tensors and returns.

>>> import truco.rl.openspiel as ts
>>> ts.AVAILABLE in (True, False)
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..actions import is_say
from ..cards import card_name
from ..view import SeatView
from .game import DEFAULT_PARAMS, TrucoGame, TrucoState

try:  # pragma: no cover - depends on the optional open_spiel
    import pyspiel  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    pyspiel = None

AVAILABLE = pyspiel is not None
SHORT_NAME = TrucoGame.short_name
MINI_SHORT_NAME = "python_mini_truco"
MINI_LONG_NAME = "Mini-truco (Truco Argento)"
#: Mini-truco: 1v1 sin flor to 15, one hand of one card each dealt from six cards (the
#: ace of swords, the seven of swords, the three of clubs, the king of cups, the four of
#: coins, the six of cups), every call of the real game kept; the returns are the hand's
#: points. Small enough for OpenSpiel's exact tools (docs/research.md).
MINI_PARAMS: dict[str, Any] = {
    **DEFAULT_PARAMS,
    "target": 15,
    "hand_size": 1,
    "deck": "1e,7e,3b,12c,4o,6c",
    "max_hands": 1,
    "returns": "hand",
}

if AVAILABLE:  # pragma: no cover - exercised only where open_spiel is installed

    def _game_type(
        spec: TrucoGame | None = None,
        short_name: str = SHORT_NAME,
        defaults: dict[str, Any] = DEFAULT_PARAMS,
    ) -> Any:
        """The game type; the reward model is ``TERMINAL`` when every reward comes at the
        end (``returns="match"``, or one hand), which OpenSpiel's ``MCTSBot`` requires."""
        spec = spec or TrucoGame(defaults)
        terminal = spec.returns_per == "match" or spec.max_hands == 1
        model = pyspiel.GameType.RewardModel
        return pyspiel.GameType(
            short_name=short_name,
            long_name=TrucoGame.long_name if short_name == SHORT_NAME else MINI_LONG_NAME,
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=model.TERMINAL if terminal else model.REWARDS,
            max_num_players=6,
            min_num_players=2,
            provides_information_state_string=True,
            provides_information_state_tensor=True,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification=dict(defaults),
        )

    class SpielTrucoGame(pyspiel.Game):  # type: ignore[misc]
        """The pyspiel face of :class:`TrucoGame`."""

        short_name = SHORT_NAME
        defaults: dict[str, Any] = DEFAULT_PARAMS

        def __init__(self, params: dict[str, Any] | None = None) -> None:
            spec = TrucoGame({**self.defaults, **(params or {})})
            info = pyspiel.GameInfo(
                num_distinct_actions=spec.num_distinct_actions(),
                max_chance_outcomes=spec.max_chance_outcomes(),
                num_players=spec.num_players(),
                min_utility=spec.min_utility(),
                max_utility=spec.max_utility(),
                utility_sum=0.0,
                max_game_length=spec.max_game_length(),
            )
            super().__init__(_game_type(spec, self.short_name, self.defaults), info, params or {})
            self.spec = spec

        def new_initial_state(self) -> SpielTrucoState:
            return SpielTrucoState(self)

        def max_chance_nodes_in_history(self) -> int:
            return self.spec.max_chance_nodes_in_history()

        def deserialize_state(self, text: str) -> SpielTrucoState:
            """A state from the record :meth:`SpielTrucoState.serialize` wrote, replayed
            through OpenSpiel so that its ``history()`` is whole."""
            state = self.new_initial_state()
            for action in TrucoState.deserialize(self.spec, text).history():
                state.apply_action(action)
            return state

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
            return Observer(self.spec, iig_obs_type)

    class SpielMiniTrucoGame(SpielTrucoGame):
        """Mini-truco (:data:`MINI_PARAMS`) under its own name, ``python_mini_truco``."""

        short_name = MINI_SHORT_NAME
        defaults = MINI_PARAMS

    class SpielTrucoState(pyspiel.State):  # type: ignore[misc]
        """The pyspiel face of :class:`TrucoState`. ``serialize()`` is the
        ``truco-record/1`` JSON (:meth:`TrucoState.serialize`), which the game's
        ``deserialize_state`` reads back."""

        def __init__(self, game: SpielTrucoGame, inner: TrucoState | None = None) -> None:
            super().__init__(game)
            #: a state of the game's start that nothing was applied to yet (what
            #: OpenSpiel builds to learn a tensor's shape, on every C++ tensor call)
            self.pristine = inner is None
            self.inner = inner or game.spec.new_initial_state()
            self._tensors: dict[tuple[bool, int], np.ndarray] = {}
            self._version = 0

        # pyspiel's own ``information_state_tensor()`` runs in C++: it builds a whole
        # new initial state and encodes it only to learn the tensor's size, then asks
        # the observer, then hands back a list. These two answer from Python instead:
        # the encoder writes the list itself (or it is read from a tensor already made).
        def information_state_tensor(self, player: int | None = None) -> list[float]:
            """The information-state tensor, as pyspiel gives it (a list of floats),
            without pyspiel's detour; the same values (tests/test_rl_openspiel.py)."""
            return self._list(True, player)

        def observation_tensor(self, player: int | None = None) -> list[float]:
            """The observation tensor, as pyspiel gives it (a list of floats)."""
            return self._list(False, player)

        def _list(self, perfect_recall: bool, player: int | None) -> list[float]:
            inner = self.inner
            p = inner._player(player)
            if self._version == len(inner._history):
                array = self._tensors.get((perfect_recall, p))
                if array is not None:
                    return _as_list(array)
            enc = inner.game_spec.encoder
            make = enc.information_state_list if perfect_recall else enc.observation_list
            return make(inner.seat_view(p), inner._own_dealing(p))

        def tensor(self, perfect_recall: bool, player: int | None = None) -> np.ndarray:
            """The information-state (``perfect_recall``) or observation tensor of
            ``player`` (the current one by default) as a read-only numpy array, encoded
            once per state version and seat; the fastest way to read it."""
            inner = self.inner
            p = inner._player(player)
            version = len(inner._history)
            if version != self._version:
                self._tensors.clear()
                self._version = version
            key = (perfect_recall, p)
            array = self._tensors.get(key)
            if array is None:
                if perfect_recall:
                    array = inner.information_state_tensor(p)
                else:
                    array = inner.observation_tensor(p)
                array.flags.writeable = False
                self._tensors[key] = array
            return array

        def current_player(self) -> int:
            player = self.inner.current_player()
            if player == -1:
                return int(pyspiel.PlayerId.CHANCE)
            if player == -4:
                return int(pyspiel.PlayerId.TERMINAL)
            return player

        def _legal_actions(self, player: int) -> list[int]:
            return self.inner.legal_actions(-1 if player == pyspiel.PlayerId.CHANCE else player)

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return self.inner.chance_outcomes()

        def _apply_action(self, action: int) -> None:
            self.inner.apply_action(action)

        def _action_to_string(self, player: int, action: int) -> str:
            return self.inner.action_to_string(
                -1 if player == pyspiel.PlayerId.CHANCE else player, action
            )

        def is_terminal(self) -> bool:
            return self.inner.is_terminal()

        def returns(self) -> list[float]:
            return self.inner.returns()

        def rewards(self) -> list[float]:
            return self.inner.rewards()

        def serialize(self) -> str:
            return self.inner.serialize()

        def resample_from_infostate(
            self, player_id: int, probability_sampler: Any
        ) -> SpielTrucoState:
            """A world ``player_id`` cannot tell from this one, replayed through
            OpenSpiel from the start so that its ``history()``, ``move_number()`` and
            ``is_initial_state()`` are those of a state of the game (a cost linear in
            the episode's length)."""
            world = self.inner.resample_from_infostate(player_id, probability_sampler)
            new: SpielTrucoState = self.get_game().new_initial_state()
            for action in world.history():
                new.apply_action(action)
            return new

        def __deepcopy__(self, memo: dict[int, Any]) -> SpielTrucoState:
            """``clone()``: OpenSpiel's copy keeps the history (which lives in C++)."""
            new: SpielTrucoState = self.clone()
            return new

        def __str__(self) -> str:
            return str(self.inner)

    class Observer:
        """OpenSpiel's PyObserver, honouring every field of ``IIGObservationType``
        (``None``: OpenSpiel's default, the observation):

        - ``public_info``: the public block, the information state (``perfect_recall``)
          or the observation of :mod:`truco.rl.encoding`, as the seat sees it. With
          ``private_info=NONE`` it is computed from a view stripped of the seat's cards
          and of its team's megaphone words, so it is the same for whatever the seat
          holds;
        - ``private_info=SINGLE_PLAYER``: the seat's own cards (dealt, still held) — in
          the public block when there is one, else a block of 80 on their own;
        - ``private_info=ALL_PLAYERS``: also every seat's cards (dealt, still held; seats
          relative to the viewer), ``n * 80`` more, and every megaphone word.

        ``dict`` names the blocks (``"observation"``, ``"private"``, ``"all_cards"``);
        ``tensor`` is all of them, in that order. Neither public nor private: empty."""

        def __init__(self, spec: TrucoGame, iig_obs_type: Any = None) -> None:
            iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
            self.spec = spec
            self.perfect_recall = bool(iig.perfect_recall)
            self.public = bool(iig.public_info)
            self.private = iig.private_info
            info = pyspiel.PrivateInfoType
            self.own_cards = self.private != info.NONE
            self.all_cards = self.private == info.ALL_PLAYERS
            n = spec.num_players()
            sizes: list[tuple[str, int]] = []
            if self.public:
                shape = (
                    spec.information_state_tensor_shape()
                    if self.perfect_recall
                    else spec.observation_tensor_shape()
                )
                sizes.append(("observation", shape[0]))
            elif self.own_cards and not self.all_cards:
                sizes.append(("private", 80))
            if self.all_cards:
                sizes.append(("all_cards", n * 80))
            self.tensor = np.zeros(sum(size for _, size in sizes), np.float32)
            # the seat's own view, public and private: the state's own tensors
            self._standard = self.public and self.own_cards and not self.all_cards
            self._initial: dict[int, np.ndarray] = {}  # per seat, of a pristine state
            self.dict: dict[str, np.ndarray] = {}
            at = 0
            for name, size in sizes:
                self.dict[name] = self.tensor[at : at + size]
                at += size

        def _view(self, inner: TrucoState, player: int) -> tuple[SeatView, tuple[int, ...]]:
            view = inner.seat_view(player)
            if self.all_cards:
                game = inner.game
                if not game.needs_deal and game.winner is None:
                    view = dataclasses.replace(view, log=tuple(game.actions))
                return view, inner._own_dealing(player)
            if self.own_cards:
                return view, inner._own_dealing(player)
            quiet = tuple(e for e in view.log if not is_say(e[1]))
            return dataclasses.replace(view, hand=(), dealt=(), legal=(), log=quiet), ()

        def _cards(self, inner: TrucoState) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
            """(dealt, held) of every seat, absolute seats."""
            game, n = inner.game, inner.game.n
            if game.needs_deal or game.winner is not None:
                return [(inner._own_dealing(s), ()) for s in range(n)]
            return [(tuple(game.dealt[s]), tuple(game.cards[s])) for s in range(n)]

        def set_from(self, state: SpielTrucoState, player: int) -> None:
            inner = state.inner
            if state.pristine and not inner._history:
                initial = self._initial.get(player)
                if initial is None:
                    self._encode(state, player)
                    initial = self._initial[player] = self.tensor.copy()
                else:
                    self.tensor[:] = initial
                return
            if self._standard:
                self.tensor[:] = state.tensor(self.perfect_recall, player)
                return
            self._encode(state, player)

        def _encode(self, state: SpielTrucoState, player: int) -> None:
            inner, enc = state.inner, state.inner.game_spec.encoder
            self.tensor.fill(0.0)
            view, dealing = self._view(inner, player)
            if self.public:
                make = (
                    enc.information_state_tensor if self.perfect_recall else enc.observation_tensor
                )
                self.dict["observation"][:] = make(view, dealing)
            elif "private" in self.dict:
                block = self.dict["private"]
                for c in view.dealt or dealing:
                    block[c] = 1.0
                for c in view.hand:
                    block[40 + c] = 1.0
            if self.all_cards:
                block, n = self.dict["all_cards"], inner.game.n
                for s, (dealt, held) in enumerate(self._cards(inner)):
                    base = ((s - player) % n) * 80
                    for c in dealt:
                        block[base + c] = 1.0
                    for c in held:
                        block[base + 40 + c] = 1.0

        def string_from(self, state: SpielTrucoState, player: int) -> str:
            inner, enc = state.inner, state.inner.game_spec.encoder
            view, dealing = self._view(inner, player)
            words = []
            if self.public:
                make = (
                    enc.information_state_string if self.perfect_recall else enc.observation_string
                )
                words.append(make(view, dealing))
            elif self.own_cards and not self.all_cards:
                dealt = " ".join(card_name(c) for c in sorted(view.dealt or dealing)) or "-"
                held = " ".join(card_name(c) for c in sorted(view.hand)) or "-"
                words.append(f"cards {dealt} held {held}")
            if self.all_cards:
                hands = " ".join(
                    f"{s}:{''.join(card_name(c) for c in sorted(dealt)) or '-'}"
                    f"/{''.join(card_name(c) for c in sorted(held)) or '-'}"
                    for s, (dealt, held) in enumerate(self._cards(inner))
                )
                words.append(f"hands {hands}")
            return " | ".join(words)


def _as_list(array: np.ndarray) -> list[float]:
    """``array.tolist()``, faster for the sparse tensors here: a list of zeros, then
    the few entries that are not."""
    out = [0.0] * array.shape[0]
    nonzero = np.flatnonzero(array)
    for i, value in zip(nonzero.tolist(), array[nonzero].tolist(), strict=True):
        out[i] = value
    return out


_registered = False


def register() -> bool:
    """Register the game with ``pyspiel`` (once); ``False`` when OpenSpiel is missing."""
    global _registered
    if not AVAILABLE:
        return False
    if not _registered:  # pragma: no cover
        pyspiel.register_game(_game_type(), SpielTrucoGame)
        pyspiel.register_game(_game_type(None, MINI_SHORT_NAME, MINI_PARAMS), SpielMiniTrucoGame)
        _registered = True
    return True


register()

__all__ = ["AVAILABLE", "MINI_PARAMS", "MINI_SHORT_NAME", "SHORT_NAME", "register"]
