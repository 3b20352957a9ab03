"""The real ``truco serve`` killed with SIGKILL at random moments while people and bots
play, and started again: nothing a client was told is lost, clients resync by version, and
the matches end as the engine says (the long run: ``benchmarks/chaos.py --kills 200``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from chaos_monkey import ChaosRun, compare
from databases import db_url

__all__ = ["db_url"]  # the fixture, from databases


def test_compare_counts_lost_and_skipped_actions() -> None:
    stored = [(0, 0, "play 1e"), (0, 1, "truco"), (0, 0, "quiero")]
    assert compare(stored[:2], stored) == (0, 0)
    assert compare([*stored, (0, 1, "play 7o")], stored) == (1, 0)  # told, not stored
    assert compare([stored[0], stored[2]], stored) == (0, 1)  # a resync skipped one


def test_kill_nine_many_times_loses_nothing(db_url: str, tmp_path: Path) -> None:
    run = ChaosRun(db_url, kills=3, seed=7, tables=3, up=(0.3, 1.0), log_dir=tmp_path)
    report = asyncio.run(run.run())
    assert report.kills == 3 and report.restarts == 3
    assert report.actions_told > 0, "the clients played nothing"
    assert report.ok, report.to_json()
