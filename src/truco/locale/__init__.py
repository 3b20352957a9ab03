"""The languages of the clients: Spanish (Rioplatense) first, English available.

Texts are written in English in the code (the gettext message ids) and translated by the
catalogs in this package (``<lang>/LC_MESSAGES/truco.po``, compiled to ``truco.mo``, both
shipped). The game's own words (envido, truco, flor, mazo, parda, baza...) stay Spanish
in every language. Standard library only.

>>> translation("es").gettext("Hand over")
'Mano terminada'
>>> translation("en").gettext("Hand over")
'Hand over'
>>> choose_language(None, {"LANG": "en_US.UTF-8"}), choose_language(None, {"LANG": "C.UTF-8"})
('en', 'es')
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path

#: The languages with a catalog, the first one the default.
LANGUAGES = ("es", "en")
DEFAULT_LANGUAGE = LANGUAGES[0]
DOMAIN = "truco"
LOCALE_DIR = Path(__file__).parent
#: The environment variables that name a language, in gettext's order.
LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def choose_language(asked: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to use: ``asked`` (``--lang``) if given, else the first of ``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that names one we have (``en_US.UTF-8`` names
    ``en``), else Spanish."""
    if asked:
        code = asked.lower().split("_")[0].split("-")[0]
        if code not in LANGUAGES:
            raise ValueError(f"no language {asked!r}: choose {' or '.join(LANGUAGES)}")
        return code
    env = os.environ if environ is None else environ
    for variable in LANGUAGE_VARIABLES:
        for value in env.get(variable, "").split(":"):
            code = value.lower().split(".")[0].split("_")[0].split("-")[0]
            if code in LANGUAGES:
                return code
    return DEFAULT_LANGUAGE


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang``; English (the message ids themselves) needs none."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang])


_current: list[str] = [DEFAULT_LANGUAGE]


def set_language(lang: str) -> None:
    """Make ``lang`` the language of this process's client (the terminal game)."""
    translation(lang)  # fail now if there is no catalog
    _current[0] = lang


def current_language() -> str:
    return _current[0]


def _(message: str) -> str:
    """``message`` in the client's language."""
    return translation(_current[0]).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural of a message, for ``count``, in the client's language."""
    return translation(_current[0]).ngettext(singular, plural, count)
