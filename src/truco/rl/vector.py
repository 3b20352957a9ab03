"""Many games of truco stepped together, for agents that train on batches.

:class:`TrucoVectorEnv` is a ``gymnasium.vector.VectorEnv``: ``num_envs`` games of one
table stepped with one array of actions. Every seat is played by the caller (self-play),
or, with ``opponent=``, bots of the project play the other team inside the step and the
caller plays the learner's seats. Each :meth:`~TrucoVectorEnv.step` returns, as numpy
arrays, the observation of the seat that must act next in each game (the observation
tensor of :mod:`truco.rl.encoding`, exactly what
:meth:`truco.rl.TrucoState.observation_tensor` gives and what
:class:`~truco.rl.policy_bot.PolicyBot` sees at a table), the reward, ``terminated`` (the
match won) and ``truncated`` (``max_hands`` reached), and in ``info`` its legal actions
as a boolean mask, who that seat is, and what every seat received. A game that ends is
dealt again at once (Gymnasium's same-step autoreset: its next observation is the new
game's first one, ``info["final_obs"]`` the old game's last).

Only the engine decides the rules: the games are :class:`truco.game.Game` objects; what
is vectorised is the bookkeeping around them (deals drawn in batches from one numpy
generator, the observations written straight into one array). A game keeps no closed
hand (its result is read as it closes, while in cache): ``keep_history=True`` keeps them
all (for records), at a cost in speed, since thousands of games' histories are memory
that every step's garbage collection walks. As in :mod:`truco.rl.game`, when several
partners may answer a call, one of them is picked at random (as ``truco arena`` does).
``megaphone=True`` (2v2, 3v3) adds the megaphone words, as in :class:`truco.rl.TrucoGame`:
up to ``says_per_seat`` per seat and hand, a word keeps the turn, and a seat hears its own
team's words only.

>>> venv = TrucoVectorEnv(8, players=2, seed=0)
>>> obs, info = venv.reset()
>>> obs.shape, info["action_mask"].shape, info["player"].shape
((8, 575), (8, 61), (8,))
>>> rng = np.random.default_rng(0)
>>> obs, rewards, terminated, truncated, info = venv.step(venv.sample_actions(rng))
>>> rewards.shape, info["rewards"].shape, terminated.dtype
((8,), (8, 2), dtype('bool'))
>>> venv.observation_space.shape, venv.single_action_space
((8, 575), Discrete(61))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..actions import MEGAPHONE_WORDS, NUM_ACTIONS, SAY_FIRST
from ..bots import Bot, make_bot
from ..deal import Deal
from ..game import Game
from ..view import seat_view
from ..vocabulary import Stage
from .game import RANDOM_MANO, TrucoGame

_TANTO_SLOTS = 35  # as truco.rl.encoding
_CALLS = SAY_FIRST - 40  # envido .. mazo, counted per team
_WORDS = len(MEGAPHONE_WORDS)
_CHUNK = 64  # games whose observations are noted, then written, together
_OPEN = Stage.OPEN


class _BatchDealer:
    """The deals of every game of an environment, shuffled in batches by one numpy
    generator (a :class:`truco.deal.Dealer`: the games deal their next hand themselves,
    as it closes)."""

    __slots__ = ("_deals", "_next", "_players", "_rng", "_size")

    def __init__(self, rng: np.random.Generator, players: int, size: int) -> None:
        self._rng, self._players, self._size = rng, players, size
        self._deals: list[Deal] = []
        self._next = 0

    def deal(self, players: int, hand_index: int) -> Deal:
        if self._next == len(self._deals):
            n = self._players
            rows = self._rng.random((self._size, 40)).argsort(axis=1)[:, : 3 * n].tolist()
            self._deals = [tuple(tuple(r[3 * s : 3 * s + 3]) for s in range(n)) for r in rows]
            self._next = 0
        deal = self._deals[self._next]
        self._next += 1
        return deal


class _Coins:
    """Uniform draws in [0, 1), made in batches by one numpy generator."""

    __slots__ = ("_coins", "_next", "_rng", "_size")

    def __init__(self, rng: np.random.Generator, size: int) -> None:
        self._rng, self._size = rng, size
        self._coins: list[float] = []
        self._next = 0

    def draw(self) -> float:
        if self._next == len(self._coins):
            self._coins = self._rng.random(self._size).tolist()
            self._next = 0
        coin = self._coins[self._next]
        self._next += 1
        return coin


class _Viewer(NamedTuple):
    """The observation's columns as one seat sees the table, made once and looked up
    on every step: ``actors[s]`` is the column of seat ``s`` among the actors,
    ``held[c]`` the column of card ``c`` held, and so on, seats and teams relative to the
    viewer."""

    seat: int
    mano: tuple[int, ...]  # [mano]
    score: tuple[tuple[int, ...], tuple[int, ...]]  # [team][points]
    chicos: tuple[tuple[int, ...], tuple[int, ...]]  # [team][chicos]
    round: tuple[int, ...]  # [seat]
    dealt: tuple[int, ...]  # [card]
    held: tuple[int, ...]  # [card]
    played: tuple[tuple[tuple[int, ...], ...], ...]  # [baza][seat][card]
    calls: tuple[tuple[int, ...], tuple[int, ...]]  # [team][call - 40] (+ 1: the second)
    heard: tuple[int, ...]  # [seat] + word - SAY_FIRST (-1: a rival, not heard)
    showdown: tuple[tuple[int, ...], ...]  # [seat][tanto, or 34: son buenas]
    pending_kind: tuple[int, ...]  # [call kind]
    pending_team: tuple[int, int]  # [called team]
    pending_level: tuple[int, ...]  # [level]
    turn: tuple[int, ...]  # [seat]
    actors: tuple[int, ...]  # [seat]
    in_hand: tuple[int, ...]  # [seat]
    flor: tuple[int, ...]  # [seat]
    truco_level: tuple[int, ...]  # [level]
    truco_owner: tuple[int, int, int]  # [owner team], [-1]: nobody
    baza_results: tuple[tuple[int, int, int], ...]  # [baza][winning team], [-1]: parda


class TrucoVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` games of one table (``players``, ``flor``, ... as in
    :class:`truco.rl.TrucoGame`, plus ``returns="match"|"hand"``, ``max_hands``,
    ``first_mano``; ``-1`` draws each game's first mano). ``seed`` seeds the deals, the
    manos and the picks of who answers; ``keep_history`` keeps every closed hand in the
    games (see the module doc).

    ``opponent``: ``None`` (self-play: the caller plays every seat), or bots of the
    project for every seat but the ``learner``'s (one team), as in
    :class:`~truco.rl.env.BotOpponentEnv`: a spec (``"simple"``, each game gets its
    own bot, seeded from ``seed``), a :class:`~truco.bots.Bot` (shared by every game:
    a policy), or a mapping seat -> either. The bots act inside :meth:`step`; the caller
    sees the learner's seats only. ``observation="information_state"`` gives the
    information-state tensor of each seat's view instead (perfect recall within the hand;
    made per game by the encoder, hence slower). ``rewards`` is ``returns`` under
    :class:`~truco.rl.env.BotOpponentEnv`'s name (``gymnasium.make_vec`` passes it)."""

    metadata = {  # noqa: RUF012 (Gymnasium's attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int,
        seed: int | None = None,
        keep_history: bool = False,
        opponent: str | Bot | Mapping[int, str | Bot] | None = None,
        learner: int | Sequence[int] = 0,
        rewards: str | None = None,
        observation: str = "observation",
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer (got {num_envs!r})")
        if observation not in ("observation", "information_state"):
            raise ValueError(
                f"observation must be 'observation' or 'information_state' (got {observation!r})"
            )
        if render_mode is not None:
            raise ValueError("the vector env does not render (see games() and records)")
        if rewards is not None:  # BotOpponentEnv's name (gymnasium.make_vec passes it)
            game_options["returns"] = rewards
        self.game_spec = TrucoGame(game_options)  # (``spec`` is Gymnasium's registration)
        self.num_envs = num_envs
        self.rules = self.game_spec.rules
        self.n = n = self.rules.players
        self.keep_history = keep_history
        enc = self._enc = self.game_spec.encoder
        self.observation_size = enc.observation_shape[0]
        #: ``observation="information_state"``: the encoder's information-state tensor of
        #: each seat's view instead (perfect recall within the hand), made per game: slower
        self.observation_kind = observation
        shape = (
            enc.observation_shape if observation == "observation" else enc.information_state_shape
        )
        self.single_observation_space = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.learner = (learner,) if isinstance(learner, int) else tuple(learner)
        if opponent is not None and (
            not self.learner
            or any(not 0 <= s < n for s in self.learner)
            or len({s & 1 for s in self.learner}) != 1
        ):
            raise ValueError(f"the learner's seats must be seats of one team (0 to {n - 1})")
        self._opponent = opponent
        #: each game's bot per seat (None: a seat the caller plays)
        self._bots: list[list[Bot | None]] = []
        self._learner_team = self.learner[0] & 1 if opponent is not None else -1
        self._off = off = enc.observation_offsets
        self._seed(seed)
        self._megaphone = self.game_spec.megaphone
        self._says = self.game_spec.says_per_seat
        # who said a word last in each game: a word keeps the turn (None: no word)
        self._speaker: list[int | None] = [None] * num_envs
        self._games: list[Game] = []
        self._hands = [0] * num_envs  # hands closed in each game's episode
        self._legal: list[tuple[int, ...]] = []  # each game's legal actions now
        # each game's head of the observation per seat (see _head), for hand _head_hand[i]
        self._heads: list[list[tuple[int, ...] | None]] = [[None] * n for _ in range(num_envs)]
        self._head_hand = [-1] * num_envs
        self._finals: dict[int, Game] = {}  # the games that ended in this step
        self._carry: dict[int, float] = {}  # team 0's points to pay with a game's next step
        self._resetting = False
        self.observations = np.zeros((num_envs, self.observation_size), dtype=np.float32)
        self.action_masks = np.zeros((num_envs, NUM_ACTIONS), dtype=bool)
        self.players = np.zeros(num_envs, dtype=np.int64)
        self._chunks = [(lo, min(lo + _CHUNK, num_envs)) for lo in range(0, num_envs, _CHUNK)]
        self._repeat_rows = np.arange(_CHUNK)
        self._sign = np.array([1.0 if s % 2 == 0 else -1.0 for s in range(n)], dtype=np.float32)
        self._hand_col = off["hand"]
        self._o_outcome, self._o_pica = off["outcome"], off["pica"]
        self._o_envido = off["envido_open"]
        self._viewers = tuple(self._viewer(me) for me in range(n))

    def _viewer(self, me: int) -> _Viewer:
        off, n = self._off, self.n
        rel = [(s - me) % n for s in range(n)]
        team = me & 1
        seats = range(n)
        t1 = self.rules.target + 1

        def seat_cols(at: int) -> tuple[int, ...]:
            return tuple(at + rel[s] for s in seats)

        def by_team(at: int, size: int, rival_at: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
            own = tuple(range(at, at + size))
            rival = tuple(range(rival_at, rival_at + size))
            return (own, rival) if team == 0 else (rival, own)

        return _Viewer(
            seat=off["seat"] + me,
            mano=seat_cols(off["mano"]),
            score=by_team(off["score"], t1, off["score"] + t1),
            chicos=by_team(off["chicos"], 3, off["chicos"] + 3),
            round=seat_cols(off["round"]),
            dealt=tuple(range(off["dealt"], off["dealt"] + 40)),
            held=tuple(range(off["held"], off["held"] + 40)),
            played=tuple(
                tuple(tuple(range(at + rel[s] * 40, at + rel[s] * 40 + 40)) for s in seats)
                for at in (off["played"] + b * n * 40 for b in range(3))
            ),
            calls=(
                tuple(off["calls"] + ((team != 0) * _CALLS + k) * 2 for k in range(_CALLS)),
                tuple(off["calls"] + ((team != 1) * _CALLS + k) * 2 for k in range(_CALLS)),
            ),
            heard=tuple(off["heard"] + rel[s] * _WORDS if s & 1 == team else -1 for s in seats),
            showdown=tuple(
                tuple(range(at, at + _TANTO_SLOTS))
                for at in (off["showdown"] + rel[s] * _TANTO_SLOTS for s in seats)
            ),
            pending_kind=tuple(range(off["pending"], off["pending"] + 5)),
            pending_team=(off["pending"] + 5 + (team != 0), off["pending"] + 5 + (team != 1)),
            pending_level=tuple(range(off["pending"] + 7, off["pending"] + 11)),
            turn=seat_cols(off["turn"]),
            actors=seat_cols(off["actors"]),
            in_hand=seat_cols(off["in_hand"]),
            flor=seat_cols(off["flor"]),
            truco_level=tuple(range(off["truco"], off["truco"] + 4)),
            truco_owner=(
                off["truco"] + 4 + 1 + (team != 0),
                off["truco"] + 4 + 1 + (team != 1),
                off["truco"] + 4,
            ),
            baza_results=tuple(
                (
                    off["bazas"] + 3 * b + (team != 0),
                    off["bazas"] + 3 * b + (team != 1),
                    off["bazas"] + 3 * b + 2,
                )
                for b in range(3)
            ),
        )

    # ------------------------------------------------------------------ randomness
    def _seed(self, seed: int | None) -> None:
        self._rng = self._np_random = np.random.default_rng(seed)
        self._np_random_seed = seed
        batch = 4 * self.num_envs + 16
        self._dealer = _BatchDealer(self._rng, self.n, batch)
        self._coins = _Coins(self._rng, batch)
        if self._opponent is not None:
            self._bots = [self._make_bots(i, seed) for i in range(self.num_envs)]

    def _make_bots(self, i: int, seed: int | None) -> list[Bot | None]:
        spec = self._opponent
        bots: list[Bot | None] = []
        for s in range(self.n):
            if s in self.learner:
                bots.append(None)
                continue
            chosen = spec.get(s, "random") if isinstance(spec, Mapping) else spec
            assert chosen is not None
            bot_seed = None if seed is None else (seed * 1_000_003 + i) * 31 + s
            bots.append(chosen if isinstance(chosen, Bot) else make_bot(chosen, bot_seed))
        return bots

    def _new_game(self, i: int) -> Game:
        """A new match for game ``i`` (its first hand dealt)."""
        mano = self.game_spec.first_mano
        if mano == RANDOM_MANO:
            mano = int(self._coins.draw() * self.n)
        self._hands[i] = 0
        self._head_hand[i] = -1
        self._speaker[i] = None
        return Game(self.rules, first_mano=mano, dealer=self._dealer)

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal ``num_envs`` new games; the observation of each game's first seat to act
        (with bots: the learner's) and ``info`` with ``action_mask`` and ``player``."""
        if seed is not None:
            self._seed(seed)
        self._games = [self._new_game(i) for i in range(self.num_envs)]
        self._legal = [() for _ in range(self.num_envs)]
        self._carry = {}
        self._finals.clear()
        self._resetting = True
        try:
            self._play_and_observe(None)
        finally:
            self._resetting = False
            self._finals.clear()  # episodes the bots ended before the learner's first move
        return self._observed(), self._info()

    def step(
        self, actions: np.ndarray | list[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply one action in every game (``actions[i]`` for the seat ``player[i]``),
        then, with bots, their moves until a learner's seat must act again.

        Returns ``(observations, rewards, terminated, truncated, info)``. ``rewards[i]``:
        what the team of the seat that acted received (with bots: the learner's team),
        the bots' moves included; ``info["rewards"]`` is ``(num_envs, players)``, what
        every seat received (team-zero-sum). ``terminated[i]``: the match of game ``i``
        was won; ``truncated[i]``: it reached ``max_hands`` (a time limit). Either way it
        is dealt again at once (Gymnasium's same-step autoreset): the observation is the
        new game's, ``info["final_obs"][i]`` the last one of the old (``info["_final_obs"]``
        marks them). An action outside a mask raises ``ValueError`` naming the game, and
        no game moves."""
        acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got {acts.shape[0]}")
        if not self._games:
            raise ValueError("call reset() first")
        actions_list = acts.tolist()
        if not all(map(tuple.__contains__, self._legal, actions_list)):
            bad = next(i for i, a in enumerate(actions_list) if a not in self._legal[i])
            raise ValueError(f"game {bad}: action {actions_list[bad]} is not legal now")
        acted = self.players.copy()
        carried, self._carry = self._carry, {}
        paid, pay, ended, cut = self._play_and_observe(actions_list)
        paid += carried
        pay += carried.values()
        team0 = np.zeros(self.num_envs, dtype=np.float32)
        if paid:
            np.add.at(team0, paid, pay)
        if self._learner_team >= 0:
            rewards = team0 if self._learner_team == 0 else -team0
        else:
            rewards = team0 * self._sign[acted] + 0.0  # (no -0.0)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        if ended:
            terminated[ended] = True
        if cut:
            truncated[cut] = True
        info = self._info()
        info["rewards"] = np.multiply.outer(team0, self._sign)
        if self._finals:
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i, g in self._finals.items():
                seat = int(acted[i])
                final_obs[i] = self._encode(g, seat)
            info["final_obs"] = final_obs
            info["_final_obs"] = terminated | truncated
            self._finals.clear()
        return self._observed(), rewards, terminated, truncated, info

    def _encode(self, g: Game, seat: int) -> np.ndarray:
        """The tensor of ``seat``'s view of ``g`` as the encoder makes it."""
        if self.observation_kind == "observation":
            return self._enc.observation_tensor(seat_view(g, seat))
        return self._enc.information_state_tensor(seat_view(g, seat))

    def _observed(self) -> np.ndarray:
        """The step's observations: the ones written from the engine, or with
        ``observation="information_state"`` the information states of the same seats."""
        if self.observation_kind == "observation":
            return self.observations
        players = self.players.tolist()
        return np.stack([self._encode(g, s) for g, s in zip(self._games, players, strict=True)])

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A legal action per game, uniformly at random (for baselines and tests)."""
        draws = rng.random(self.num_envs).tolist()
        return np.array(
            [legal[int(u * len(legal))] for legal, u in zip(self._legal, draws, strict=True)],
            dtype=np.int64,
        )

    def games(self) -> list[Game]:
        """The engine games (read them, do not change them): debugging, and records with
        ``keep_history=True``."""
        return list(self._games)

    def _info(self) -> dict[str, np.ndarray]:
        return {"action_mask": self.action_masks, "player": self.players.copy()}

    def _fresh(self) -> tuple[np.ndarray, np.ndarray]:
        """New zeroed arrays for the step (the caller may keep the last ones)."""
        obs = np.zeros((self.num_envs, self.observation_size), dtype=np.float32)
        masks = np.zeros((self.num_envs, NUM_ACTIONS), dtype=bool)
        self.observations, self.action_masks = obs, masks
        return obs, masks

    # ------------------------------------------------------------------ observing
    def _play_and_observe(
        self, actions: list[int] | None
    ) -> tuple[list[int], list[float], list[int], list[int]]:
        """Apply each game's action (``None``: none, after a reset), deal a new match
        where one ended, then pick each game's seat to act and write its observation and
        mask into fresh arrays. One game at a time, all of it: a game's memory is
        touched once per step (with a thousand games it does not stay in cache between
        two passes). The columns are noted and written a chunk of games at a time, so
        the few thousand int objects they need are reused while in cache. Returns the
        games whose step paid (what team 0 received there; team 1, the opposite) and the
        games that ended (a match won) and those cut (``max_hands``)."""
        obs, masks = self._fresh()
        games, speaker, all_legal = self._games, self._speaker, self._legal
        players = self.players.tolist()
        megaphone = self._megaphone
        cap = self._enc.max_hands
        head_hand, heads = self._head_hand, self._heads
        indices, head_of, hand_col = self._indices, self._head, self._hand_col
        seats_range = range(self.n)
        paid: list[int] = []
        pay: list[float] = []
        ended: list[int] = []
        cut: list[int] = []
        bots = self._bots
        for lo, hi in self._chunks:
            seats: list[int] = []
            flat: list[int] = []
            counts: list[int] = []
            legal: list[int] = []
            legal_counts: list[int] = []
            hand_fractions: list[float] = []
            for i in range(lo, hi):
                g = games[i]
                if actions is not None:
                    hand = g.hand_index
                    action = actions[i]
                    g.push(players[i], action)
                    if megaphone:
                        speaker[i] = players[i] if action >= SAY_FIRST else None
                    if g.hand_index != hand or g.winner is not None:
                        g = self._hand_closed(i, g, paid, pay, ended, cut)
                actors = g.actors()
                if len(actors) == 1 and speaker[i] is None:
                    seat = actors[0]
                else:
                    seat = self._pick(i, actors)
                if bots and bots[i][seat] is not None:
                    g, seat, actors = self._bots_play(i, g, seat, paid, pay, ended, cut)
                seats.append(seat)
                acts = g.legal_actions(seat, megaphone=megaphone)
                if megaphone:
                    acts = self._words_left(g, seat, acts)
                all_legal[i] = tuple(acts)  # untracked by the collector, unlike a list
                legal += acts
                legal_counts.append(len(acts))
                hand = g.hand_index
                seat_heads = heads[i]
                if head_hand[i] != hand:  # a new hand: its heads are made as seats act
                    head_hand[i] = hand
                    for s in seats_range:
                        seat_heads[s] = None
                head = seat_heads[seat]
                if head is None:
                    head = seat_heads[seat] = head_of(g, seat)
                start = len(flat)
                flat += head
                indices(g, seat, actors, flat)
                counts.append(len(flat) - start)
                hand_fractions.append(min(hand, cap) / cap)
            if hi - lo == 1:  # one game: written item by item, cheaper than numpy calls
                self.players[lo] = seats[0]
                row: Any = memoryview(obs[lo])  # float items (typeshed says int)
                row[hand_col] = hand_fractions[0]
                for c in flat:
                    row[c] = 1.0
                row = memoryview(masks[lo])
                for a in legal:
                    row[a] = True
            else:
                self.players[lo:hi] = seats
                obs[lo:hi, hand_col] = hand_fractions
                rows = self._repeat_rows[: hi - lo]
                masks[lo:hi][np.repeat(rows, legal_counts), legal] = True
                obs[lo:hi][np.repeat(rows, counts), flat] = 1.0
        return paid, pay, ended, cut

    def _bots_play(
        self,
        i: int,
        g: Game,
        seat: int,
        paid: list[int],
        pay: list[float],
        ended: list[int],
        cut: list[int],
    ) -> tuple[Game, int, tuple[int, ...]]:
        """The bots of game ``i`` act from ``seat`` on until a learner's seat must act:
        the game to go on with, that seat and the seats that may act."""
        bots, rules = self._bots[i], self.rules
        bot = bots[seat]
        while bot is not None:
            action = bot.choose(seat_view(g, seat), g.legal_actions(seat), rules)
            hand = g.hand_index
            g.push(seat, action)
            self._speaker[i] = None
            if g.hand_index != hand or g.winner is not None:
                g = self._hand_closed(i, g, paid, pay, ended, cut)
            actors = g.actors()
            seat = actors[0] if len(actors) == 1 else self._pick(i, actors)
            bot = bots[seat]
        return g, seat, g.actors()

    def _hand_closed(
        self, i: int, g: Game, paid: list[int], pay: list[float], ended: list[int], cut: list[int]
    ) -> Game:
        """Game ``i``'s last action closed a hand (the game dealt the next one, unless
        the match is over): note what it paid, and deal a new match if the episode is
        over (``ended``: won; ``cut``: ``max_hands`` reached). Returns the game to go on
        with."""
        self._hands[i] += 1
        last = g.history[-1]
        if not self.keep_history:
            g.history.clear()  # now, while it is in cache
        amount = None
        if self.game_spec.returns_per == "hand":
            points = last.points
            amount = float(points[0] - points[1])
        elif g.winner is not None:
            amount = 1.0 - 2.0 * g.winner
        if amount is not None:
            if self._resetting or i in self._finals:
                # closed by the bots before the learner's first move of a new episode:
                # paid with its first step, as BotOpponentEnv pays it
                self._carry[i] = self._carry.get(i, 0.0) + amount
            else:
                paid.append(i)
                pay.append(amount)
        max_hands = self.game_spec.max_hands
        if g.winner is not None or (max_hands and self._hands[i] >= max_hands):
            (ended if g.winner is not None else cut).append(i)
            self._finals[i] = g
            g = self._games[i] = self._new_game(i)
        return g

    def _pick(self, i: int, actors: tuple[int, ...]) -> int:
        """Who acts in game ``i`` when a word was said or several partners may answer:
        the one who said the word keeps the turn, else chance picks a partner."""
        said = self._speaker[i]
        if said is not None and said in actors:
            return said
        if len(actors) == 1:
            return actors[0]
        return actors[int(self._coins.draw() * len(actors))]

    def _words_left(self, g: Game, seat: int, acts: list[int]) -> list[int]:
        """The legal actions without the megaphone words once the seat has said
        ``says_per_seat`` of them this hand."""
        if acts[-1] < SAY_FIRST:
            return acts
        if sum(1 for s, a in g.actions if s == seat and a >= SAY_FIRST) < self._says:
            return acts
        return [a for a in acts if a < SAY_FIRST]

    def _head(self, g: Game, me: int) -> tuple[int, ...]:
        """The ones of the hand's head (seat, mano, score, chicos, pica-pica, round, cards
        dealt) for seat ``me``: they change only between hands (in a pica-pica hand a
        seat acts in its own round only), so they are kept per hand and seat."""
        v = self._viewers[me]
        score, chicos = g.score, g.chicos
        head = [
            v.seat,
            v.mano[g.mano],
            v.score[0][score[0]],
            v.score[1][score[1]],
            v.chicos[0][chicos[0]],
            v.chicos[1][chicos[1]],
            self._o_outcome,  # the match goes on
        ]
        if g.pica_started and not g.chico_over:
            head.append(self._o_pica)
        if g.pica_now:
            head.append(self._o_pica + 1)
        head += map(v.round.__getitem__, g.round_seats)
        head += map(v.dealt.__getitem__, g.dealt[me])
        return tuple(head)  # kept for the hand: a tuple of ints, which the collector untracks

    def _indices(self, g: Game, me: int, actors: tuple[int, ...], out: list[int]) -> None:
        """Append to ``out`` the columns of the ones of the observation tensor of seat
        ``me`` at a decision of ``g`` (a dealt hand, the match going on) besides the
        head and the hand number, as :meth:`Encoder.observation_tensor` writes them from
        the seat's view: the same fields, read from the engine (a test compares the two
        on thousands of positions of every table)."""
        v = self._viewers[me]
        add = out.append
        cols = v.held
        for c in g.cards[me]:
            add(cols[c])
        for b, baza in enumerate(g.bazas):
            played = v.played[b]
            for s, c in baza:
                add(played[s][c])
        if g.actions:
            self._calls_and_tantos(g, v, add)
        pending = g.pending
        if pending:
            kind, team, level = pending[-1]
            add(v.pending_kind[kind])
            add(v.pending_team[team])
            add(v.pending_level[level])
        elif g.turn is not None:
            add(v.turn[g.turn])
        add(v.truco_level[g.truco_level])
        owner = g.truco_owner
        add(v.truco_owner[-1 if owner is None else owner])
        cols = v.actors
        for s in actors:
            add(cols[s])
        cols, flor = v.in_hand, v.flor
        for s, there in enumerate(g.in_hand):
            if there:
                add(cols[s])
        for s, sung in enumerate(g.flor_sung):
            if sung:
                add(flor[s])
        for b, r in enumerate(g.baza_results):
            add(v.baza_results[b][r])
        if (  # g.why_envido_closed() is None, inlined
            g.envido_stage == _OPEN
            and not g.baza_index
            and not g.truco_level
            and not g.has_played[g.round_dealer]
        ):
            add(self._o_envido)

    @staticmethod
    def _calls_and_tantos(g: Game, v: _Viewer, add: Callable[[int], None]) -> None:
        """The calls made by each team (each counted twice at most), the words the
        viewer's team said and the tantos declared."""
        counted: dict[int, int] | None = None
        calls, heard = v.calls, v.heard
        for s, a in g.actions:
            if a < 40:
                continue
            if a >= SAY_FIRST:  # a word: heard by its team only
                col = heard[s]
                if col >= 0:
                    add(col + a - SAY_FIRST)
                continue
            col = calls[s & 1][a - 40]
            if counted is None:
                counted = {col: 1}
                add(col)
            else:
                k = counted.get(col, 0)
                if k < 2:
                    counted[col] = k + 1
                    add(col + k)
        cols = v.showdown
        for showdown in g.showdowns:
            for d in showdown:
                add(cols[d.seat][_TANTO_SLOTS - 1 if d.tanto is None else d.tanto])
