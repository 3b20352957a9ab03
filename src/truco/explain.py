"""Why an action is not legal: one sentence for the player.

Only called once :meth:`Game.legal_actions` has said no, so the hot path never pays for
it. It reads the state to name the reason; it never decides legality itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    FLOR,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    TRUCO,
    TRUCO_CALLS,
    action_token,
    is_say,
)
from .cards import card_name

if TYPE_CHECKING:
    from .game import Game


def _chain_rule(chain: list[int], action: int) -> str:
    if chain[-1] == FALTA_ENVIDO:
        return "falta envido ends the chain"
    if action == REAL_ENVIDO:
        return "real envido comes once"
    return "the envido repeats only once, straight after a single envido"


def why_illegal(game: Game, seat: int, action: int) -> str:
    from .game import CALLED, DONE, P_ENVIDO, P_FLOR, P_TRUCO, PENDING_NAMES

    if game.winner >= 0:
        return "the match is over"
    if game.needs_deal:
        return "the hand is over; the next one has not been dealt"
    if not game.in_hand[seat]:
        if game.pica_now:
            return "this pica-pica round is played by another pair"
        return "this seat has gone to the mazo in this hand"
    if is_say(action):
        if game.n == 2:
            return "the megaphone is only for 2v2 and 3v3 tables"
        return "there is no team talk in a pica-pica hand"
    token = action_token(action)
    team = seat & 1
    if game.pending:
        kind, called, _ = game.pending[-1]
        call = PENDING_NAMES[kind]
        if called != team:
            return f"the {call} call is waiting for the other team's answer"
        if kind in (P_TRUCO, P_ENVIDO) and game._flor_obliged(seat):
            return "you hold a flor: sing it (or go to the mazo) before anything else"
        if kind == P_FLOR and not game.flor_holder[seat]:
            return "only a player holding flor answers a flor"
        if action < 40:
            return f"nobody plays a card while the {call} call waits for its answer"
        if (
            action in (FLOR, CONTRAFLOR, CONTRAFLOR_AL_RESTO, CON_FLOR_ME_ACHICO)
            and not game.rules.flor
        ):
            return "this table is played sin flor"
        if action in ENVIDO_CALLS:
            if game.flor_state != 0:
                return "no envido is played in a hand where flor was sung"
            if kind == P_ENVIDO:
                return _chain_rule(game.chain, action)
            if game.envido_state != 0:
                return "the envido is played only once a hand"
            return "the envido can only answer a first truco call, in the first baza"
        article = "an" if call[0] in "aeiou" else "a"
        return f"{token!r} does not answer {article} {call} call here"
    if seat != game.turn:
        return f"it is not this seat's turn (seat {game.turn} plays)"
    if game.flor_holder[seat] and not game.flor_sung[seat]:
        return "you hold a flor: sing it before playing, calling or answering"
    if action < 40:
        return f"seat {seat} does not hold {card_name(action)}"
    if action in (QUIERO, NO_QUIERO):
        return "there is no call to answer"
    if action in ENVIDO_CALLS:
        if game.flor_state != 0:
            return "no envido is played in a hand where flor was sung"
        if game.envido_state == DONE or game.envido_state == CALLED:
            return "the envido is played only once a hand"
        if game.baza > 0:
            return "the envido is called only in the first baza"
        if game.truco_level > 0:
            return "the envido is closed once the truco has been accepted"
        if game.played_any[game.rdealer]:
            return "the envido is closed once the dealer has played a card"
        return "in teams only the pies (the last player of each team) open the envido"
    if action in TRUCO_CALLS:
        level = game.truco_level
        if level == 0:
            return "no truco has been called yet: the first call is truco"
        if level == 3:
            return "vale cuatro is the highest call"
        if game.truco_owner != team:
            return "only the team that accepted the last call may raise"
        return f"the next call is {action_token(TRUCO + level)!r}"
    if action in (FLOR, CONTRAFLOR, CONTRAFLOR_AL_RESTO, CON_FLOR_ME_ACHICO):
        if not game.rules.flor:
            return "this table is played sin flor"
        if action == FLOR:
            return (
                "you have already sung your flor"
                if game.flor_sung[seat]
                else "you do not hold a flor"
            )
        return f"{token!r} answers a flor, and no flor is waiting for an answer"
    return "not allowed now"
