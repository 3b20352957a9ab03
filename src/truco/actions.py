"""Actions as small integers, and their notation (docs/record-format.md).

``0..39`` play that card; then the calls, answers, ``mazo`` and the megaphone words.
The integers are for the hot path; the tokens are for people and records.

>>> parse_action("play 1e"), action_token(ENVIDO), action_token(parse_action("say veni"))
(0, 'envido', 'say veni')
"""

from __future__ import annotations

from .cards import CARD_NAMES, CardError, parse_card

ENVIDO, REAL_ENVIDO, FALTA_ENVIDO = 40, 41, 42
FLOR, CONTRAFLOR, CONTRAFLOR_AL_RESTO, CON_FLOR_ME_ACHICO = 43, 44, 45, 46
TRUCO, RETRUCO, VALE_CUATRO = 47, 48, 49
QUIERO, NO_QUIERO = 50, 51
MAZO = 52
SAY_FIRST = 53

MEGAPHONE_WORDS = ("si", "no", "voy", "veni", "tantos", "cantale", "pone", "no-tengo-nada")
SAY_ACTIONS = tuple(range(SAY_FIRST, SAY_FIRST + len(MEGAPHONE_WORDS)))
NUM_ACTIONS = SAY_FIRST + len(MEGAPHONE_WORDS)

ENVIDO_CALLS = (ENVIDO, REAL_ENVIDO, FALTA_ENVIDO)
TRUCO_CALLS = (TRUCO, RETRUCO, VALE_CUATRO)

_CALL_TOKENS = {
    ENVIDO: "envido",
    REAL_ENVIDO: "real-envido",
    FALTA_ENVIDO: "falta-envido",
    FLOR: "flor",
    CONTRAFLOR: "contraflor",
    CONTRAFLOR_AL_RESTO: "contraflor-al-resto",
    CON_FLOR_ME_ACHICO: "con-flor-me-achico",
    TRUCO: "truco",
    RETRUCO: "retruco",
    VALE_CUATRO: "vale-cuatro",
    QUIERO: "quiero",
    NO_QUIERO: "no-quiero",
    MAZO: "mazo",
}

TOKENS: tuple[str, ...] = (
    tuple(f"play {name}" for name in CARD_NAMES)
    + tuple(_CALL_TOKENS[a] for a in range(ENVIDO, SAY_FIRST))
    + tuple(f"say {w}" for w in MEGAPHONE_WORDS)
)
_BY_TOKEN = {token: action for action, token in enumerate(TOKENS)}


class ActionError(ValueError):
    """Text that is not an action of the notation."""


def is_play(action: int) -> bool:
    return action < 40


def is_say(action: int) -> bool:
    return action >= SAY_FIRST


def action_token(action: int) -> str:
    """The record token of an action (``"play 7o"``, ``"real-envido"``)."""
    return TOKENS[action]


def parse_action(text: str) -> int:
    """Parse a token of docs/record-format.md; case and surrounding blanks are forgiven."""
    if not isinstance(text, str):
        raise ActionError(f"an action must be a string, not {text!r}")
    words = text.strip().lower().split()
    norm = " ".join(words)
    action = _BY_TOKEN.get(norm)
    if action is not None:
        return action
    if len(words) == 2 and words[0] == "play":
        try:
            return parse_card(words[1])
        except CardError as exc:
            raise ActionError(str(exc)) from None
    if len(words) == 2 and words[0] == "say":
        raise ActionError(
            f"unknown megaphone word {words[1]!r} (one of {', '.join(MEGAPHONE_WORDS)})"
        )
    raise ActionError(f"unknown action {text!r}")
