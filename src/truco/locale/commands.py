"""The command line's own words in the client's language: argparse writes its usage
line, its section titles and its errors in English; the terminal game's commands show
them through the catalog like the rest of their help.

>>> print(translate_usage_error("argument --target: invalid choice: 5 (choose from 15, 30)", "es"))
argumento --target: opción inválida: 5 (elegí entre 15, 30)
>>> print(translate_usage_error("unrecognized arguments: --foo", "en"))
unrecognized arguments: --foo
"""

from __future__ import annotations

import re

from . import translation

#: argparse's error sentences (Python 3.11 to 3.13), as (pattern, message id); the
#: pattern's groups fill the message id's placeholders.
USAGE_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), msgid)
    for pattern, msgid in (
        (
            r"argument (?P<arg>\S+): invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)",
            "argument {arg}: invalid choice: {value} (choose from {choices})",
        ),
        (
            r"argument (?P<arg>\S+): invalid (?P<kind>\w+) value: (?P<value>.+)",
            "argument {arg}: not a valid {kind}: {value}",
        ),
        (r"argument (?P<arg>\S+): expected one argument", "argument {arg}: give it a value"),
        (r"the following arguments are required: (?P<args>.+)", "missing: {args}"),
        (r"unrecognized arguments: (?P<args>.+)", "unrecognized arguments: {args}"),
        # an option's own check (argparse.ArgumentTypeError): its words are translated
        (r"argument (?P<arg>\S+): (?P<reason>.+)", "argument {arg}: {reason}"),
    )
)
#: argparse's fixed words (the usage line's prefix, the help's section titles).
USAGE_WORDS = ("usage: ", "options", "positional arguments", "show this help message and exit")


def translate_usage_error(message: str, lang: str) -> str:
    """An argparse error ``message`` in ``lang`` (as is when no pattern knows it)."""
    gettext = translation(lang).gettext
    for pattern, msgid in USAGE_ERRORS:
        match = pattern.fullmatch(message)
        if match:
            names = match.groupdict()
            if "reason" in names:
                names["reason"] = gettext(names["reason"])
            if "kind" in names:
                names["kind"] = gettext(names["kind"])
            return gettext(msgid).format(**names)
    return message
