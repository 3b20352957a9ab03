import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# tests/e2e/browser_kit.py is importable as ``browser_kit`` from the browser tests
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium per test module (the modules skip without one)."""
    from browser_kit import ARGS, CHROMIUM, sync_api

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()
