"""Takes docs/images/table.png, the README's picture: a 2v2 table against bots in headless
Chromium (Debian's ``chromium``), a few moves into the first hand.

    python docs/images/screenshot.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

OUT = Path(__file__).with_name("table.png")
PORT = 18777
BASE = f"http://127.0.0.1:{PORT}"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "truco.cli", "serve", "--port", str(PORT),
             "--db", f"sqlite:///{tmp}/shot.sqlite3", "--bot-delay", "0.3"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            for _ in range(300):
                try:
                    httpx.get(f"{BASE}/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=shutil.which("chromium"),
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                )
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(BASE + "/")
                answer = page.request.post(f"{BASE}/api/guest", data={"name": "Ana"})
                assert answer.ok, answer.text()
                table = page.request.post(
                    f"{BASE}/api/tables",
                    data={"rules": {"players": 4, "target": 15}, "seat": 0,
                          "bots": {"1": "simple", "2": "simple", "3": "simple"}},
                )  # fmt: skip
                assert table.ok, table.text()
                page.goto(f"{BASE}/t/{table.json()['id']}")
                page.wait_for_selector("#my-hand button", timeout=30000)
                for _ in range(2):  # a card of ours on the table
                    page.wait_for_selector("#my-hand button:not([disabled])", timeout=30000)
                    page.locator("#my-hand button").first.click()
                    time.sleep(1.5)
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
