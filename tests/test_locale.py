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
from truco.locale import LOCALE_DIR, choose_language, translation
from truco.locale.commands import USAGE_ERRORS, USAGE_WORDS
from truco.refusals import CODES
from truco.tui.keys import WORD_HINTS
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
    texts = {RULES_HELP, *WORD_HINTS, *(entry.template for entry in CODES.values())}
    texts |= {*USAGE_WORDS, *(msgid for _pattern, msgid in USAGE_ERRORS)}
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
