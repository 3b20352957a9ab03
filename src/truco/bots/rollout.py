"""The search bot's fast rollout policy, played straight on a sampled :class:`Game`.

Inside a sampled world every seat plays a noisy version of the rule-based bot that
looks only at its own cards and the table (``game.cards[seat]``, ``game.bazas``), so a
rollout never lets one seat use another's cards. It works on the engine's state instead
of building a :class:`~truco.view.SeatView` per action: a rollout must cost microseconds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    ENVIDO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    TRUCO,
)
from ..cards import flor_value
from ..game import P_CONTRAFLOR, P_ENVIDO, P_FLOR, P_TRUCO, Game
from .judgement import follow, hand_power, hand_tanto, table_power


@dataclass(frozen=True, slots=True)
class PlayerModel:
    """How a team is assumed to play inside the rollouts: shifts of the policy's
    thresholds (``+0.1``: calls or accepts as if its hand were 0.1 stronger, one tanto
    point per 0.01). Envido and truco answers shift apart: a search bot answers an
    envido about as the policy does but accepts a truco with much weaker cards."""

    calls: float = 0.0
    envido_accepts: float = 0.0
    truco_accepts: float = 0.0
    #: the chance that a hand too weak for the policy's envido calls one anyway (a
    #: rival seen opening the envido far more often than strong hands come): it weighs
    #: the worlds (:func:`action_likelihood`), the rollouts do not bluff
    envido_bluffs: float = 0.0
    #: the same chance for an opening call made after the caller's rivals passed the
    #: envido (played a card without calling it): a pass caps their tanto for a rival
    #: who reads it, and such a rival opens on anything; the larger of the two applies to the
    #: worlds, and in the rollouts such a seat opens with this chance, any envido call
    passed_bluffs: float = 0.0
    #: the chance that a hand too weak for the policy's truco opens the truco anyway
    #: (fitted from the cards a rival's trucos showed, :class:`~.opponent.RivalTracker`):
    #: it weighs the worlds only, the rollouts do not bluff
    truco_bluffs: float = 0.0
    #: reads the table late in a hand: once a card is down, its hand's power is its
    #: chance of taking the bazas left (:func:`~.judgement.table_power`), not the
    #: first baza's rough score, which counts a won baza as strength whatever is left
    #: to take the next one with (False: :func:`~.judgement.hand_power` throughout)
    table: bool = False


#: The policy as it is.
NEUTRAL = PlayerModel()
#: Both teams neutral.
NEUTRAL_MODELS = (NEUTRAL, NEUTRAL)

#: Chance that a rollout seat picks any legal action but mazo (keeps the worlds varied).
NOISE = 0.04


#: Threshold shifts at which :func:`action_likelihood` asks the policy.
JITTERS = (-0.08, -0.04, 0.0, 0.04, 0.08)
#: Calls of one family tell the same thing (a falta envido shows at least the tanto the
#: policy calls envido with), so a policy that would call any of them explains the call.
_FAMILY = {
    ENVIDO: 1,
    REAL_ENVIDO: 1,
    FALTA_ENVIDO: 1,
    TRUCO: 2,
    TRUCO + 1: 2,
    TRUCO + 2: 2,
}
#: Floor of an action's likelihood: players are not as predictable as the model.
LIKELIHOOD_FLOOR = 0.08


def rollout_action(
    game: Game,
    seat: int,
    legal: list[int],
    rng: random.Random,
    model: PlayerModel = NEUTRAL,
    noise: float = NOISE,
) -> int:
    """The rollout policy's action for ``seat`` (``legal`` has more than one action):
    mostly :func:`policy_action` with a random threshold shift, sometimes anything."""
    if legal[0] == FLOR:
        return FLOR
    if (
        model.passed_bluffs
        and ENVIDO in legal
        and not game.pending
        and not game.envido_calls
        and _passed(game, seat)
        and rng.random() < model.passed_bluffs
    ):
        # a rival who reads our pass as a capped tanto opens on anything
        calls = [a for a in legal if a in ENVIDO_CALLS]
        return rng.choice(calls)
    r = rng.random()
    if r < noise:
        choices = [a for a in legal if a != MAZO]
        return choices[int(r / noise * len(choices))]
    return policy_action(game, seat, legal, (r - 0.5) * 0.2, model)


def action_likelihood(
    game: Game, seat: int, action: int, model: PlayerModel = NEUTRAL, families: bool = True
) -> float:
    """How likely the policy (a model of a sensible player) is to take ``action`` here;
    used to weigh sampled worlds by what the rivals did in them. With ``families``, a
    call is explained by the policy making any call of its family."""
    legal = game.legal_actions(seat, False)
    if len(legal) == 1:
        return 1.0
    family = _FAMILY.get(action) if families else None
    hits = 0
    for chosen in policy_actions(game, seat, legal, JITTERS, model):
        hits += chosen == action or (family is not None and _FAMILY.get(chosen) == family)
    share = hits / len(JITTERS)
    if _FAMILY.get(action) == 1 and not game.envido_calls:
        # an opening call: the policy's share, or a bluff from the rest of the hands
        bluffs = model.envido_bluffs
        if model.passed_bluffs > bluffs and _passed(game, seat):
            bluffs = model.passed_bluffs
        share += (1.0 - share) * bluffs
    elif action == TRUCO and not game.truco_level and not game.pending:
        share += (1.0 - share) * model.truco_bluffs
    return LIKELIHOOD_FLOOR + share


def _passed(game: Game, seat: int) -> bool:
    """Has a rival of ``seat`` played a card in this hand's first baza (the envido
    not opened)?"""
    return bool(game.bazas) and any(s & 1 != seat & 1 for s, _ in game.bazas[0])


def policy_action(
    game: Game, seat: int, legal: list[int], jitter: float, model: PlayerModel = NEUTRAL
) -> int:
    """The rule-based player behind the rollouts; ``jitter`` shifts its thresholds,
    ``model`` shifts its calls and its answers apart."""
    return policy_actions(game, seat, legal, (jitter,), model)[0]


def policy_actions(
    game: Game,
    seat: int,
    legal: list[int],
    jitters: Sequence[float],
    model: PlayerModel = NEUTRAL,
) -> list[int]:
    """:func:`policy_action` at each of ``jitters``, the seat's hand judged once (the
    worlds' weights ask the policy at several shifts of the same position)."""
    if legal[0] == FLOR:
        return [FLOR] * len(jitters)
    team = seat & 1
    if game.pending:
        return _answers(game, seat, legal, jitters, model)
    tanto = hand_tanto(game.dealt[seat]) if ENVIDO in legal else None
    real_envido = REAL_ENVIDO in legal
    level = game.truco_level
    raise_to = TRUCO + level
    power = _power(game, seat, team, model) if raise_to in legal and level < 3 else None
    quiet: int | None = None  # the card the policy plays, or its only action
    out = []
    for shift in jitters:
        jitter = shift + model.calls
        if tanto is not None:
            points = tanto + 10 * jitter
            if points >= 31 and real_envido:
                out.append(REAL_ENVIDO)
                continue
            if points >= 28:
                out.append(ENVIDO)
                continue
        if power is not None and power + jitter >= 0.6 + 0.08 * level:
            out.append(raise_to)
            continue
        if quiet is None:
            cards = [a for a in legal if a < 40]
            quiet = follow(cards, game.bazas[-1], team) if cards else legal[0]
        out.append(quiet)
    return out


