"""What every test module shares: tests/ on the import path, and the quick lane.

``pytest -m "not slow"`` is the quick lane (about two minutes): the engine, bots, rules,
records and the server's units. What it leaves out is marked ``slow`` here by module (whole
servers, browsers, clusters, fresh venvs, long searches) or by a test's own
``@pytest.mark.slow``. The whole suite (``python -m pytest``, what CI runs) runs both lanes.
"""

import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests check what holds, not how fast: a shared CI machine may pause any example
# past hypothesis' 200 ms deadline (speed is measured by benchmarks/).
settings.register_profile("truco", deadline=None)
settings.load_profile("truco")

# tests/util.py is importable as ``util`` from every test module
sys.path.insert(0, str(Path(__file__).parent))

#: modules that take more than a few seconds in all, measured with ``--durations``
SLOW_MODULES = frozenset(
    {
        "test_readme_commands",  # fresh venvs
        "test_analysis",
        "test_analysis_server",
        "test_tui_layout",
        "test_tui_remote",
        "test_cluster",
        "test_cluster_bus_stall",
        "test_cluster_keeper",
        "test_cluster_limits",
        "test_cluster_parent",
        "test_cluster_rematch",
        "test_cluster_stop",
        "test_matchmaking_cluster",
        "test_chaos",
        "test_fuzz_http",
        "test_fuzz_ws",
        "test_rl_observer",
        "test_rl_openspiel",
        "test_rl_openspiel_tools",
        "test_rl_mini",
        "test_rl_env",
        "test_rl_ppo_example",
        "test_best_response",
        "test_server_store",
        "test_table_freed",
        "test_backup",
        "test_logs",
        "test_health",
        "test_server_bots",
        "test_tournaments",
        "test_tournaments_cluster",  # two nodes, PostgreSQL and Redis
        "test_moderation_cluster",
        "test_notices_cluster",
        "test_notices",  # servers with streams held open
        "test_friends_challenges",  # a server, a dozen accounts (argon2 each)
        "test_student",
        "test_moderation",  # servers with bans, sessions and a truco admin beside them
        "test_fair_play",  # servers, matches played out, truco serve behind a "balancer"
        "test_accounts",
        "test_server_protocol",
        "test_table_fanout",
        "test_benchmark_bot_tables",
        "test_frame_views",
        "test_tui",
        "test_replay_cli",
        "test_matchmaking_server",
        "test_session_revocation",
        "test_expert_bots",
        "test_cli",
        "test_http_limits",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = item.path
        if "e2e" in path.parts or path.stem in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
