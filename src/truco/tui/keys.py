"""The keyboard of the table: which key (and button label) stands for which action.

Cards are played with ``1``-``3`` (their place in the hand as drawn); every call and
answer has one letter. A key only ever *offers* an action: whether it is legal is asked
of the engine.
"""

from __future__ import annotations

from ..actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    MEGAPHONE_WORDS,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    RETRUCO,
    SAY_FIRST,
    TRUCO,
    VALE_CUATRO,
)
from ..locale import _

CARD_KEYS = ("1", "2", "3")

#: The letter of every call and answer, in the order the buttons are drawn.
CALL_KEYS: dict[int, str] = {
    FLOR: "l",
    CONTRAFLOR: "c",
    CONTRAFLOR_AL_RESTO: "a",
    CON_FLOR_ME_ACHICO: "x",
    ENVIDO: "e",
    REAL_ENVIDO: "r",
    FALTA_ENVIDO: "f",
    TRUCO: "t",
    RETRUCO: "t",
    VALE_CUATRO: "t",
    QUIERO: "q",
    NO_QUIERO: "n",
    MAZO: "m",
}

CALL_LABELS: dict[int, str] = {
    FLOR: "flor",
    CONTRAFLOR: "contraflor",
    CONTRAFLOR_AL_RESTO: "contraflor al resto",
    CON_FLOR_ME_ACHICO: "con flor me achico",
    ENVIDO: "envido",
    REAL_ENVIDO: "real envido",
    FALTA_ENVIDO: "falta envido",
    TRUCO: "truco",
    RETRUCO: "retruco",
    VALE_CUATRO: "vale cuatro",
    QUIERO: "quiero",
    NO_QUIERO: "no quiero",
    MAZO: "go to the mazo",  # (a message id: every other call is the same in both)
}

#: The calls one key stands for (``t`` is truco, retruco or vale cuatro, as the hand goes).
KEY_CALLS: dict[str, tuple[int, ...]] = {}
for _action, _key in CALL_KEYS.items():
    KEY_CALLS[_key] = (*KEY_CALLS.get(_key, ()), _action)

#: The key that opens the megaphone, and the keys of its words inside it.
MEGAPHONE_KEY = "s"
WORD_KEYS = tuple(str(i + 1) for i in range(len(MEGAPHONE_WORDS)))
WORD_LABELS = ("Sí", "No", "Voy", "Vení", "Tantos", "Cantale", "Poné", "No tengo nada")
#: What each word asks of the partner (message ids: translated where shown).
WORD_HINTS = (
    "yes",
    "no",
    "play your high card",
    "play your low card",
    "envido: tantos here",
    "call truco",
    "put down your high card",
    "I have nothing",
)


def say_action(word_index: int) -> int:
    return SAY_FIRST + word_index


def call_words(action: int) -> str:
    """A call as the screen says it: the table's words ("truco", "quiero"), and the mazo
    in the screen's language ("irse al mazo", "go to the mazo")."""
    return _(CALL_LABELS[action]) if action == MAZO else CALL_LABELS[action]


def call_label(action: int, pending_truco: bool) -> str:
    """A call's button label; a truco raise given as an answer reads "quiero retruco"."""
    label = call_words(action)
    if pending_truco and action in (RETRUCO, VALE_CUATRO):
        return f"quiero {label}"
    return label
