"""The clients' languages: the shipped Spanish catalog says what its source says, every
text the terminal and the hand narration show has a translation, and the language is
chosen from --lang, then the environment, then Spanish."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest

import truco
from strategies import SAMPLE_TABLES, new_match
from truco.actions import NUM_ACTIONS
from truco.locale import LOCALE_DIR, choose_language, set_language, translation
from truco.locale.commands import USAGE_ERRORS, USAGE_WORDS
from truco.tui.keys import WORD_HINTS
from truco.tui.reasons import FIXED, PATTERNS, REFUSALS, translate_reason
from truco.tui.widgets import RULES_HELP

SOURCES = [
    Path(truco.__file__).parent / "narrate.py",
    Path(truco.__file__).parent / "cli.py",
    *(Path(truco.__file__).parent / "tui").glob("*.py"),
]
CATALOG = LOCALE_DIR / "es" / "LC_MESSAGES"


def read_po(path: Path) -> dict[str | tuple[str, int], str]:
    """The translations of a .po file: msgid -> msgstr, (msgid, n) -> msgstr[n]."""
    entries: dict[str | tuple[str, int], str] = {}
    current: dict[str, str] = {}
    key = ""

    def flush() -> None:
        if current.get("msgid"):
            if "msgid_plural" in current:
                for name, value in current.items():
                    if name.startswith("msgstr["):
                        entries[(current["msgid"], int(name[7:-1]))] = value
            else:
                entries[current["msgid"]] = current.get("msgstr", "")
        current.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.match(r'^(msgid_plural|msgid|msgstr(?:\[\d+\])?) "(.*)"$', line)
        if match:
            key, text = match.groups()
            if key == "msgid":
                flush()
        else:
            text = re.match(r'^"(.*)"$', line).group(1)  # type: ignore[union-attr]
        current[key] = current.get(key, "") + text.encode().decode("unicode_escape").encode(
            "latin-1"
        ).decode("utf-8")
    flush()
    return entries


def test_the_shipped_mo_is_the_compiled_po() -> None:
    po = read_po(CATALOG / "truco.po")
    with open(CATALOG / "truco.mo", "rb") as f:
        mo = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
    mo = {k: v for k, v in mo.items() if k != ""}
    assert po == mo, "recompile: msgfmt -o truco.mo truco.po (see the .po's header)"


def shown_texts() -> set[str]:
    """Every literal given to ``_()`` or ``ngettext()`` in the terminal and the narration,
    and the texts translated by name (the help, the megaphone hints)."""
    texts = {RULES_HELP, *WORD_HINTS, *FIXED, *(msgid for _pattern, msgid in PATTERNS)}
    texts |= {*REFUSALS.values(), *USAGE_WORDS, *(msgid for _pattern, msgid in USAGE_ERRORS)}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in ("_", "gettext", "ngettext"):
                first = node.args[0] if node.args else None  # a plural: its singular
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    texts.add(first.value)
    return texts


def test_every_shown_text_has_a_spanish_translation() -> None:
    po = read_po(CATALOG / "truco.po")
    plurals = {key[0] for key in po if isinstance(key, tuple)}
    texts = shown_texts()
    assert len(texts) > 100
    assert sorted(t for t in texts if not po.get(t) and t not in plurals) == []


def test_placeholders_survive_translation() -> None:
    po = read_po(CATALOG / "truco.po")
    for key, text in po.items():
        msgid = key[0] if isinstance(key, tuple) else key
        assert set(re.findall(r"{(\w+)", msgid)) == set(re.findall(r"{(\w+)", text)), msgid


@pytest.mark.parametrize(
    ("asked", "env", "lang"),
    [
        (None, {}, "es"),
        (None, {"LANG": "C.UTF-8"}, "es"),
        (None, {"LANG": "en_US.UTF-8"}, "en"),
        (None, {"LANG": "en_US.UTF-8", "LC_ALL": "es_AR.UTF-8"}, "es"),
        (None, {"LANGUAGE": "fr:en", "LANG": "es_AR.UTF-8"}, "en"),
        (None, {"LC_MESSAGES": "en_GB"}, "en"),
        ("en", {"LANG": "es_AR.UTF-8"}, "en"),
        ("es", {"LANG": "en_US.UTF-8"}, "es"),
    ],
)
def test_the_language_comes_from_the_option_then_the_environment(
    asked: str | None, env: dict[str, str], lang: str
) -> None:
    assert choose_language(asked, env) == lang


def test_an_unknown_language_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="choose es or en"):
        choose_language("fr", {})


def test_english_is_the_message_ids_and_spanish_the_catalog() -> None:
    assert translation("en").gettext("Your turn") == "Your turn"
    assert translation("es").gettext("Your turn") == "Te toca"


@pytest.mark.parametrize("rules", SAMPLE_TABLES, ids=str)
def test_every_reason_the_engine_gives_is_translated(rules: object) -> None:
    """Random matches, every illegal action of every seat at every step: the screen shows
    each reason in Spanish (a reason reworded in the engine fails here until translated)."""
    untranslated: set[str] = set()
    set_language("es")
    try:
        for seed in range(3):
            game, policy = new_match(rules, seed)  # type: ignore[arg-type]
            for _step in range(150):
                if game.is_over:
                    break
                for seat in range(game.players):
                    legal = set(game.legal_actions(seat))
                    for action in range(NUM_ACTIONS):
                        if action not in legal:
                            reason = game.why_illegal(seat, action)
                            if translate_reason(reason) == reason:
                                untranslated.add(reason)
                game.apply(*policy.choose(game))
    finally:
        set_language("es")
    assert sorted(untranslated) == []


def test_every_refusal_the_server_sends_has_a_message_in_every_client() -> None:
    """The codes of the server's ``error`` frames (TableError, ProtocolError,
    error_message): the terminal (tui/reasons.py) and the page (i18n/*.json) word each."""
    import json

    server = Path(truco.__file__).parent / "server"
    codes = set()
    for path in server.rglob("*.py"):  # the table package too
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'(?:Error|error_message)\(\s*"([a-z_]+)"', text))
    assert {"illegal", "seat_taken", "not_seated", "bad_message"} <= codes
    assert codes - {"illegal"} <= set(REFUSALS), sorted(codes - set(REFUSALS))
    for lang in ("es", "en"):
        page = json.loads((server / "static" / "i18n" / f"{lang}.json").read_text("utf-8"))
        assert {f"refusal.{code}" for code in codes} <= set(page), lang
    table_js = (server / "static" / "table.js").read_text("utf-8")
    listed = re.search(r"const REFUSALS = new Set\(\[(.*?)\]\)", table_js, re.S)
    assert listed and codes <= set(re.findall(r'"([a-z_]+)"', listed.group(1)))
