"""The how-to-play page's texts (server/howto.py): the English one is the rule book part
of docs/rules.md, shipped inside the package; both render, with raw HTML off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server_testing import LiveServer
from truco.server import ServerConfig
from truco.server.web.howto import HOWTO, LANGUAGES, howto_html

ROOT = Path(__file__).resolve().parents[1]


def rule_book() -> str:
    """docs/rules.md up to its "Decisions of this project" part."""
    text = (ROOT / "docs" / "rules.md").read_text("utf-8")
    return text.split("\n# Decisions of this project")[0].rstrip().rstrip("-").rstrip() + "\n"


def test_the_packaged_english_text_is_the_rule_book_of_docs_rules_md() -> None:
    shipped = (HOWTO / "en.md").read_text("utf-8")
    assert shipped == rule_book(), (
        "docs/rules.md changed: copy its rule book part to src/truco/server/static/howto/en.md"
    )


def test_both_languages_render_with_headings_and_no_raw_html() -> None:
    for lang in LANGUAGES:
        html = howto_html(lang)
        assert html.startswith("<h1>") and html.count("<h2>") >= 8, lang
        assert "<script" not in html
    assert "<h1>Cómo se juega al truco</h1>" in howto_html("es")
    assert "<strong>Pie</strong>" in howto_html("en")


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(ServerConfig(db_url="sqlite://")) as live:
        yield live


def test_the_page_and_its_text_are_served(server: LiveServer) -> None:
    for path in ("/como-se-juega", "/how-to-play"):
        page = httpx.get(server.url + path)
        assert page.status_code == 200 and '<main id="app">' in page.text
    answer = httpx.get(f"{server.url}/api/howto/en").json()
    assert answer["lang"] == "en" and "Bazas and who wins the hand" in answer["html"]
    for bad in ("fr", "es.md", "ES", "x" * 300):
        refused = httpx.get(f"{server.url}/api/howto/{bad}")
        assert refused.status_code == 404, bad
        assert refused.json()["code"] == "no_language"
        assert refused.json()["detail"].count("x") <= 12  # a long ask is not echoed whole
    escaped = httpx.get(f"{server.url}/api/howto/..%2Fi18n%2Fes")  # no way out of the texts
    assert escaped.status_code == 404 and "html" not in escaped.json()
