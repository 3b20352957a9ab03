"""The page's word catalogs (``static/i18n/*.json``): every language has every key, with
the same placeholders, and every key the page's modules ask for exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).parent.parent / "src" / "truco" / "server" / "static"
LANGUAGES = ("es", "en")


def catalog(lang: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def placeholders(value: object) -> set[str]:
    texts = value.values() if isinstance(value, dict) else [value]
    return {name for text in texts for name in re.findall(r"\{(\w+)\}", str(text))}


def test_every_language_has_the_same_keys_and_placeholders() -> None:
    spanish = catalog("es")
    for lang in LANGUAGES[1:]:
        other = catalog(lang)
        assert set(other) == set(spanish), f"{lang}: {sorted(set(other) ^ set(spanish))}"
        for key, text in spanish.items():
            assert placeholders(other[key]) == placeholders(text), (lang, key)
            if isinstance(text, dict):
                assert set(text) == set(other[key]) == {"one", "other"}, (lang, key)  # type: ignore[arg-type]


@pytest.mark.parametrize("module", sorted(p.name for p in STATIC.glob("*.js")))
def test_every_literal_key_the_page_asks_for_exists(module: str) -> None:
    source = (STATIC / module).read_text("utf-8")
    asked = set(re.findall(r"""\bt\(\s*"([a-z_.\-]+)\"""", source))
    missing = asked - set(catalog("es"))
    assert not missing, f"{module} asks for {sorted(missing)}"


def test_the_catalogs_name_every_call_and_word_the_server_may_list() -> None:
    from truco.actions import NUM_ACTIONS, action_token

    spanish = catalog("es")
    for action in range(40, NUM_ACTIONS):
        token = action_token(action)
        key = f"word.{token[4:]}" if token.startswith("say ") else f"call.{token}"
        assert key in spanish, token


SPOKEN_TO = re.compile(
    r"""\b(?:line|about)\(\s*(?:"([a-z_.\-]+)"|[\w.]+ \? "([a-z_.\-]+)" : "([a-z_.\-]+)")"""
)


@pytest.mark.parametrize("module", ["story.js", "table.js"])
def test_every_line_about_a_seat_has_its_words_for_the_viewer(module: str) -> None:
    """``story.line(key, seat)`` speaks to the page's player with ``key_you`` ("Jugaste el
    4 de copas", not "Ana jugó el 4 de copas"): both forms exist in every language."""
    source = (STATIC / module).read_text("utf-8")
    keys = {key for found in SPOKEN_TO.findall(source) for key in found if key}
    assert keys, f"{module} says nothing about a seat"
    for lang in LANGUAGES:
        words = catalog(lang)
        missing = {k for k in keys if k not in words or f"{k}_you" not in words}
        assert not missing, (lang, sorted(missing))