def _power(game: Game, seat: int, team: int, model: PlayerModel) -> float:
    """The seat's hand power as ``model`` judges it (see :attr:`PlayerModel.table`)."""
    if model.table and (game.baza_results or game.bazas[-1]):
        return table_power(
            game.cards[seat], game.baza_results, game.bazas[-1], team, game.round_mano & 1
        )
    return hand_power(game.cards[seat], game.baza_results, team)


def _answers(
    game: Game, seat: int, legal: list[int], jitters: Sequence[float], model: PlayerModel
) -> list[int]:
    """The policy's answers to the pending call at each of ``jitters`` (a shift of the
    acceptance thresholds, by ``model``'s acceptance of the call's kind, and of the
    raises, by its calls)."""
    team = seat & 1
    kind, _, level = game.pending[-1]
    if kind == P_TRUCO:
        accepts = model.truco_accepts
        tanto = hand_tanto(game.dealt[seat]) if ENVIDO in legal else None
        power = _power(game, seat, team, model)
        partners = _partners(game, seat)
        can_raise = TRUCO + level in legal
        out = []
        for shift in jitters:
            call = shift + model.calls
            if tanto is not None and tanto >= 28 - 10 * call:
                out.append(ENVIDO)
            else:
                out.append(truco_answer(power, level, partners, shift + accepts, call, can_raise))
        return out
    if kind == P_ENVIDO:
        accepts = model.envido_accepts
        tanto = hand_tanto(game.dealt[seat])
        falta = FALTA_ENVIDO in game.envido_calls
        can_raise = REAL_ENVIDO in legal and not falta
        need = 29 if falta else 27 + min(len(game.envido_calls) - 1, 2) - _partners(game, seat)
        out = []
        for shift in jitters:
            jitter, call = shift + accepts, shift + model.calls
            points = tanto + 10 * jitter
            if points + 10 * (call - jitter) >= 31 and can_raise:
                out.append(REAL_ENVIDO)
            else:
                out.append(QUIERO if points >= need else NO_QUIERO)
        return out
    if kind == P_FLOR:
        if flor_value(game.dealt[seat]) >= 34 and CONTRAFLOR in legal:
            answer = CONTRAFLOR
        else:
            answer = CON_FLOR_ME_ACHICO if CON_FLOR_ME_ACHICO in legal else legal[0]
    elif kind == P_CONTRAFLOR or QUIERO in legal:
        answer = QUIERO if flor_value(game.dealt[seat]) >= 33 else NO_QUIERO
    else:
        answer = legal[0]
    return [answer] * len(jitters)


