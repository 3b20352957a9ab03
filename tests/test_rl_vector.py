"""The vectorized environment: the very observations, masks and rewards of the
OpenSpiel-shaped game, for many games at once."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from truco.actions import MEGAPHONE_WORDS, SAY_FIRST
from truco.rl.encoding import Encoder
from truco.rl.vector import TrucoVectorEnv
from truco.view import seat_view

TABLES = [
    {"players": 2},
    {"players": 2, "flor": True, "target": 15, "chicos": 3},
    {"players": 4, "flor": True, "first_mano": -1},
    {"players": 6, "returns": "hand"},
    {"players": 6, "flor": True, "pica_pica": True, "returns": "hand", "max_hands": 4},
]


def _id(table: dict[str, object]) -> str:
    return ",".join(f"{k}={v}" for k, v in table.items())


@pytest.mark.parametrize(
    ("table", "num_envs"),
    [(table, 12) for table in TABLES] + [(TABLES[1], 1), (TABLES[2], 65)],
    ids=lambda x: _id(x) if isinstance(x, dict) else f"N={x}",
)
def test_observations_and_masks_are_the_encoders_of_the_seat_view(
    table: dict[str, object], num_envs: int
) -> None:
    """Written a chunk of games at a time (one game alone, a chunk of one at the end):
    every row is the encoder's."""
    venv = TrucoVectorEnv(num_envs, seed=3, **table)  # type: ignore[arg-type]
    enc = Encoder(venv.rules)
    rng = np.random.default_rng(3)
    obs, info = venv.reset()
    for _ in range(250):
        for i, game in enumerate(venv.games()):
            seat = int(info["player"][i])
            assert seat in game.actors()
            view = seat_view(game, seat)
            assert np.array_equal(obs[i], enc.observation_tensor(view))
            legal = np.flatnonzero(info["action_mask"][i]).tolist()
            assert legal == sorted(game.legal_actions(seat, megaphone=False))
        obs, _, _, _, info = venv.step(venv.sample_actions(rng))


