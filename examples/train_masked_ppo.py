"""Train a masked-PPO agent (sb3-contrib's ``MaskablePPO``) against a bot of the project,
then measure it with ``truco arena`` as the bot ``ppo:PATH``.

The agent plays one-hand episodes by default (``--hands 1``, the first mano drawn at
random, the reward the hand's points difference; ``--hands 0 --rewards match`` trains on
whole matches, +1/-1 at the end) in :class:`truco.rl.env.MaskedBotEnv` against the
``--opponents`` (one per parallel environment, in turn), acting only among the legal
actions (``action_masks()``). The trained model is saved with its table and seated by
:class:`truco.rl.policy_bot.PolicyBot` (greedy) for whole matches in the arena: duplicate
pairs, the deals of a pair played twice with the seats swapped.

    pip install torch==2.13.0            # the CPU build (a plain "torch" pulls CUDA, GBs)
    pip install -e '.[ppo]'              # sb3-contrib
    python examples/train_masked_ppo.py --timesteps 250000 --seed 0 --out ppo_1v1.zip
    truco arena ppo:ppo_1v1.zip simple --matches 1000 --seed 1

Figures of a run are in docs/research.md. ``--timesteps`` makes a run reproducible from
its seed (one thread, the same versions of torch and sb3-contrib); ``--minutes`` caps the
wall time instead, and then the result depends on the machine's speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, choices=(2, 4, 6), default=2)
    p.add_argument("--flor", action="store_true", help="a table con flor")
    p.add_argument(
        "--opponents", default="simple", help="bots to train against, comma separated (simple)"
    )
    p.add_argument(
        "--hands", type=int, default=1, help="hands per training episode (0: whole matches)"
    )
    p.add_argument(
        "--rewards",
        choices=("hand", "match"),
        default="hand",
        help="hand: each hand's points difference; match: +1/-1 when the match ends",
    )
    p.add_argument("--timesteps", type=int, default=250_000, help="learner decisions to train on")
    p.add_argument("--minutes", type=float, default=None, help="stop training after this long")
    p.add_argument("--n-envs", type=int, default=8, help="environments stepped together")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="ppo_agent.zip", help="where to save the model")
    p.add_argument(
        "--eval", default="simple,search:easy", help="bots to measure against in the arena"
    )
    p.add_argument("--eval-matches", type=int, default=400, help="arena matches per bot (0: none)")
    p.add_argument("--eval-seed", type=int, default=1)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor
    except ImportError:
        print("this example needs sb3-contrib: pip install -e '.[ppo]'", file=sys.stderr)
        return 2

    from truco.rl.env import MaskedBotEnv

    torch.set_num_threads(1)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    team = tuple(range(0, args.players, 2))

    def make(i: int) -> Any:
        return lambda: MaskedBotEnv(
            players=args.players,
            flor=args.flor,
            learner=team,
            opponent=opponents[i % len(opponents)],
            first_mano=-1,
            max_hands=args.hands,
            rewards=args.rewards,
        )

    venv = VecMonitor(DummyVecEnv([make(i) for i in range(args.n_envs)]))
    venv.seed(args.seed)
    model = MaskablePPO(
        "MultiInputPolicy",
        venv,
        seed=args.seed,
        n_steps=512,
        batch_size=512,
        n_epochs=5,
        learning_rate=3e-4,
        ent_coef=0.01,
        gamma=1.0,
        policy_kwargs={"net_arch": [128, 128]},
        device="cpu",
        verbose=0,
    )

    deadline = None if args.minutes is None else time.monotonic() + 60 * args.minutes

    class Progress(BaseCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.started = time.monotonic()
            self.next_report = 0

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_report:
                self.next_report += 25_000
                rewards = [e["r"] for e in self.model.ep_info_buffer] or [0.0]
                mean = sum(rewards) / len(rewards)
                print(
                    f"{self.num_timesteps:>8} decisions {time.monotonic() - self.started:6.0f} s"
                    f"  mean return (last {len(rewards)} episodes) {mean:+.2f}",
                    file=sys.stderr,
                    flush=True,
                )
            return deadline is None or time.monotonic() < deadline

    started = time.monotonic()
    model.learn(total_timesteps=args.timesteps, callback=Progress())
    trained_s = time.monotonic() - started
    from truco.rules import Rules

    model.truco = {
        "rules": Rules(players=args.players, flor=args.flor).to_dict(),
        "observation": "observation",
    }
    out = Path(args.out)
    model.save(out)
    print(
        f"trained on {model.num_timesteps} decisions in {trained_s:.0f} s; saved {out}",
        file=sys.stderr,
    )
    summary: dict[str, Any] = {
        "decisions": model.num_timesteps,
        "train_seconds": round(trained_s),
        "arena": {},
    }
    for bot in [b.strip() for b in args.eval.split(",") if b.strip()]:
        if args.eval_matches > 0:
            summary["arena"][bot] = _arena(out, bot, args)
    print(json.dumps(summary))
    return 0


def _arena(model: Path, bot: str, args: argparse.Namespace) -> dict[str, Any]:
    """``truco arena ppo:MODEL BOT`` with the table of training; its JSON report."""
    import contextlib
    import io

    from truco.cli import main as truco

    argv = ["arena", f"ppo:{model}", bot, "--players", str(args.players)]
    argv += ["--matches", str(args.eval_matches), "--seed", str(args.eval_seed), "--json"]
    if args.flor:
        argv.append("--flor")
    print("truco " + " ".join(argv), file=sys.stderr, flush=True)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = truco(argv)
    if code != 0:
        raise SystemExit(f"truco arena failed ({code})")
    report: dict[str, Any] = json.loads(buffer.getvalue())
    print(json.dumps(report), file=sys.stderr, flush=True)
    return report


if __name__ == "__main__":
    sys.exit(main())