def truco_answer(
    power: float,
    level: int,
    partners: int,
    accepts: float,
    raises: float,
    can_raise: bool = True,
) -> int:
    """The policy's answer to a truco-family call of ``level`` (1: truco) from a hand of
    ``power``, its thresholds shifted by ``accepts`` and ``raises``: a raise from 0.85,
    else an acceptance from 0.4 (0.5 for a retruco, 0.6 for a vale cuatro; a tenth less
    per partner still in the hand).

    >>> from truco.actions import action_token as name
    >>> name(truco_answer(0.9, 1, 0, 0.0, 0.0)), name(truco_answer(0.9, 3, 0, 0.0, 0.0))
    ('retruco', 'quiero')
    >>> name(truco_answer(0.35, 1, 0, 0.0, 0.0)), name(truco_answer(0.35, 1, 1, 0.0, 0.0))
    ('no-quiero', 'quiero')
    """
    if can_raise and level < 3 and power + raises >= 0.85:
        return TRUCO + level
    return QUIERO if power + accepts >= 0.3 + 0.1 * level - 0.1 * partners else NO_QUIERO


def _partners(game: Game, seat: int) -> int:
    in_hand = game.in_hand
    return sum(1 for s in range(seat & 1, game.n, 2) if s != seat and in_hand[s])


def play_out_hand(
    game: Game,
    rng: random.Random,
    models: tuple[PlayerModel, PlayerModel] = NEUTRAL_MODELS,
    noise: float = NOISE,
) -> None:
    """Play the current hand to its end with :func:`rollout_action` for every seat,
    team ``t`` under ``models[t]``."""
    closed = len(game.history)
    actors, legal_actions, push = game.actors, game.legal_actions, game.push
    randbelow = rng._randbelow  # type: ignore[attr-defined]
    while not game.needs_deal and game.winner is None and len(game.history) == closed:
        seats = actors()
        seat = seats[0] if len(seats) == 1 else seats[randbelow(len(seats))]
        legal = legal_actions(seat, False)
        if len(legal) == 1:
            push(seat, legal[0])
        else:
            push(seat, rollout_action(game, seat, legal, rng, models[seat & 1], noise))
