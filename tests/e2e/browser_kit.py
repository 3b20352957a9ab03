"""What the browser tests share: Debian's Chromium, its flags, the two screen sizes,
and a server configuration with quick bots. Skips the module when no Chromium is here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from server_testing import OPEN_PLAY
from truco.server import ServerConfig

CHROMIUM = os.environ.get("TRUCO_CHROMIUM", "/usr/bin/chromium")
#: where the tests keep what each screen showed (docs/online.md, "The browser tests");
#: ``TRUCO_ARTIFACTS`` moves it (a CI's artifact directory)
ARTIFACTS = Path(os.environ.get("TRUCO_ARTIFACTS") or Path(__file__).parent / "artifacts")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}

if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api")
ARTIFACTS.mkdir(parents=True, exist_ok=True)


def config(db: Path) -> ServerConfig:
    """Quick bots, a long turn clock, no bot covering a disconnected player, and room
    for the many guests and tables the tests make from one address."""
    return ServerConfig(
        **OPEN_PLAY,
        db_url=f"sqlite:///{db}",
        bot_delay=0.05,
        turn_seconds=120,
        disconnect_grace=3600,
        http_rate="6000/minute",
        http_write_rate="600/minute",
        max_tables_per_address=200,
    )
