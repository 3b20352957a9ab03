"""The engine's reasons for refusing an action, in the client's language.

The engine words its reasons in English (:meth:`truco.game.Game.why_illegal`); the
screen shows them through the catalog: fixed sentences are message ids themselves, and
the sentences that name a seat, a card or a call are matched by a pattern whose message
id has placeholders. A reason nobody translated yet is shown as the engine wrote it
(tests/test_locale.py plays random matches to keep every reason translated).

>>> from truco.locale import set_language
>>> set_language("es")
>>> translate_reason("it is not this seat's turn (seat 2 plays)")
'no es el turno de este lugar (juega el lugar 2)'
>>> set_language("en")
>>> translate_reason("the contraflor-al-resto call is waiting for the other team's answer")
"the contraflor al resto call is waiting for the other team's answer"
>>> set_language("es")
"""

from __future__ import annotations

import re

from ..locale import _

#: The reasons that name something, as (pattern, message id); names in the message id
#: are the pattern's groups (a call's hyphens become spaces).
PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), msgid)
    for pattern, msgid in (
        (
            r"'(?P<action>[\w-]+)' answers a flor, and no flor is waiting for an answer",
            "'{action}' answers a flor, and no flor is waiting for an answer",
        ),
        (
            r"'(?P<action>[\w-]+)' does not answer an? (?P<call>[\w-]+) call here",
            "'{action}' does not answer a {call} call here",
        ),
        (
            r"it is not this seat's turn \(seat (?P<seat>\d+) plays\)",
            "it is not this seat's turn (seat {seat} plays)",
        ),
        (
            r"nobody plays a card while the (?P<call>[\w-]+) call waits for its answer",
            "nobody plays a card while the {call} call waits for its answer",
        ),
        (r"seat (?P<seat>\d+) does not hold (?P<card>\w+)", "seat {seat} does not hold {card}"),
        (
            r"the (?P<call>[\w-]+) call is waiting for the other team's answer",
            "the {call} call is waiting for the other team's answer",
        ),
        (r"the next call is '(?P<call>[\w-]+)'", "the next call is '{call}'"),
    )
)

#: The reasons that are always the same sentence (message ids as the engine words them).
FIXED = (
    "falta envido ends the chain",
    "in teams only the pies (the last player of each team) open the envido",
    "no envido is played in a hand where flor was sung",
    "no truco has been called yet: the first call is truco",
    "not allowed now",
    "only a player holding flor answers a flor",
    "only the team that accepted the last call may raise",
    "real envido comes once",
    "the envido can only answer a first truco call, in the first baza",
    "the envido is called only in the first baza",
    "the envido is closed once the truco has been accepted",
    "the envido is played only once a hand",
    "the envido repeats only once, straight after a single envido",
    "the hand is over; the next one has not been dealt",
    "the match is over",
    "the megaphone is only for 2v2 and 3v3 tables",
    "there is no call to answer",
    "there is no team talk in a pica-pica hand",
    "this pica-pica round is played by another pair",
    "this seat has gone to the mazo in this hand",
    "this table is played sin flor",
    "vale cuatro is the highest call",
    "you do not hold a flor",
    "you have already sung your flor",
    "you hold a flor: sing it (or go to the mazo) before anything else",
    "you hold a flor: sing it before playing, calling or answering",
)


#: The server's refusals (``error`` frames) by code, as the person reads them; an
#: ``illegal`` action gets the engine's reason, an unknown code the server's words.
REFUSALS = {
    "bad_json": "the server did not understand the message",
    "unknown_type": "the server did not understand the message",
    "too_large": "the message is too large",
    "rate_limited": "too many messages: wait a moment",
    "bad_message": "the server did not understand the message",
    "bad_action": "that is not an action of the game",
    "bad_bot": "there is no such bot",
    "full": "the server is full: try again later",
    "no_bot": "there is no bot in that seat",
    "no_player": "sitting needs a name: connect again",
    "no_seat": "that seat does not exist or is not free",
    "not_creator": "only the table's creator seats and removes bots",
    "not_playing": "the match is not being played",
    "not_seated": "you have no seat at this table",
    "seat_taken": "that seat is taken",
    "started": "the match has started: seats cannot change now",
    "too_many_tables": "you have too many open tables",
    "account_needed": "a rated table seats accounts only: log in first",
    "rated_no_bots": "a rated table has no bots: people only",
    "moving": "the table was moving to another server: send it again",
    "not_over": "the match is not over yet",
    "rematch_closed": "the rematch is off: someone declined or left",
}


def translate_refusal(code: str, reason: str) -> str:
    """A server's refusal, by its ``code``, in the client's language.

    >>> from truco.locale import set_language
    >>> set_language("es")
    >>> translate_refusal("seat_taken", "seat 1 is taken")
    'ese lugar está ocupado'
    >>> translate_refusal("illegal", "this table is played sin flor")
    'en esta mesa se juega sin flor'
    >>> translate_refusal("new_code", "a reason from a newer server")
    'a reason from a newer server'
    """
    if code == "illegal":
        return translate_reason(reason)
    msgid = REFUSALS.get(code)
    return reason if msgid is None else _(msgid)


def translate_reason(reason: str) -> str:
    """``reason`` (the engine's English) in the client's language."""
    for pattern, msgid in PATTERNS:
        match = pattern.fullmatch(reason)
        if match:
            names = {key: value.replace("-", " ") for key, value in match.groupdict().items()}
            return _(msgid).format(**names)
    return _(reason)
