"""From match results to the arena's report (pure: no clocks, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .match import MatchResult
from .stats import elo_difference, mean_interval, percentile, wilson_interval


@dataclass(frozen=True)
class BotLine:
    name: str
    match_wins: int
    match_win_rate: float
    ci95: tuple[float, float]
    hand_points: int
    points_per_hand: float
    points_margin: float
    points_margin_ci95: tuple[float, float]
    decision_ms_mean: float
    decision_ms_p95: float
    decisions: int
    decision_cpu_ms_mean: float = 0.0
    decision_cpu_ms_p95: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "match_wins": self.match_wins,
            "match_win_rate": self.match_win_rate,
            "ci95": list(self.ci95),
            "hand_points": self.hand_points,
            "points_per_hand": self.points_per_hand,
            "points_margin_per_hand": self.points_margin,
            "points_margin_ci95": list(self.points_margin_ci95),
            "decision_ms_mean": self.decision_ms_mean,
            "decision_ms_p95": self.decision_ms_p95,
            "decisions": self.decisions,
            "decision_cpu_ms_mean": self.decision_cpu_ms_mean,
            "decision_cpu_ms_p95": self.decision_cpu_ms_p95,
        }


@dataclass(frozen=True)
class ArenaReport:
    matches: int
    pairs: int
    hands: int
    elo_diff: float
    bots: tuple[BotLine, BotLine]
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "matches": self.matches,
            "pairs": self.pairs,
            "hands": self.hands,
            "elo_diff": self.elo_diff,
            "bots": [b.to_json() for b in self.bots],
            **self.extra,
        }

    def table(self) -> str:
        """The report as a text table."""
        head = (
            f"{'bot':<16} {'wins':>6} {'win rate':>9} {'95% CI':>15} {'pts/hand':>9} "
            f"{'margin/hand (95% CI)':>26} {'ms mean':>8} {'ms p95':>8} {'cpu p95':>8}"
        )
        lines = [head, "-" * len(head)]
        for b in self.bots:
            ci = f"{b.ci95[0]:.3f}-{b.ci95[1]:.3f}"
            lo, hi = b.points_margin_ci95
            margin = f"{b.points_margin:+.3f} ({lo:+.3f},{hi:+.3f})"
            lines.append(
                f"{b.name:<16} {b.match_wins:>6} {b.match_win_rate:>9.3f} {ci:>15} "
                f"{b.points_per_hand:>9.3f} {margin:>26} {b.decision_ms_mean:>8.2f} "
                f"{b.decision_ms_p95:>8.2f} {b.decision_cpu_ms_p95:>8.2f}"
            )
        pairs = "pair" if self.pairs == 1 else "pairs"
        lines.append(
            f"{self.matches} matches ({self.pairs} duplicate {pairs}, {self.hands} hands); "
            f"Elo difference {self.bots[0].name} - {self.bots[1].name}: {self.elo_diff:+.0f}"
        )
        return "\n".join(lines)


@dataclass(frozen=True)
class GauntletReport:
    """One bot against each opponent of the gauntlet: its line against each, and its
    worst and mean match win rate over them."""

    bot: str
    reports: list[tuple[str, ArenaReport]]

    @property
    def win_rates(self) -> list[float]:
        return [r.bots[0].match_win_rate for _, r in self.reports]

    @property
    def minimum(self) -> tuple[str, float]:
        rival, report = min(self.reports, key=lambda item: item[1].bots[0].match_win_rate)
        return rival, report.bots[0].match_win_rate

    @property
    def mean(self) -> float:
        rates = self.win_rates
        return sum(rates) / len(rates) if rates else 0.0

    def to_json(self) -> dict[str, Any]:
        rival, worst = self.minimum
        return {
            "bot": self.bot,
            "opponents": [{"opponent": name, **r.to_json()} for name, r in self.reports],
            "min_win_rate": worst,
            "min_opponent": rival,
            "mean_win_rate": self.mean,
        }

    def table(self) -> str:
        """One line per opponent: the bot's wins, win rate, interval and margin."""
        head = (
            f"{'opponent':<14} {'matches':>7} {'wins':>5} {'win rate':>9} {'95% CI':>13} "
            f"{'margin/hand (95% CI)':>26} {'cpu p95':>7}"
        )
        lines = [head, "-" * len(head)]
        for name, r in self.reports:
            b = r.bots[0]
            ci = f"{b.ci95[0]:.3f}-{b.ci95[1]:.3f}"
            lo, hi = b.points_margin_ci95
            margin = f"{b.points_margin:+.3f} ({lo:+.3f},{hi:+.3f})"
            lines.append(
                f"{name:<14} {r.matches:>7} {b.match_wins:>5} {b.match_win_rate:>9.3f} {ci:>13} "
                f"{margin:>26} {b.decision_cpu_ms_p95:>7.1f}"
            )
        rival, worst = self.minimum
        lines.append(
            f"{self.bot}: minimum win rate {worst:.3f} (against {rival}), mean {self.mean:.3f}"
        )
        return "\n".join(lines)


def summarize(names: tuple[str, str], results: Sequence[MatchResult]) -> ArenaReport:
    """The report of a set of matches between bot 0 and bot 1.

    Match wins get a Wilson interval; the hand-point margin (points scored minus points
    conceded, per hand) is averaged per duplicate pair, and its interval is over pairs,
    so the luck of the deals cancels inside each pair.
    """
    n = len(results)
    wins = [sum(1 for r in results if r.winner_bot == b) for b in (0, 1)]
    hands = sum(r.hands for r in results)
    points = [sum(r.hand_points[b] for r in results) for b in (0, 1)]
    by_pair: dict[int, list[MatchResult]] = {}
    for r in results:
        by_pair.setdefault(r.pair, []).append(r)
    margins = []  # bot 0's margin per hand, one value per pair
    for pair in by_pair.values():
        pair_hands = sum(r.hands for r in pair)
        margins.append(sum(r.hand_points[0] - r.hand_points[1] for r in pair) / max(1, pair_hands))
    mean, lo, hi = mean_interval(margins)
    lines = []
    for b in (0, 1):
        sign = 1 if b == 0 else -1
        times_ms = [t * 1000 for r in results for t in r.decision_s[b]]
        cpu_ms = [t * 1000 for r in results for t in r.decision_cpu_s[b]]
        rate = wins[b] / n if n else 0.0
        lines.append(
            BotLine(
                name=names[b],
                match_wins=wins[b],
                match_win_rate=rate,
                ci95=wilson_interval(wins[b], n),
                hand_points=points[b],
                points_per_hand=points[b] / hands if hands else 0.0,
                points_margin=sign * mean,
                points_margin_ci95=(lo, hi) if b == 0 else (-hi, -lo),
                decision_ms_mean=sum(times_ms) / len(times_ms) if times_ms else 0.0,
                decision_ms_p95=percentile(times_ms, 95),
                decisions=len(times_ms),
                decision_cpu_ms_mean=sum(cpu_ms) / len(cpu_ms) if cpu_ms else 0.0,
                decision_cpu_ms_p95=percentile(cpu_ms, 95),
            )
        )
    elo = elo_difference(wins[0] / n, n) if n else 0.0
    return ArenaReport(n, len(by_pair), hands, elo, (lines[0], lines[1]))
