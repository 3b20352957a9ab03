"""Many games of truco stepped together, for agents that train on batches.

:class:`TrucoVectorEnv` holds ``num_envs`` games of one table and steps them all with one
array of actions: every seat is played by the caller (self-play; put your own bots in
the loop for other set-ups). Each :meth:`~TrucoVectorEnv.step` returns, as numpy arrays,
the observation of the seat that must act next in each game (the observation tensor of
:mod:`truco.rl.encoding`, exactly what :meth:`truco.rl.TrucoState.observation_tensor`
gives and what :class:`~truco.rl.policy_bot.PolicyBot` sees at a table), its legal
actions as a boolean mask, who that seat is, and the rewards every seat received. A game
that ends is dealt again at once (its next observation is the new game's first one;
``terminated`` marks the step that ended it).

Only the engine decides the rules: the games are :class:`truco.game.Game` objects; what
is vectorised is the bookkeeping around them (deals drawn in batches from one numpy
generator, the observations written straight into one array, the masks checked with
numpy). As in :mod:`truco.rl.game`, when several partners may answer a call, one of
them is picked at random (as ``truco arena`` does). ``megaphone=True`` (2v2, 3v3) adds
the megaphone words, as in :class:`truco.rl.TrucoGame`: up to ``says_per_seat`` per seat
and hand, a word keeps the turn, and a seat hears its own team's words only.

>>> venv = TrucoVectorEnv(8, players=2, seed=0)
>>> obs, info = venv.reset()
>>> obs.shape, info["action_mask"].shape, info["player"].shape
((8, 575), (8, 61), (8,))
>>> rng = np.random.default_rng(0)
>>> obs, rewards, terminated, truncated, info = venv.step(venv.sample_actions(rng))
>>> rewards.shape, terminated.dtype
((8, 2), dtype('bool'))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..actions import MEGAPHONE_WORDS, NUM_ACTIONS, SAY_FIRST
from ..game import Game
from .game import RANDOM_MANO, TrucoGame

_TANTO_SLOTS = 35  # as truco.rl.encoding
_CALLS = SAY_FIRST - 40  # envido .. mazo, counted per team
_WORDS = len(MEGAPHONE_WORDS)
_CHUNK = 64  # games whose observations are noted, then written, together


class _Notes:
    """What a chunk of games needs written: the columns of the ones of each game's
    observation (``flat``, ``counts`` per game) and mask (``legal``, ``legal_counts``),
    the seat to act and the hand number."""

    __slots__ = ("counts", "flat", "hands", "legal", "legal_counts", "seats")

    def __init__(self) -> None:
        self.flat: list[int] = []
        self.counts: list[int] = []
        self.legal: list[int] = []
        self.legal_counts: list[int] = []
        self.seats: list[int] = []
        self.hands: list[int] = []


class TrucoVectorEnv:
    """``num_envs`` games of one table (``players``, ``flor``, ... as in
    :class:`truco.rl.TrucoGame`, plus ``returns="match"|"hand"``, ``max_hands``,
    ``first_mano``; ``-1`` draws each game's first mano). ``seed`` seeds the deals, the
    manos and the picks of who answers."""

    def __init__(self, num_envs: int, seed: int | None = None, **game_options: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer (got {num_envs!r})")
        self.spec = TrucoGame(game_options)
        self.num_envs = num_envs
        self.rules = self.spec.rules
        self.n = self.rules.players
        enc = self.spec.encoder
        self._enc = enc
        self.observation_size = enc.observation_shape[0]
        self._off = enc.observation_offsets
        self._rng = np.random.default_rng(seed)
        self._megaphone = self.spec.megaphone
        self._says = self.spec.says_per_seat
        self._o_heard = enc.observation_offsets["heard"]
        # who said a word last in each game: a word keeps the turn (None: no word)
        self._speaker: list[int | None] = [None] * num_envs
        self._games: list[Game] = []
        self._hands = np.zeros(num_envs, dtype=np.int64)
        self.observations = np.zeros((num_envs, self.observation_size), dtype=np.float32)
        self.action_masks = np.zeros((num_envs, NUM_ACTIONS), dtype=bool)
        self.players = np.zeros(num_envs, dtype=np.int64)
        self._deals = np.zeros((0, 3 * self.n), dtype=np.int64)
        self._coins = np.zeros(0)
        self._rows = np.arange(num_envs)
        self._chunks = [(lo, min(lo + _CHUNK, num_envs)) for lo in range(0, num_envs, _CHUNK)]
        self._seats = tuple(range(self.n))
        self._rel = tuple(tuple((s - me) % self.n for s in self._seats) for me in self._seats)
        off = enc.observation_offsets
        self._o_held, self._o_played, self._o_calls = off["held"], off["played"], off["calls"]
        self._o_showdown, self._o_pending, self._o_turn = (
            off["showdown"],
            off["pending"],
            off["turn"],
        )
        self._o_truco, self._o_actors, self._o_in_hand = off["truco"], off["actors"], off["in_hand"]
        self._o_flor, self._o_bazas, self._o_envido = off["flor"], off["bazas"], off["envido_open"]
        self._heads: list[dict[tuple[int, int], list[int]]] = [{} for _ in range(num_envs)]

    # ------------------------------------------------------------------ randomness
    def _deal(self) -> tuple[tuple[int, ...], ...]:
        if not len(self._deals):  # a batch of shuffled decks at a time
            self._deals = self._rng.random((4 * self.num_envs + 16, 40)).argsort(axis=1)[
                :, : 3 * self.n
            ]
        row, self._deals = self._deals[0].tolist(), self._deals[1:]
        return tuple(tuple(row[3 * s : 3 * s + 3]) for s in range(self.n))

    def _coin(self) -> float:
        if not len(self._coins):
            self._coins = self._rng.random(4 * self.num_envs + 16)
        coin, self._coins = float(self._coins[0]), self._coins[1:]
        return coin

    def _new_game(self) -> Game:
        mano = self.spec.first_mano
        if mano == RANDOM_MANO:
            mano = int(self._coin() * self.n)
        return Game(self.rules, first_mano=mano, manual_deal=True)

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Deal ``num_envs`` new games; the observation of each game's first seat to act
        and ``info`` with ``action_mask`` and ``player``."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._deals = self._deals[:0]
            self._coins = self._coins[:0]
        self._games = [self._new_game() for _ in range(self.num_envs)]
        self._hands[:] = 0
        for heads in self._heads:
            heads.clear()
        self._speaker = [None] * self.num_envs
        obs, masks = self._fresh()
        for lo, hi in self._chunks:
            notes = _Notes()
            for i in range(lo, hi):
                self._advance(i, notes)
            self._write(lo, hi, notes, obs, masks)
        return self.observations, self._info()

    def step(
        self, actions: np.ndarray | list[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Apply one action in every game (``actions[i]`` for the seat ``player[i]``).
        Returns ``(observations, rewards, terminated, truncated, info)``: ``rewards`` is
        ``(num_envs, players)``, what every seat received with this step (team-zero-sum);
        ``terminated[i]`` says game ``i`` ended (and was dealt again). An action outside
        a mask raises ``ValueError`` naming the game, and no game moves."""
        acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got {acts.shape[0]}")
        if not self._games:
            raise ValueError("call reset() first")
        in_range = (acts >= 0) & (acts < NUM_ACTIONS)
        ok = in_range.copy()
        ok[in_range] = self.action_masks[np.flatnonzero(in_range), acts[in_range]]
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"game {bad}: action {int(acts[bad])} is not legal now")
        n, spec = self.n, self.spec
        rewards = np.zeros((self.num_envs, n), dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        per_hand = spec.returns_per == "hand"
        max_hands = spec.max_hands
        players = self.players.tolist()
        actions_list = acts.tolist()
        megaphone = self._megaphone
        games = self._games
        obs, masks = self._fresh()
        # In chunks: each chunk's indices are written before the next chunk's are made,
        # so the few thousand int objects they need are reused while still in cache
        # (one list for all games made a large batch touch megabytes per step).
        for lo, hi in self._chunks:
            notes = _Notes()
            for i in range(lo, hi):
                g = games[i]
                closed = len(g.history)
                action = actions_list[i]
                g.push(players[i], action)
                if megaphone:
                    self._speaker[i] = players[i] if action >= SAY_FIRST else None
                if len(g.history) != closed:  # a hand closed
                    self._hands[i] += 1
                    if per_hand:
                        points = g.history[-1].points
                        rewards[i, 0::2] = points[0] - points[1]
                        rewards[i, 1::2] = points[1] - points[0]
                    elif g.winner is not None:
                        rewards[i, g.winner :: 2] = 1.0
                        rewards[i, 1 - g.winner :: 2] = -1.0
                    if g.winner is not None or (max_hands and self._hands[i] >= max_hands):
                        terminated[i] = True
                        self._speaker[i] = None
                        games[i] = self._new_game()
                        self._hands[i] = 0
                        self._heads[i].clear()
                self._advance(i, notes)
            self._write(lo, hi, notes, obs, masks)
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self.observations, rewards, terminated, truncated, self._info()

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A legal action per game, uniformly at random (for baselines and tests)."""
        scores = rng.random(self.action_masks.shape)
        scores[~self.action_masks] = -1.0
        chosen: np.ndarray = scores.argmax(axis=1)
        return chosen

    def games(self) -> list[Game]:
        """The engine games (read them, do not change them): records, debugging."""
        return list(self._games)

    def _info(self) -> dict[str, np.ndarray]:
        return {"action_mask": self.action_masks, "player": self.players.copy()}

    # ------------------------------------------------------------------ one game
    def _advance(self, i: int, notes: _Notes) -> None:
        """Deal if needed, pick who answers, then note game ``i``'s seat to act, legal
        actions and observation (written for a chunk of games by :meth:`_write`)."""
        g = self._games[i]
        if g.needs_deal:
            g.deal(self._deal())
        actors = g.actors()
        speaker = self._speaker[i]
        if speaker is not None and speaker in actors:  # a word keeps the turn
            seat = speaker
        else:
            seat = actors[0] if len(actors) == 1 else actors[int(self._coin() * len(actors))]
        notes.seats.append(seat)
        acts = g.legal_actions(seat, megaphone=self._megaphone)
        if self._megaphone and max(acts) >= SAY_FIRST:
            said = sum(1 for s, a in g.actions if s == seat and a >= SAY_FIRST)
            if said >= self._says:
                acts = [a for a in acts if a < SAY_FIRST]
        notes.legal += acts
        notes.legal_counts.append(len(acts))
        notes.counts.append(self._indices(i, g, seat, actors, notes.flat))
        notes.hands.append(g.hand_index)

    def _fresh(self) -> tuple[np.ndarray, np.ndarray]:
        """New zeroed arrays for the step (the caller may keep the last ones)."""
        obs = np.zeros((self.num_envs, self.observation_size), dtype=np.float32)
        masks = np.zeros((self.num_envs, NUM_ACTIONS), dtype=bool)
        self.observations, self.action_masks = obs, masks
        return obs, masks

    def _write(self, lo: int, hi: int, notes: _Notes, obs: np.ndarray, masks: np.ndarray) -> None:
        """What :meth:`_advance` noted for games ``lo..hi-1``, into the arrays."""
        rows = self._rows[lo:hi]
        self.players[lo:hi] = notes.seats
        masks[np.repeat(rows, notes.legal_counts), notes.legal] = True
        obs[np.repeat(rows, notes.counts), notes.flat] = 1.0
        cap = self._enc.max_hands
        obs[lo:hi, self._off["hand"]] = np.minimum(notes.hands, cap) / cap

    def _head(self, i: int, g: Game, me: int) -> list[int]:
        """The ones of the hand's head (seat, mano, score, chicos, pica-pica, round, cards
        dealt) for seat ``me``: they change only between hands, so they are kept (looked
        up by :meth:`_indices`)."""
        key = (g.hand_index, me)
        off, n = self._off, self.n
        my_team = me & 1
        t1 = self.rules.target + 1
        score, chicos = g.score, g.chicos
        head = [
            off["seat"] + me,
            off["mano"] + (g.mano - me) % n,
            off["score"] + score[my_team],
            off["score"] + t1 + score[1 - my_team],
            off["chicos"] + chicos[my_team],
            off["chicos"] + 3 + chicos[1 - my_team],
            off["outcome"],  # the match goes on
        ]
        if g.pica_started and not g.chico_over:
            head.append(off["pica"])
        if g.pica_now:
            head.append(off["pica"] + 1)
        head += [off["round"] + (s - me) % n for s in g.round_seats]
        head += [off["dealt"] + c for c in g.dealt[me]]
        if len(self._heads[i]) > 2 * n:
            self._heads[i].clear()
        self._heads[i][key] = head
        return head

    def _indices(self, i: int, g: Game, me: int, actors: tuple[int, ...], out: list[int]) -> int:
        """Append to ``out`` the columns of the ones of the observation tensor of seat
        ``me`` at a decision of ``g`` (a dealt hand, the match going on), as
        :meth:`Encoder.observation_tensor` writes them from the seat's view: the same
        fields, read from the engine (a test compares the two on thousands of positions
        of every table). Returns how many."""
        rel = self._rel[me]  # seat -> seat relative to the viewer
        my_team = me & 1
        start = len(out)
        head = self._heads[i].get((g.hand_index, me))
        out += self._head(i, g, me) if head is None else head
        add = out.append
        at = self._o_held
        for c in g.cards[me]:
            add(at + c)
        at = self._o_played
        n40 = self.n * 40
        for b, baza in enumerate(g.bazas[:3]):
            for s, c in baza:
                add(at + b * n40 + rel[s] * 40 + c)
        self._calls_and_tantos(g, rel, my_team, add)
        if g.pending:
            kind, team, level = g.pending[-1]
            at = self._o_pending
            add(at + kind)
            add(at + 5 + (team != my_team))
            add(at + 7 + level)
        elif g.turn is not None:
            add(self._o_turn + rel[g.turn])
        at = self._o_truco
        add(at + g.truco_level)
        owner = g.truco_owner
        add(at + 4 + (0 if owner is None else 1 + (owner != my_team)))
        at = self._o_actors
        for s in actors:
            add(at + rel[s])
        in_hand, sung = g.in_hand, g.flor_sung
        at, flor = self._o_in_hand, self._o_flor
        for s in self._seats:
            if in_hand[s]:
                add(at + rel[s])
            if sung[s]:
                add(flor + rel[s])
        at = self._o_bazas
        for b, r in enumerate(g.baza_results[:3]):
            add(at + 3 * b + (2 if r < 0 else (r != my_team)))
        if g.why_envido_closed() is None:
            add(self._o_envido)
        return len(out) - start

    def _calls_and_tantos(
        self, g: Game, rel: tuple[int, ...], my_team: int, add: Callable[[int], None]
    ) -> None:
        """The calls made by each team (at most twice each) and the tantos declared."""
        counts: dict[tuple[int, int], int] = {}
        for s, action in g.actions:
            if action >= SAY_FIRST:  # a word: heard by its team only
                if s & 1 == my_team:
                    add(self._o_heard + rel[s] * _WORDS + action - SAY_FIRST)
            elif action >= 40:
                key = (int(s & 1 != my_team), action - 40)
                k = counts[key] = counts.get(key, 0) + 1
                if k <= 2:
                    add(self._o_calls + (key[0] * _CALLS + key[1]) * 2 + k - 1)
        at = self._o_showdown
        for showdown in g.showdowns:
            for d in showdown:
                value = _TANTO_SLOTS - 1 if d.tanto is None else d.tanto
                add(at + rel[d.seat] * _TANTO_SLOTS + value)
