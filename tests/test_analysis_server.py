"""The browser's post-game analysis: queued on request, worked off the tables' path,
bounded queue, and the answer maps each graded decision to a step of the replay viewer."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import HTTPException

from server_testing import LiveServer, guest_token
from truco.arena.match import play_match
from truco.record import record_from_json
from truco.rules import Rules
from truco.server import ServerConfig
from truco.server.storage.rows import MatchRow
from truco.server.storage.store import Store
from truco.server.web.analysis_api import QUEUE_SIZE, AnalysisService, analyze_for_viewer
from truco.server.web.replays import replay_steps


def _finished_match() -> dict[str, Any]:
    result = play_match(("simple", "random"), Rules(target=15), 3, 0, False, True)
    assert result.record is not None
    return result.record


def _row(match_id: str, record: dict[str, Any]) -> MatchRow:
    now = time.time()
    table = {"rules": record["rules"], "seats": [{"name": "a"}, {"name": "b"}]}
    return MatchRow(match_id, "t", "finished", now, now, 1, 0, table, record)


def test_the_analysis_names_replay_steps_and_says_points_and_chance_apart() -> None:
    record = _finished_match()
    result = analyze_for_viewer(record)
    steps = replay_steps(record_from_json(record))
    assert result["bot"] == "master"  # the top of the ladder
    assert analyze_for_viewer(record, worlds=8)["bot"] == "search:expert-2026"
    assert result["decisions"] and len(result["graph"]) == len(result["decisions"])
    assert set(result["thresholds"]) == {"inaccuracy", "mistake", "blunder"}
    for d in result["decisions"]:
        step = steps[d["replay_step"]]  # the step where the decision's move is made
        assert step["hand"] == d["hand"] and step["action"] == d["chosen"]
        assert d["seat"] == step["seat"]
        assert 0 <= d["points"] <= d["worth"] and 0 <= d["chance"] <= 1
        assert d["grade"] in (None, "inaccuracy", "mistake", "blunder")
        assert d["best"] in d["values"] and d["chosen"] in d["values"]
        assert set(d["values"][d["best"]]) == {"points", "chance"}
    for g in result["graph"]:
        assert 0 <= g["win"] <= 1 and steps[g["replay_step"]]["hand"] == g["hand"]
    for p in result["players"]:
        assert 0 <= p["accuracy"] <= 100
        assert {"inaccuracies", "mistakes", "blunders", "decisions", "name"} <= set(p)


@pytest.mark.slow
def test_the_analysis_is_the_same_as_the_command_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from truco.cli import main

    record = _finished_match()
    web = analyze_for_viewer(record)  # what the page shows, as the server makes it
    path = tmp_path / "match.json"
    path.write_text(json.dumps({**record, "headers": {"seats": ["Ana", "Beto"]}}))
    assert main(["analyze", str(path), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert [d["grade"] for d in web["decisions"]] == [d["grade"] for d in cli["decisions"]]
    assert [p["accuracy"] for p in web["players"]] == [p["accuracy"] for p in cli["players"]]


def test_the_closing_step_keeps_the_bazas_and_the_deciding_card() -> None:
    steps = replay_steps(record_from_json(_finished_match()))
    closing = [s for s in steps if s["closed"] is not None and s["action"].startswith("play ")]
    assert closing
    for step in closing:
        card = step["action"].split()[1]
        played = [c for baza in step["bazas"] for seat, c in baza if seat == step["seat"]]
        assert card in played  # drawn with the hand it decided
        assert len(step["baza_winners"]) == len(step["bazas"])
    for step in steps:
        for winner in step["baza_winners"]:
            assert winner is None or -1 <= winner < 2


def test_a_full_queue_says_so_at_once() -> None:
    record = _finished_match()

    async def scenario() -> None:
        service = AnalysisService()
        for i in range(QUEUE_SIZE):
            assert service.submit(f"m{i}", record)["status"] == "queued"
        assert service.submit("m0", record)["status"] == "queued"  # asked twice: once
        with pytest.raises(HTTPException) as full:
            service.submit("late", record)
        assert full.value.status_code == 503
        assert service.worker is not None
        service.worker.cancel()

    asyncio.run(scenario())


def test_analysis_endpoint_end_to_end(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'truco.sqlite3'}"
    record = _finished_match()
    Store(db).write([_row("done1", record), _row("done2", record)])
    config = ServerConfig(db_url=db, bot_delay=0, http_rate="100000/minute",
                          http_write_rate="100000/minute", analysis_rate="1/hour")  # fmt: skip
    with LiveServer(config) as server:
        url = f"{server.url}/api/matches"
        assert httpx.get(f"{url}/done1/analysis").json() == {"status": "none"}
        anonymous = httpx.post(f"{url}/done1/analysis")  # nobody may keep the worker busy
        assert anonymous.status_code == 401 and anonymous.json()["code"] == "no_session"
        session = {"Authorization": f"Bearer {guest_token(server.url, 'Curioso')}"}
        assert httpx.post(f"{url}/nobody/analysis", headers=session).status_code == 404
        first = httpx.post(f"{url}/done1/analysis", headers=session)
        assert first.status_code == 202 and first.json()["status"] in ("queued", "running")
        deadline = time.monotonic() + 300
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = httpx.get(f"{url}/done1/analysis").json()
            if state["status"] in ("done", "failed"):
                break
            time.sleep(0.5)
        assert state["status"] == "done", state
        analysis = state["analysis"]
        assert {p["seat"] for p in analysis["players"]} == {0, 1}
        assert all("replay_step" in d for d in analysis["decisions"])
        again = httpx.post(f"{url}/done1/analysis", headers=session)  # done: free
        assert again.status_code == 200 and again.json()["analysis"] == analysis
        more = httpx.post(f"{url}/done2/analysis", headers=session)  # past the quota
        assert more.status_code == 429, more.text
        assert more.json()["code"] == "analysis_quota"
        assert more.json()["params"] == {"rate": "1/hour"}
        assert httpx.get(f"{url}/done2/analysis").json() == {"status": "none"}
