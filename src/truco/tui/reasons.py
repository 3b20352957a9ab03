"""Refusals in the client's language, worded from their code: never from prose.

A refusal (the engine's, when the terminal plays locally; the server's ``error`` frame
when it is connected) is a code of :data:`truco.refusals.CODES` and its parameters. Its
message id is the code's English template; the parameters are worded first (a seat
becomes the player's name, a card its name, an action or a call its words).

>>> from truco.locale import set_language
>>> from truco.refusals import Refusal
>>> set_language("es")
>>> refusal_text(Refusal.of("not_your_turn", player=1), ("Ana", "Beto"))
'no es tu turno: juega Beto'
>>> refusal_text(Refusal.of("envido_first_baza_only"))
'no podés cantar envido: ya se jugó la primera'
>>> set_language("en")
>>> frame_text({"code": "waiting_for_rivals", "params": {"call": "contraflor-al-resto"}})
"the contraflor al resto call is waiting for the other team's answer"
>>> frame_text({"code": "from_a_newer_server", "reason": "its own words"})
'its own words'
>>> set_language("es")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..actions import SAY_FIRST, ActionError, is_say, parse_action
from ..cards import parse_card
from ..locale import _
from ..refusals import CODES, Refusal
from .cards_text import card_text
from .keys import CALL_LABELS, WORD_LABELS


def refusal_text(refusal: Refusal, names: Sequence[str] = ()) -> str:
    """``refusal`` in the client's language; ``names``: the seats' player names."""
    return _worded(refusal.code, refusal.params, names)


def frame_text(frame: Mapping[str, Any], names: Sequence[str] = ()) -> str:
    """A server's refusal (an ``error`` or ``why`` frame, an HTTP refusal's body) in the
    client's language; a code this client does not know (a newer server's): the server's
    English sentence."""
    code, params = frame.get("code"), frame.get("params")
    if isinstance(code, str) and code in CODES:
        try:
            return _worded(code, params if isinstance(params, Mapping) else {}, names)
        except (KeyError, IndexError, ValueError):
            pass  # parameters this client cannot word: the server's words
    return str(frame.get("reason") or frame.get("detail") or code or "")


def _worded(code: str, params: Mapping[str, Any], names: Sequence[str]) -> str:
    return _(CODES[code].template).format(
        **{name: _param(name, value, names) for name, value in params.items()}
    )


def _param(name: str, value: Any, names: Sequence[str]) -> str:
    """One parameter as the person reads it (see :mod:`truco.refusals`)."""
    if name == "player" and isinstance(value, int):
        if 0 <= value < len(names):
            return names[value]
        return _("seat {n}").format(n=value + 1)
    if name == "seat" and isinstance(value, int):
        return str(value + 1)
    if name == "card" and isinstance(value, str):
        return card_text(parse_card(value))
    if name == "action" and isinstance(value, str):
        try:
            action = parse_action(value)
        except ActionError:
            return value
        if is_say(action):
            return WORD_LABELS[action - SAY_FIRST]
        return CALL_LABELS.get(action, value)
    if name == "call" and isinstance(value, str):
        return value.replace("-", " ")
    return str(value)
