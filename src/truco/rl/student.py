"""Train the student (:mod:`truco.bots.student`) on the search teacher's verdicts.

One reproducible command (it remakes the shipped model to the last digit)::

    nice -n 10 python -m truco.rl.student --seed 1 --matches 300 --worlds 32 --hidden 48 \\
        --epochs 40 --jobs 2 --out src/truco/bots/data/student-v1.json.gz

1. **Positions**: matches between the gauntlet's cheap players and the easy search
   (1v1 and 2v2, sin and con flor, to 15 and to 30, or the tables of ``--tables``; the
   deals fixed by ``--seed``), or ``--players`` (the next round of expert iteration: the
   student itself among them). At a share ``--rate`` of the decisions with more than one
   candidate, the teacher weighs every candidate from that seat's view.
2. **The teacher**: the search of ``search:expert-2026`` (its wary worlds, the table
   read, its prior of the rivals) at ``--worlds`` worlds instead of 240, not adaptive
   (the position comes from a match it did not play). Per candidate it gives the mean
   points of the hand (the team's less the rivals', only those that count) and the mean
   change of the chance of winning the chico over its worlds; with ``--cautious``, a risky
   call's points lowered by the expert's caution (:func:`caution`).
3. **The student**: a one-hidden-layer perceptron (``--hidden`` tanh units) fitted to
   both by least squares (Adam, full passes over the shuffled positions, seeded), the
   last tenth of the positions held out to report its error.

The model is written as ``truco-student/1`` JSON (gzip when the name ends in ``.gz``),
with the command's arguments and the held-out error in its ``meta``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..actions import is_say
from ..arena.match import play_match
from ..bots import Bot, make_bot
from ..bots.search import (
    EXPERT_2026,
    RISKY,
    Evaluation,
    SearchBot,
    best_quiet,
    match_value,
    paired_error,
)
from ..bots.student import (
    FEATURES_VERSION,
    action_features,
    feature_sizes,
    position_features,
)
from ..rules import Rules
from ..view import SeatView

#: Who plays the positions' matches (both teams drawn from these).
PLAYERS = ("simple", "search:easy", "tight", "loose", "station", "scared", "falta")
#: The tables the positions come from, and how often (``--tables``' default).
TABLES = (
    (Rules(players=2, target=15), 4),
    (Rules(players=2, target=30), 3),
    (Rules(players=2, target=15, flor=True), 2),
    (Rules(players=4, target=15), 1),
)
Tables = tuple[tuple[Rules, int], ...]


def parse_table(text: str) -> tuple[Rules, int]:
    """``PLAYERS/TARGET[/flor][:WEIGHT]`` (``6/15:2``: 3v3 to 15, twice as often as a
    table of weight 1) as a table and its weight; a bad one raises ``ValueError``.

    >>> rules, weight = parse_table("2/15/flor:2")
    >>> rules.players, rules.target, rules.flor, weight
    (2, 15, True, 2)
    """
    spec, _, weight = text.partition(":")
    parts = spec.split("/")
    try:
        players, target = int(parts[0]), int(parts[1])
        count = int(weight) if weight else 1
    except (ValueError, IndexError):
        raise ValueError(f"bad table {text!r}: PLAYERS/TARGET[/flor][:WEIGHT]") from None
    if (
        players not in (2, 4, 6)
        or target not in (15, 30)
        or count < 1
        or parts[2:] not in ([], ["flor"])
    ):
        raise ValueError(f"bad table {text!r}: PLAYERS/TARGET[/flor][:WEIGHT]")
    return Rules(players=players, target=target, flor=parts[2:] == ["flor"]), count


def _table_argument(text: str) -> tuple[Rules, int]:
    try:
        return parse_table(text)
    except ValueError as exc:  # argparse's own words would hide which form is wanted
        raise argparse.ArgumentTypeError(str(exc)) from None


#: One weighed candidate: position features, action features, (points, chance).
Row = tuple[list[float], list[float], tuple[float, float]]


def teacher(worlds: int, seed: int) -> SearchBot:
    """The expert-2026 search at ``worlds`` worlds, its rivals its prior model."""
    bot = SearchBot("expert-2026", seed)
    rivals = bot.prior_rivals()
    bot.method = dataclasses.replace(
        EXPERT_2026, worlds=worlds, team_worlds=max(worlds * 3 // 4, 1), adaptive=False
    )
    bot.worlds = worlds
    bot.rivals = rivals
    return bot


def caution(evaluation: Evaluation, cautious: float) -> list[float]:
    """Per candidate, what the expert's caution takes off its value: nothing from a quiet
    move; from a risky call (:data:`~truco.bots.search.RISKY`), enough that it is worth
    more than the best quiet move exactly when the expert would play it over that move
    (its gain past ``cautious`` standard errors of the paired difference, and a gain on the
    fitted worlds and on the wary ones apart, :func:`~truco.bots.search.pays_in_both`).
    The student then learns the call's value as the expert acts on it, not the raw mean
    that a few lucky worlds inflate."""
    actions, samples = evaluation.actions, evaluation.samples
    base = best_quiet(actions, evaluation.values)
    if not cautious or base is None:
        return [0.0] * len(actions)
    split = evaluation.fitted
    out = []
    for i, action in enumerate(actions):
        if action not in RISKY:
            out.append(0.0)
            continue
        diffs = [a - b for a, b in zip(samples[i], samples[base], strict=True)]
        gain = sum(diffs) / len(diffs)
        granted = gain - cautious * paired_error(samples[i], samples[base])
        for part in (diffs[:split], diffs[split:]):
            if part:
                granted = min(granted, sum(part) / len(part))
        out.append(gain - granted)
    return out


def weigh(
    view: SeatView, candidates: Sequence[int], search: SearchBot, cautious: float = 0.0
) -> list[Row]:
    """The teacher's verdict on each candidate of ``view``, as training rows (a risky
    call's points lowered by the teacher's :func:`caution`)."""
    assert view.seat is not None
    team = view.seat & 1
    evaluation = search.evaluate(view, candidates, view.rules)
    penalties = caution(evaluation, cautious)
    target = view.rules.target
    need_m, need_t = target - view.score[team], target - view.score[1 - team]
    before = match_value(need_m, need_t)
    position = position_features(view)
    rows: list[Row] = []
    for action, outcomes, penalty in zip(
        evaluation.actions, evaluation.outcomes, penalties, strict=True
    ):
        points = chance = 0.0
        for mine, theirs in outcomes:
            points += min(mine, need_m) - min(theirs, need_t)
            chance += match_value(need_m - mine, need_t - theirs) - before
        n = len(outcomes)
        rows.append((position, action_features(view, action), (points / n - penalty, chance / n)))
    return rows


class Recorder(Bot):
    """Plays as ``inner`` does; at a share ``rate`` of its real decisions it first asks
    the teacher about every candidate and keeps the rows."""

    name = "recorder"

    def __init__(
        self, inner: Bot, search: SearchBot, rate: float, seed: int, cautious: float = 0.0
    ) -> None:
        super().__init__("default", seed)
        self.inner, self.search, self.rate, self.cautious = inner, search, rate, cautious
        self.rows: list[Row] = []

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        candidates = [a for a in legal if not is_say(a)]
        if len(candidates) > 1 and self.rng.random() < self.rate:
            self.rows.extend(weigh(view, candidates, self.search, self.cautious))
        action = self.inner.choose(view, candidates or legal, rules)
        return action


def _tables(tables: Tables) -> list[Rules]:
    return [rules for rules, weight in tables for _ in range(weight)]


def positions(
    seed: int,
    match: int,
    worlds: int,
    rate: float,
    players: Sequence[str] = PLAYERS,
    tables: Tables = TABLES,
    cautious: float = 0.0,
) -> list[Row]:
    """The rows of match number ``match`` of a run seeded ``seed``, both teams drawn
    from ``players``, its table from ``tables``."""
    rng = random.Random(f"student:{seed}:{match}")
    rules = rng.choice(_tables(tables))
    search = teacher(worlds, rng.randrange(1 << 30))
    recorders = tuple(
        Recorder(
            make_bot(rng.choice(players), rng.randrange(1 << 30)), search, rate, match, cautious
        )
        for _ in range(2)
    )
    play_match((recorders[0], recorders[1]), rules, seed, match, swapped=False)
    return recorders[0].rows + recorders[1].rows


def _positions_job(
    args: tuple[int, int, int, float, tuple[str, ...], Tables, float],
) -> list[Row]:
    return positions(*args)


def fit(
    rows: Sequence[Row], hidden: int, epochs: int, seed: int, holdout: float = 0.1
) -> tuple[dict[str, Any], dict[str, float]]:
    """The perceptron fitted to ``rows`` (model JSON fields) and its held-out errors."""
    rng = np.random.default_rng(seed)
    x = np.array([p + a for p, a, _ in rows], dtype=np.float64)
    y = np.array([t for _, _, t in rows], dtype=np.float64)
    scale = np.maximum(y.std(axis=0), 1e-6)
    y = y / scale
    order = rng.permutation(len(rows))
    cut = int(len(rows) * (1.0 - holdout))
    train, test = order[:cut], order[cut:]
    n_in = x.shape[1]
    w1 = rng.normal(0.0, 1.0 / np.sqrt(n_in), (n_in, hidden))
    b1 = np.zeros(hidden)
    w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 2))
    b2 = np.zeros(2)
    params = [w1, b1, w2, b2]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    lr, beta1, beta2, batch, step = 3e-3, 0.9, 0.999, 256, 0
    for _ in range(epochs):
        rng.shuffle(train)
        for start in range(0, len(train), batch):
            idx = train[start : start + batch]
            xb, yb = x[idx], y[idx]
            h = np.tanh(xb @ w1 + b1)
            err = (h @ w2 + b2 - yb) / len(idx)
            gw2, gb2 = h.T @ err, err.sum(axis=0)
            dh = (err @ w2.T) * (1.0 - h * h)
            grads = [xb.T @ dh + 1e-5 * w1, dh.sum(axis=0), gw2 + 1e-5 * w2, gb2]
            step += 1
            for p, g, m, v in zip(params, grads, moments, squares, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                p -= lr * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-8)

    def rmse(idx: np.ndarray) -> list[float]:
        pred = np.tanh(x[idx] @ w1 + b1) @ w2 + b2
        return [float(v) for v in np.sqrt(((pred - y[idx]) ** 2).mean(axis=0)) * scale]

    base = [float(v) for v in (y[test].std(axis=0) * scale)]
    points, chance = rmse(test)
    errors = {
        "points_rmse": round(points, 4),
        "chance_rmse": round(chance, 5),
        "points_sd": round(base[0], 4),
        "chance_sd": round(base[1], 5),
    }

    def listed(a: np.ndarray) -> Any:
        return np.round(a, 5).tolist()

    model = {
        "w1": listed(w1),
        "b1": listed(b1),
        "w2": listed(w2),
        "b2": listed(b2),
        "scale": [float(v) for v in scale],
    }
    return model, errors


def save_rows(path: str, rows: Sequence[Row]) -> None:
    """Keep ``rows`` in ``path`` (numpy's .npz) for a later :func:`load_rows`."""
    np.savez_compressed(
        path,
        position=np.array([p for p, _, _ in rows], dtype=np.float32),
        action=np.array([a for _, a, _ in rows], dtype=np.float32),
        target=np.array([t for _, _, t in rows], dtype=np.float64),
    )


def load_rows(path: str) -> list[Row]:
    """The rows :func:`save_rows` kept; refused when the features have changed since."""
    try:
        with np.load(path) as data:
            position, action, target = data["position"], data["action"], data["target"]
    except (OSError, ValueError, KeyError) as exc:
        raise SystemExit(f"{path}: not rows kept by --save-rows ({exc})") from None
    sizes = feature_sizes()
    if (position.shape[1], action.shape[1]) != sizes:
        raise SystemExit(f"{path}: rows of other features ({position.shape[1:]}), not {sizes}")
    return [
        (p.tolist(), a.tolist(), (float(t[0]), float(t[1])))
        for p, a, t in zip(position, action, target, strict=True)
    ]


def _progress(done: int, total: int, rows: int, started: float) -> None:
    if done % 10 == 0 or done == total:
        elapsed = time.time() - started
        print(f"student: {done}/{total} matches, {rows} rows, {elapsed:.0f} s", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m truco.rl.student", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--matches", type=int, default=160)
    parser.add_argument("--worlds", type=int, default=64, help="the teacher's worlds")
    parser.add_argument("--rate", type=float, default=0.5, help="share of decisions weighed")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--players",
        nargs="+",
        default=list(PLAYERS),
        help="who plays the positions' matches (expert iteration's next round: the student "
        "among them)",
    )
    parser.add_argument(
        "--tables",
        nargs="+",
        type=_table_argument,
        default=list(TABLES),
        metavar="P/T[/flor][:W]",
        help="the positions' tables and their weights (default: 2/15:4 2/30:3 2/15/flor:2 4/15:1)",
    )
    parser.add_argument(
        "--cautious",
        type=float,
        default=0.0,
        help="lower a risky call's points by the teacher's caution in standard errors "
        "(the expert's 1.0; default 0: the raw means)",
    )
    parser.add_argument(
        "--save-rows", metavar="FILE", help="also keep the weighed rows (.npz) to fit again"
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        default=[],
        metavar="FILE",
        help="rows kept by earlier rounds, fitted with this round's (expert iteration "
        "aggregates its rounds)",
    )
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    started = time.time()
    players = tuple(args.players)
    tables = tuple(args.tables)
    jobs = [
        (args.seed, m, args.worlds, args.rate, players, tables, args.cautious)
        for m in range(args.matches)
    ]
    rows: list[Row] = []
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            for i, chunk in enumerate(pool.imap(_positions_job, jobs)):
                rows.extend(chunk)
                _progress(i + 1, len(jobs), len(rows), started)
    else:
        for i, job in enumerate(jobs):
            rows.extend(_positions_job(job))
            _progress(i + 1, len(jobs), len(rows), started)
    generated = time.time() - started
    if args.save_rows:
        save_rows(args.save_rows, rows)
    for path in args.rows:
        rows.extend(load_rows(path))
    model, errors = fit(rows, args.hidden, args.epochs, args.seed)
    positions_n, actions_n = feature_sizes()
    data = {
        "format": "truco-student/1",
        "features": FEATURES_VERSION,
        "positions": positions_n,
        "actions": actions_n,
        **model,
        "meta": {
            "command": "python -m truco.rl.student "
            + " ".join(sys.argv[1:] if argv is None else argv),
            "rows": len(rows),
            **errors,
        },
    }
    text = json.dumps(data, separators=(",", ":")).encode()
    with open(args.out, "wb") as f:
        f.write(gzip.compress(text, mtime=0) if args.out.endswith(".gz") else text)
    print(
        json.dumps(
            {
                "rows": len(rows),
                "generate_s": round(generated, 1),
                "total_s": round(time.time() - started, 1),
                **errors,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
