"""How to play, on the web: ``GET /api/howto/{lang}`` is the page's rules text in HTML.

The texts ship with the package (``static/howto/<lang>.md``): the English one is the rule
book part of the project's ``docs/rules.md``, copied as it is (``tests/test_howto.py``
fails when the two differ); the Spanish one is a concise how-to-play written from it.
They are rendered once, with raw HTML off (markdown-it-py, CommonMark and tables).
"""

from __future__ import annotations

import functools
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from markdown_it import MarkdownIt

from ..refusals import refusals

HOWTO = Path(__file__).parents[1] / "static" / "howto"
LANGUAGES = ("es", "en")

router = APIRouter(prefix="/api")


@functools.cache
def howto_html(lang: str) -> str:
    """The how-to-play text of ``lang`` (one of :data:`LANGUAGES`) as HTML."""
    source = (HOWTO / f"{lang}.md").read_text("utf-8")
    html: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(source)
    return html


@router.get("/howto/{lang}", response_model=None, responses=refusals(404))
async def howto(lang: str) -> dict[str, str] | JSONResponse:
    if lang not in LANGUAGES:
        return JSONResponse(
            {
                "detail": f"no how-to-play text in {lang[:8]!r}: es or en",
                "code": "no_language",
                "params": {"languages": list(LANGUAGES)},
            },
            status_code=404,
        )
    return {"lang": lang, "html": howto_html(lang)}
