import re
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed browser test keeps what every page it had open showed at that moment:
    ``failed-<test>-<n>.png`` next to the other screenshots."""
    report = yield
    browser = getattr(item, "funcargs", {}).get("browser")
    if browser is None:
        return report
    from browser_kit import ARTIFACTS

    name = re.sub(r"[^\w.-]+", "-", item.name)
    if report.when == "setup":  # an earlier run's failure is not this run's
        for old in ARTIFACTS.glob(f"failed-{name}-*.png"):
            old.unlink(missing_ok=True)
    if report.when == "call" and report.failed:
        pages = [page for context in browser.contexts for page in context.pages]
        for n, page in enumerate(pages):
            try:
                page.screenshot(path=str(ARTIFACTS / f"failed-{name}-{n}.png"), full_page=True)
            except Exception:  # a closed or crashed page: nothing to show
                continue
    return report
