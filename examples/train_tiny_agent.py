"""Train a tiny agent against the random bot, with numpy only, and measure it.

A linear softmax policy over the observation tensor of :mod:`truco.rl` (one weight
vector per action, ~35k numbers on a 1v1 table) learns by REINFORCE with a baseline
in :class:`truco.rl.env.BotOpponentEnv`: whole matches against ``random``, the reward
of every hand (its points difference) credited to the decisions of that hand. Its win
rate against ``random`` (greedy play, whole matches, seats alternating) is measured
before, during and after training. The policy is saved as a ``.npz`` that
``make_bot("linear:PATH")`` seats anywhere a bot can sit (``truco arena``, the server).

    .venv/bin/python examples/train_tiny_agent.py --minutes 3 --out tiny.npz

Figures of a run are in docs/research.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

import numpy as np

from truco import Game, Rules
from truco.bots import Bot, make_bot
from truco.rl.env import BotOpponentEnv
from truco.rl.policy_bot import LinearPolicy, PolicyBot
from truco.rl.reinforce import LinearReinforce
from truco.view import seat_view


def play_match(bots: list[Bot], rules: Rules, seed: int, first_mano: int) -> int:
    """One whole match; returns the winning team. Seat ``s`` plays with ``bots[s]``."""
    game = Game(rules, first_mano=first_mano, seed=seed)
    while not game.is_over:
        seat = game.actors()[0]
        legal = game.legal_actions(seat, megaphone=False)
        game.apply(seat, bots[seat].choose(seat_view(game, seat), legal, rules))
    return game.winner


def win_rate(
    policy: LinearPolicy, opponent: str, matches: int, seed: int, greedy: bool = True
) -> tuple[float, float]:
    """The policy's share of matches won against ``opponent`` (greedy or sampling, seats
    and manos alternating), with the half-width of its 95% (Wilson) interval."""
    rules = policy.rules
    wins = 0
    for m in range(matches):
        team = m % 2  # the policy's team
        bots: list[Bot] = []
        for s in range(rules.players):
            if s % 2 == team:
                bots.append(PolicyBot(policy, seed=seed + m, greedy=greedy))
            else:
                bots.append(make_bot(opponent, seed=seed * 7919 + m * rules.players + s))
        wins += (
            play_match(
                bots,
                rules,
                seed=f"eval:{seed}:{m}",
                first_mano=(m // 2) % rules.players,
            )
            == team
        )  # type: ignore[arg-type]
    return wins / matches, wilson_half_width(wins, matches)


def wilson_half_width(wins: int, n: int, z: float = 1.96) -> float:
    """Half the width of the Wilson 95% interval of a proportion (sound at 0 and 1 too)."""
    p = wins / n
    return z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)


def train(
    policy: LinearPolicy,
    opponent: str,
    seconds: float,
    lr: float,
    seed: int,
    eval_matches: int,
    rewards: str = "match",
    stop_after: int | None = None,
) -> list[tuple[int, int, float, float]]:
    """REINFORCE with a running-mean baseline for ``seconds``; returns the learning curve
    ``(matches, decisions, win rate, ±)``, measured after 0, 25, 50, 100, 200, ...
    training matches and at the end (``stop_after``: after that many matches instead of
    a time budget). ``rewards="match"``: every decision of a
    match is credited with its result (+1/-1); ``"hand"``: with its hand's points
    difference / 10."""
    rules = policy.rules
    envs = [  # the learner plays one team, then the other
        BotOpponentEnv(
            opponent=opponent,
            learner=tuple(range(team, rules.players, 2)),
            rewards=rewards,
            **rules.to_dict(),
        )
        for team in (0, 1)
    ]
    learner = LinearReinforce(policy, lr, rewards)
    rng = np.random.default_rng(seed)
    matches, decisions = 0, 0
    curve = [(0, 0, *win_rate(policy, opponent, eval_matches, seed=10_000))]
    print(
        f"matches {0:6d}  decisions {0:8d}  "
        f"win rate vs {opponent}: {curve[0][2]:.3f} ±{curve[0][3]:.3f}",
        flush=True,
    )
    start = time.monotonic()
    next_check = 25
    while True:
        steps = learner.episode(envs[matches % 2], rng)
        matches += 1
        decisions += steps
        elapsed = time.monotonic() - start
        over = matches >= stop_after if stop_after is not None else elapsed >= seconds
        if matches == next_check or over:
            rate, half = win_rate(policy, opponent, eval_matches, seed=10_000 + matches)
            curve.append((matches, decisions, rate, half))
            print(
                f"matches {matches:6d}  decisions {decisions:8d}  "
                f"win rate vs {opponent}: {rate:.3f} ±{half:.3f}"
                f"  ({elapsed:.0f} s)",
                flush=True,
            )
            next_check *= 2
            if over:
                return curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 4, 6))
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--target", type=int, default=30, choices=(15, 30))
    parser.add_argument(
        "--opponent", default="random", help="a bot spec (random, simple, search:easy)"
    )
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument(
        "--eval-matches",
        type=int,
        default=400,
        help="matches per evaluation during training",
    )
    parser.add_argument(
        "--final-matches",
        type=int,
        default=2000,
        help="matches of the final before/after figures",
    )
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument(
        "--rewards",
        default="match",
        choices=("match", "hand"),
        help="what a decision is credited with",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--also",
        nargs="*",
        default=["simple"],
        help="other bots to measure the trained policy against",
    )
    parser.add_argument("--out", default="tiny_agent.npz", help="where to save the trained policy")
    args = parser.parse_args(argv)

    random.seed(args.seed)
    rules = Rules(players=args.players, flor=args.flor, target=args.target)
    policy = LinearPolicy.zeros(rules)  # all weights 0: uniform over the legal actions
    print(
        f"table: {rules.describe()}; policy: linear, {policy.weights.size} weights",
        flush=True,
    )
    # untrained, sampling = uniform over the legal actions: the random bot itself
    before = win_rate(policy, args.opponent, args.final_matches, seed=1, greedy=False)
    train(
        policy,
        args.opponent,
        args.minutes * 60,
        args.lr,
        args.seed,
        args.eval_matches,
        args.rewards,
    )
    policy.save(args.out)
    sampled = win_rate(policy, args.opponent, args.final_matches, seed=1, greedy=False)
    greedy = win_rate(policy, args.opponent, args.final_matches, seed=1)
    print(
        f"win rate vs {args.opponent} over {args.final_matches} matches (same deals):\n"
        f"  before training (uniform):  {before[0]:.3f} ±{before[1]:.3f}\n"
        f"  after, sampling its policy: {sampled[0]:.3f} ±{sampled[1]:.3f}\n"
        f"  after, greedy:              {greedy[0]:.3f} ±{greedy[1]:.3f}\n"
        f"saved {args.out}",
        flush=True,
    )
    for other in args.also:
        untrained = win_rate(
            LinearPolicy.zeros(rules), other, args.final_matches, seed=2, greedy=False
        )
        trained = win_rate(policy, other, args.final_matches, seed=2)
        print(
            f"vs {other}: uniform {untrained[0]:.3f} ±{untrained[1]:.3f}, "
            f"trained (greedy) {trained[0]:.3f} ±{trained[1]:.3f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