@pytest.mark.parametrize("table", TABLES, ids=_id)
def test_rewards_and_ends_follow_the_engine(table: dict[str, object]) -> None:
    """Checked on games that keep their hands (``keep_history=True``); the same seed
    without it gives the very same steps."""
    venv = TrucoVectorEnv(8, seed=5, keep_history=True, **table)  # type: ignore[arg-type]
    lean = TrucoVectorEnv(8, seed=5, **table)  # type: ignore[arg-type]
    rng = np.random.default_rng(5)
    venv.reset()
    lean.reset()
    ended = 0
    hands = [0] * venv.num_envs
    for _ in range(400):
        games = venv.games()
        closed = [g.hand_index for g in games]
        actions = venv.sample_actions(rng)
        acted = venv.players.copy()
        obs, team_rewards, terminated, truncated, info = venv.step(actions)
        rewards = info["rewards"]
        for mine, theirs in zip(
            (obs, team_rewards, terminated, truncated, info["action_mask"], info["player"]),
            (*lean.step(actions)[:4], lean.action_masks, lean.players),
            strict=True,
        ):
            assert np.array_equal(mine, theirs)
        assert np.all(rewards.sum(axis=1) * (venv.n // 2) == 0) or venv.n == 2
        # the step's reward is the acting seat's team's
        assert np.array_equal(team_rewards, rewards[np.arange(venv.num_envs), acted])
        for i, g in enumerate(games):
            expected = np.zeros(venv.n)
            if g.hand_index != closed[i] or g.is_over:  # a hand closed
                hands[i] += 1
                if table.get("returns") == "hand":
                    points = g.history[-1].points
                    expected[0::2], expected[1::2] = points[0] - points[1], points[1] - points[0]
                elif g.is_over:
                    expected[g.winner :: 2], expected[1 - g.winner :: 2] = 1.0, -1.0
            assert np.array_equal(rewards[i], expected)
            limit = table.get("max_hands", 0)
            cut = not g.is_over and bool(limit and hands[i] >= limit)  # type: ignore[operator]
            assert terminated[i] == g.is_over and truncated[i] == cut
            over = g.is_over or cut
            assert info.get("_final_obs", np.zeros(venv.num_envs, bool))[i] == over
            if over:
                final = info["final_obs"][i]  # the old game's last observation
                assert np.array_equal(
                    final, Encoder(venv.rules).observation_tensor(seat_view(g, int(acted[i])))
                )
                ended += 1
                hands[i] = 0
                assert venv.games()[i] is not g  # dealt again
    assert ended > 0


@pytest.mark.parametrize("keep_history", [False, True])
def test_the_games_keep_no_hand_or_all_of_them(keep_history: bool) -> None:
    """By default a game keeps no closed hand (the step reads its result as it closes);
    ``keep_history=True`` keeps every hand, so a match's record is whole."""
    venv = TrucoVectorEnv(8, seed=7, keep_history=keep_history, players=4)
    rng = np.random.default_rng(7)
    venv.reset()
    kept = []
    for _ in range(300):
        games = venv.games()
        _, _, terminated, _, _ = venv.step(venv.sample_actions(rng))
        for i, g in enumerate(games):
            closed = g.hand_index + g.is_over  # hands closed in the match
            assert len(g.history) == (closed if keep_history else 0)
            if g.history:
                assert g.history[-1].index == closed - 1
            if terminated[i]:
                kept.append(len(g.history))
    assert kept  # some matches ended
    if keep_history:
        assert min(kept) >= 1 and max(kept) > 1  # whole matches, several hands each
    else:
        assert set(kept) == {0}


def test_an_illegal_action_raises_and_no_game_moves() -> None:
    venv = TrucoVectorEnv(4, seed=1)
    obs, info = venv.reset()
    actions = venv.sample_actions(np.random.default_rng(1))
    actions[2] = int(np.flatnonzero(~info["action_mask"][2])[0])
    before = [list(g.actions) for g in venv.games()]
    with pytest.raises(ValueError, match="game 2"):
        venv.step(actions)
    with pytest.raises(ValueError, match="expected 4 actions"):
        venv.step(actions[:3])
    assert [list(g.actions) for g in venv.games()] == before
    assert np.array_equal(venv.observations, obs)


def test_a_seed_reproduces_the_games() -> None:
    runs = []
    for _ in range(2):
        venv = TrucoVectorEnv(6, seed=11, players=4, first_mano=-1)
        rng = np.random.default_rng(0)
        obs, _ = venv.reset()
        seen = [obs]
        for _ in range(60):
            obs, *_ = venv.step(venv.sample_actions(rng))
            seen.append(obs)
        runs.append(np.stack(seen))
    assert np.array_equal(runs[0], runs[1])


def test_chance_picks_which_partner_answers() -> None:
    """Both partners of a called team get to answer, as in the arena."""
    venv = TrucoVectorEnv(32, seed=2, players=4)
    rng = np.random.default_rng(2)
    _, info = venv.reset()
    picked: dict[tuple[int, ...], set[int]] = {}
    for _ in range(300):
        for i, g in enumerate(venv.games()):
            actors = g.actors()
            if len(actors) > 1:
                picked.setdefault(actors, set()).add(int(info["player"][i]))
        _, _, _, _, info = venv.step(venv.sample_actions(rng))
    assert picked and all(seats == set(actors) for actors, seats in picked.items())


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        TrucoVectorEnv(0)
    with pytest.raises(ValueError, match="reset"):
        TrucoVectorEnv(2).step([0, 0])


MEGAPHONE_TABLES = [
    {"players": 4, "megaphone": True},
    {"players": 6, "flor": True, "megaphone": True, "says_per_seat": 1, "first_mano": -1},
]


@pytest.mark.parametrize("table", MEGAPHONE_TABLES, ids=_id)
def test_the_megaphone_is_legal_heard_by_the_team_only_and_keeps_the_turn(
    table: dict[str, object],
) -> None:
    """With ``megaphone=True`` the masks hold the words a seat may still say (no more
    than ``says_per_seat`` a hand), a word keeps the turn, and the observation is the
    encoder's of the seat's view: it holds the team's words and none of the rivals'
    (the same with every rival word taken out of the log)."""
    venv = TrucoVectorEnv(16, seed=4, **table)  # type: ignore[arg-type]
    says = int(table.get("says_per_seat", 2))  # type: ignore[call-overload]
    enc = Encoder(venv.rules, says)
    heard = enc.observation_offsets["heard"]
    rng = np.random.default_rng(4)
    obs, info = venv.reset()
    words = rival_words = kept = 0
    for _ in range(300):
        for i, game in enumerate(venv.games()):
            seat = int(info["player"][i])
            assert seat in game.actors()
            said = sum(1 for s, a in game.actions if s == seat and a >= SAY_FIRST)
            assert said <= says
            legal = sorted(game.legal_actions(seat, megaphone=True))
            if said == says:
                legal = [a for a in legal if a < SAY_FIRST]
            assert np.flatnonzero(info["action_mask"][i]).tolist() == legal
            view = seat_view(game, seat)
            assert np.array_equal(obs[i], enc.observation_tensor(view))
            rivals = [(s, a) for s, a in game.actions if a >= SAY_FIRST and s & 1 != seat & 1]
            if rivals:
                rival_words += 1
                quiet = dataclasses.replace(
                    view, log=tuple(e for e in view.log if e[1] < SAY_FIRST or e[0] & 1 == seat & 1)
                )
                assert np.array_equal(obs[i], enc.observation_tensor(quiet))
            rows = obs[i, heard : heard + venv.n * len(MEGAPHONE_WORDS)].reshape(venv.n, -1)
            assert not rows[1::2].any()  # relative seats 1, 3, 5: the rivals
        actions = venv.sample_actions(rng)
        before = info["player"].copy()
        obs, _, terminated, _, info = venv.step(actions)
        for i in np.flatnonzero(actions >= SAY_FIRST):
            words += 1
            if not terminated[i]:
                assert info["player"][i] == before[i]  # a word keeps the turn
                kept += 1
    assert words > 100 and rival_words > 100 and kept > 100


def test_it_is_a_gymnasium_vector_env_with_spaces_autoreset_and_truncation() -> None:
    """Issue 32: the vector env was a bespoke API (no ``gymnasium.vector.VectorEnv``,
    no spaces, a ``max_hands`` cut reported as terminated). Gymnasium's own vector
    wrapper reads its episodes: ``RecordEpisodeStatistics`` counts every episode that
    ends, cut or won, by the same-step autoreset the metadata declares."""
    import gymnasium
    from gymnasium.vector import AutoresetMode
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    venv = TrucoVectorEnv(6, seed=1, players=2, returns="hand", max_hands=2)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert venv.single_action_space == gymnasium.spaces.Discrete(61)
    assert venv.action_space.shape == (6,)
    wrapped = RecordEpisodeStatistics(venv)
    obs, info = wrapped.reset(seed=1)
    assert venv.observation_space.contains(obs)
    rng = np.random.default_rng(1)
    episodes = cut = 0
    returns: list[float] = []
    for _ in range(300):
        obs, _, terminated, truncated, info = wrapped.step(venv.sample_actions(rng))
        assert venv.observation_space.contains(obs)
        assert not (terminated & truncated).any()
        episodes += int((terminated | truncated).sum())
        cut += int(truncated.sum())
        if "episode" in info:
            returns += info["episode"]["r"][info["_episode"]].tolist()
            assert (info["episode"]["l"][info["_episode"]] >= 1).all()
    assert cut > 10 and len(returns) == episodes


@pytest.mark.parametrize("table", [{"players": 2}, {"players": 4, "flor": True}], ids=_id)
def test_bots_play_the_other_team_inside_the_step(table: dict[str, object]) -> None:
    """``opponent=``: the caller plays the learner's seats only, the bots the others,
    each game with its own bots; a seed replays the same steps; the reward is the
    learner's team's, and over an episode it is what the engine scored."""
    learner = tuple(range(1, table["players"], 2))  # type: ignore[call-overload]
    make = lambda: TrucoVectorEnv(  # noqa: E731
        8,
        seed=4,
        keep_history=True,
        opponent="simple",
        learner=learner,
        returns="hand",
        max_hands=3,
        **table,
    )
    venv, twin = make(), make()
    enc = Encoder(venv.rules)
    rng = np.random.default_rng(4)
    obs, info = venv.reset(seed=4)
    twin.reset(seed=4)
    totals = np.zeros(venv.num_envs)
    checked = 0
    for _ in range(150):
        for i, game in enumerate(venv.games()):
            seat = int(info["player"][i])
            assert seat in learner and seat in game.actors()
            assert np.array_equal(obs[i], enc.observation_tensor(seat_view(game, seat)))
        actions = venv.sample_actions(rng)
        games = venv.games()
        obs, rewards, terminated, truncated, info = venv.step(actions)
        other = twin.step(actions)
        assert np.array_equal(obs, other[0]) and np.array_equal(rewards, other[1])
        totals += rewards
        assert np.array_equal(rewards, info["rewards"][:, learner[0]])
        for i in np.flatnonzero(terminated | truncated):
            hands = games[i].history  # the episode's game, over: every hand of it was paid
            assert totals[i] == sum(h.points[1] - h.points[0] for h in hands)
            checked += 1
            totals[i] = 0.0
    assert checked > 10
    with pytest.raises(ValueError, match="one team"):
        TrucoVectorEnv(2, opponent="simple", learner=(0, 1))


def test_the_information_state_is_offered_too() -> None:
    """Issue 32: the vector env gave the observation tensor only. With
    ``observation="information_state"`` each row is the encoder's information state of
    the seat that acts, and the spaces say so."""
    venv = TrucoVectorEnv(5, seed=2, players=4, observation="information_state", max_hands=2)
    enc = Encoder(venv.rules)
    assert venv.single_observation_space.shape == enc.information_state_shape
    rng = np.random.default_rng(2)
    obs, info = venv.reset()
    finals = 0
    for _ in range(120):
        assert venv.observation_space.contains(obs)
        for i, game in enumerate(venv.games()):
            view = seat_view(game, int(info["player"][i]))
            assert np.array_equal(obs[i], enc.information_state_tensor(view))
        obs, _, terminated, truncated, info = venv.step(venv.sample_actions(rng))
        for i in np.flatnonzero(terminated | truncated):
            assert info["final_obs"][i].shape == enc.information_state_shape
            finals += 1
    assert finals > 0
    with pytest.raises(ValueError, match="observation must be"):
        TrucoVectorEnv(2, observation="pixels")
