"""A closed hand told in words: who won the envido and with what, who won the truco and
how (the bazas, a refusal, the mazo), what was dropped and why; and its bazas laid out.

For every client (the terminal game, the browser's page): the sentences come in the
language asked (:mod:`truco.locale`), Spanish first. It reads only what everyone may see
of a closed hand (a :class:`~truco.view.PublicHand`), so it never tells a hidden card.

>>> from truco import Game
>>> from truco.cards import parse_card as c
>>> from truco.view import public_hand
>>> game = Game(manual_deal=True)
>>> game.deal(((c("1e"), c("7e"), c("4c")), (c("3b"), c("2c"), c("12o"))))
>>> for seat, token in [(0, "envido"), (1, "quiero"), (0, "play 1e"), (1, "play 3b"),
...                     (0, "play 7e"), (1, "truco"), (0, "no-quiero")]:
...     game.play(seat, token)
>>> hand = public_hand(game.history[-1])
>>> for line in explain_hand(hand, ("Ana", "Beto"), ("Nosotros", "Ellos"), (0, 0), "en"):
...     print(line)
Envido: Ana won with 28 — Nosotros +2
Truco: Ana did not want the truco — Ellos +1
>>> for line in explain_hand(hand, ("Ana", "Beto"), ("Nosotros", "Ellos"), (0, 0)):
...     print(line)
Envido: Ana ganó con 28 — Nosotros +2
Truco: Ana no quiso el truco — Ellos +1
>>> [(b.number, b.finished, b.winner) for b in hand_bazas(hand.actions, 2)]
[(1, True, 0), (2, False, None)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from gettext import NullTranslations

from .actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    CONTRAFLOR_AL_RESTO,
    ENVIDO,
    ENVIDO_CALLS,
    FALTA_ENVIDO,
    FLOR,
    MAZO,
    NO_QUIERO,
    QUIERO,
    REAL_ENVIDO,
    RETRUCO,
    TRUCO,
    TRUCO_CALLS,
    VALE_CUATRO,
    action_token,
    is_play,
    is_say,
)
from .cards import RANK, STRENGTH, SUIT
from .game import Declaration, HandResult
from .locale import DEFAULT_LANGUAGE, LANGUAGES, translation
from .view import PublicHand, public_hand

#: The name of every call, as the table says it (the same words in every language).
CALL_NAMES = {
    ENVIDO: "envido",
    REAL_ENVIDO: "real envido",
    FALTA_ENVIDO: "falta envido",
    FLOR: "flor",
    CONTRAFLOR: "contraflor",
    CONTRAFLOR_AL_RESTO: "contraflor al resto",
    CON_FLOR_ME_ACHICO: "con flor me achico",
    TRUCO: "truco",
    RETRUCO: "retruco",
    VALE_CUATRO: "vale cuatro",
}
#: The truco in force for the points a played-out round is worth.
TRUCO_BY_POINTS = {2: "truco", 3: "retruco", 4: "vale cuatro"}
_FLOR_CALLS = (FLOR, CONTRAFLOR, CONTRAFLOR_AL_RESTO, CON_FLOR_ME_ACHICO)


@dataclass(frozen=True, slots=True)
class Baza:
    """One baza of a hand: the cards in the order played; once ``finished``, the team
    that won it and the seat whose card won it (both ``None``: parda)."""

    number: int
    cards: tuple[tuple[int, int], ...]
    finished: bool
    winner: int | None
    best: int | None


def hand_bazas(actions: Sequence[tuple[int, int]], players: int) -> list[Baza]:
    """The bazas of a hand from its public actions. A baza is finished once every seat
    still in the hand has played in it (a seat that goes to the mazo is no longer
    awaited, unless its leaving ends the hand); the highest card wins it for its team,
    equal highest cards of both teams make it parda. (A pica-pica hand holds several
    rounds: tell it by its rounds instead.)

    >>> from truco.cards import parse_card as c
    >>> actions = [(0, c("3e")), (1, c("3o")), (0, c("4c")), (1, c("5c")), (0, c("1e"))]
    >>> [(b.finished, b.winner, b.best) for b in hand_bazas(actions, 2)]
    [(True, None, None), (True, 1, 1), (False, None, None)]
    """
    in_hand = set(range(players))
    groups: list[tuple[list[tuple[int, int]], bool]] = []  # cards, finished
    for seat, action in actions:
        if action == MAZO:
            in_hand.discard(seat)
            if groups and not groups[-1][1] and _team_in_hand(seat, in_hand):
                cards = groups[-1][0]
                groups[-1] = (cards, {s for s, _c in cards} >= in_hand)
            continue
        if not is_play(action):
            continue
        if not groups or groups[-1][1]:
            groups.append(([], False))
        cards = groups[-1][0]
        cards.append((seat, action))
        groups[-1] = (cards, {s for s, _c in cards} >= in_hand)
    bazas = []
    for number, (group, finished) in enumerate(groups, start=1):
        top = max(STRENGTH[card] for _, card in group)
        best = [seat for seat, card in group if STRENGTH[card] == top]
        won = finished and len({seat & 1 for seat in best}) == 1
        bazas.append(
            Baza(
                number=number,
                cards=tuple(group),
                finished=finished,
                winner=best[0] & 1 if won else None,
                best=best[0] if won else None,
            )
        )
    return bazas


def _team_in_hand(seat: int, in_hand: set[int]) -> bool:
    """Whether a partner of ``seat`` is still in the hand (else the team went to the mazo)."""
    return any(s & 1 == seat & 1 for s in in_hand)


def explain_hand(
    hand: PublicHand,
    names: Sequence[str],
    team_names: Sequence[str],
    before: tuple[int, int],
    lang: str = DEFAULT_LANGUAGE,
    *,
    target: int | None = None,
    you: int | None = None,
) -> list[str]:
    """The sentences that explain what a closed hand scored, in ``lang``: the flor, the
    envido (who won it and with what tanto, or who refused it), the truco (won on the
    bazas, refused, or by the mazo) and the points dropped because the chico was decided.
    ``before`` is the score when the hand was dealt; ``target`` the chico's points (a
    dropped point is only told when it is given); ``you`` the seat of the person who
    reads it, told in the second person ("no quisiste el truco", "te fuiste al mazo").

    >>> from truco import Game
    >>> game = Game(seed=1)
    >>> game.play(0, "mazo")
    >>> hand = public_hand(game.history[-1])
    >>> explain_hand(hand, ("Vos", "Beto"), ("Nosotros", "Ellos"), (0, 0), you=0)
    ['Truco: te fuiste al mazo — Ellos +1']
    >>> explain_hand(hand, ("You", "Beto"), ("Us", "Them"), (0, 0), "en", you=0)
    ['Truco: you went to the mazo — Them +1']
    """
    tr = translation(lang)
    _ = tr.gettext
    actions = tuple(hand.actions)
    lines: list[str] = []
    flor_calls = [CALL_NAMES[a] for _s, a in actions if a in _FLOR_CALLS and a != FLOR]
    envido_steps = _envido_sequences(actions)
    showdowns = iter(hand.showdowns)
    rounds = sum(1 for _t, source, _p in hand.why if source == "truco")
    round_number = 0
    for team, source, points in hand.why:
        gain = f"{team_names[team]} +{points}"
        if source == "flor":  # who sang it, and the calls beyond the flor
            singers = [names[s] for s, a in actions if a == FLOR and s & 1 == team]
            calls = ", ".join(dict.fromkeys([*singers, *flor_calls])) or "flor"
            lines.append(_("Flor ({calls}) — {gain}").format(calls=calls, gain=gain))
        elif source == "envido":
            lines.append(_envido_line(tr, envido_steps, showdowns, team, gain, names, you))
        elif rounds > 1:  # pica-pica: each pair played its own round
            round_number += 1
            lines.append(_("Truco, round {number} — {gain}").format(number=round_number, gain=gain))
        else:
            lines.append(_truco_line(tr, actions, len(names), points, gain, names, team_names, you))
    if not hand.why:
        lines.append(_("No points this hand."))
    if target is not None:
        lines += _dropped_lines(tr, hand, before, target, team_names)
    return lines


def _envido_sequences(actions: Sequence[tuple[int, int]]) -> list[tuple[list[int], int | None]]:
    """Each envido of the hand: its calls, and the seat that refused it (or ``None``)."""
    sequences: list[tuple[list[int], int | None]] = []
    calls: list[int] = []
    for seat, action in actions:
        if action in ENVIDO_CALLS:
            calls.append(action)
        elif calls and action in (QUIERO, NO_QUIERO):
            sequences.append((calls, seat if action == NO_QUIERO else None))
            calls = []
    return sequences


def _envido_line(
    tr: NullTranslations,
    sequences: list[tuple[list[int], int | None]],
    showdowns: Iterator[tuple[Declaration, ...]],
    team: int,
    gain: str,
    names: Sequence[str],
    you: int | None,
) -> str:
    _ = tr.gettext
    calls, refused_by = sequences.pop(0) if sequences else ([ENVIDO], None)
    said = " + ".join(CALL_NAMES[c] for c in calls)
    if refused_by is not None:
        if refused_by == you:
            return _("{calls}: you did not want it — {gain}").format(
                calls=said.capitalize(), gain=gain
            )
        return _("{calls}: {name} did not want it — {gain}").format(
            calls=said.capitalize(), name=names[refused_by], gain=gain
        )
    declarations = next(showdowns, ())
    winners = [d for d in declarations if d.seat & 1 == team and d.tanto is not None]
    if not winners:
        return f"{said.capitalize()} — {gain}"
    best = max(winners, key=lambda d: d.tanto or 0)
    if best.seat == you:
        return _("{calls}: you won with {tanto} — {gain}").format(
            calls=said.capitalize(), tanto=best.tanto, gain=gain
        )
    return _("{calls}: {name} won with {tanto} — {gain}").format(
        calls=said.capitalize(), name=names[best.seat], tanto=best.tanto, gain=gain
    )


def _truco_line(
    tr: NullTranslations,
    actions: Sequence[tuple[int, int]],
    players: int,
    points: int,
    gain: str,
    names: Sequence[str],
    team_names: Sequence[str],
    you: int | None,
) -> str:
    _ = tr.gettext
    last_seat, last = actions[-1] if actions else (None, None)
    left = {s for s, a in actions if a == MAZO}
    in_hand = set(range(players)) - left
    if last == MAZO and last_seat is not None and not _team_in_hand(last_seat, in_hand):
        if last_seat == you:
            return _("Truco: you went to the mazo — {gain}").format(gain=gain)
        return _("Truco: {name} went to the mazo — {gain}").format(name=names[last_seat], gain=gain)
    if last == NO_QUIERO and last_seat is not None:
        refused = next((a for _s, a in reversed(actions) if a in TRUCO_CALLS), TRUCO)
        if last_seat == you:
            return _("Truco: you did not want the {call} — {gain}").format(
                call=CALL_NAMES[refused], gain=gain
            )
        return _("Truco: {name} did not want the {call} — {gain}").format(
            name=names[last_seat], call=CALL_NAMES[refused], gain=gain
        )
    bazas = ", ".join(
        _baza_word(tr, b, team_names) for b in hand_bazas(actions, len(names)) if b.finished
    )
    if points in TRUCO_BY_POINTS:
        return _("Truco: {call} accepted, won on the bazas ({bazas}) — {gain}").format(
            call=TRUCO_BY_POINTS[points], bazas=bazas, gain=gain
        )
    return _("Truco: not called, won on the bazas ({bazas}) — {gain}").format(
        bazas=bazas, gain=gain
    )


_ORDINALS = ("1st", "2nd", "3rd")


def _baza_word(tr: NullTranslations, baza: Baza, team_names: Sequence[str]) -> str:
    _ = tr.gettext
    ordinal = _(_ORDINALS[min(baza.number, 3) - 1])
    if baza.winner is None:
        return _("{ordinal} parda").format(ordinal=ordinal)
    return f"{ordinal} {team_names[baza.winner]}"


def _dropped_lines(
    tr: NullTranslations,
    hand: PublicHand,
    before: tuple[int, int],
    target: int,
    team_names: Sequence[str],
) -> list[str]:
    """The points the engine did not add (beyond the target, or after the chico was won),
    and the chico won."""
    _ = tr.gettext
    ngettext = tr.ngettext
    score = list(before)
    decided = False
    lines = []
    for team, source, points in hand.why:
        if decided:
            lines.append(
                ngettext(
                    "{team}'s {points} point of {source} dropped: the chico was already won",
                    "{team}'s {points} points of {source} dropped: the chico was already won",
                    points,
                ).format(team=team_names[team], points=points, source=source)
            )
            continue
        kept = min(points, target - score[team])
        score[team] += kept
        if kept < points:
            lines.append(
                ngettext(
                    "{team} reached {target}: {dropped} point beyond it dropped",
                    "{team} reached {target}: {dropped} points beyond it dropped",
                    points - kept,
                ).format(team=team_names[team], target=target, dropped=points - kept)
            )
        if score[team] >= target and not decided:
            decided = True
            chico = _("Chico for {team} ({target} points)")
            lines.append(chico.format(team=team_names[team], target=target))
    return lines


def colour_team_names(lang: str) -> tuple[str, str]:
    """The teams as everyone at a table sees them, by their colour ("Azules", "Rojos")."""
    tr = translation(lang)
    return (tr.gettext("Blue"), tr.gettext("Red"))


def score_before(history: Sequence[HandResult], index: int, target: int) -> tuple[int, int]:
    """The score when hand ``index`` of ``history`` was dealt: the last hand's score,
    or nothing when that hand decided a chico (or there was none)."""
    if index == 0:
        return (0, 0)
    last = history[index - 1].score
    return (0, 0) if max(last) >= target else (last[0], last[1])


def explain_last_hand(
    history: Sequence[HandResult], names: Sequence[str], target: int
) -> dict[str, object]:
    """The last closed hand of a match explained in every language, the teams named by
    their colour: ``{"index": i, "lines": {"es": [...], "en": [...]}, "you": {...}}`` (what
    the server sends the page once per closed hand). ``you`` holds, by seat (a string), the
    lines told to that seat's player where they differ ("te fuiste al mazo" for "Ana se fue
    al mazo"); a seat without an entry reads ``lines``.

    >>> from truco import Game
    >>> game = Game(seed=3)
    >>> while not game.history:
    ...     seat = game.actors()[0]
    ...     game.apply(seat, game.legal_actions(seat, megaphone=False)[-1])
    >>> story = explain_last_hand(game.history, ("Ana", "Beto"), 30)
    >>> story["index"], sorted(story["lines"])  # type: ignore[call-overload]
    (0, ['en', 'es'])
    """
    index = len(history) - 1
    hand = public_hand(history[index])
    before = score_before(history, index, target)

    def told(lang: str, you: int | None = None) -> list[str]:
        teams = colour_team_names(lang)
        return explain_hand(hand, names, teams, before, lang, target=target, you=you)

    lines = {lang: told(lang) for lang in LANGUAGES}
    you: dict[str, dict[str, list[str]]] = {}
    for seat in range(len(names)):
        mine = {lang: told(lang, seat) for lang in LANGUAGES}
        if mine != lines:
            you[str(seat)] = mine
    return {"index": hand.index, "lines": lines, "you": you}


# ---------------------------------------------------------------- cards and moves in words
#: The suits as message ids (espadas, bastos, oros, copas in Spanish).
SUIT_WORDS = ("swords", "clubs", "coins", "cups")
#: The grades of ``truco analyze``, as message ids.
GRADE_WORDS = {"inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}


def card_words(card: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """A card as a person says it: "12 de bastos", "12 of clubs".

    >>> card_words(11), card_words(11, "en")
    ('2 de bastos', '2 of clubs')
    """
    _ = translation(lang).gettext
    return _("{rank} of {suit}").format(rank=RANK[card], suit=_(SUIT_WORDS[SUIT[card]]))


def move_words(action: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """What an action is, to be done: "jugar el 12 de bastos", "cantar vale cuatro",
    "decir quiero", "irse al mazo" (in English "play the 12 of clubs", "call vale cuatro"...).

    >>> move_words(VALE_CUATRO), move_words(11, "en")
    ('cantar vale cuatro', 'play the 2 of clubs')
    """
    _ = translation(lang).gettext
    if is_play(action):
        return _("play the {card}").format(card=card_words(action, lang))
    if action == MAZO:
        return _("go to the mazo")
    if action in (QUIERO, NO_QUIERO):
        return _("say {answer}").format(answer=action_token(action).replace("-", " "))
    if is_say(action):
        return _("say {answer}").format(answer=action_token(action).removeprefix("say "))
    return _("call {call}").format(call=CALL_NAMES[action])


def did_words(name: str, action: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """Who did what: "Lugar 1 jugó el 12 de bastos", "Seat 1 called truco".

    >>> did_words("Ana", MAZO), did_words("Ana", QUIERO, "en")
    ('Ana se fue al mazo', 'Ana said quiero')
    """
    _ = translation(lang).gettext
    if is_play(action):
        return _("{name} played the {card}").format(name=name, card=card_words(action, lang))
    if action == MAZO:
        return _("{name} went to the mazo").format(name=name)
    if action in (QUIERO, NO_QUIERO):
        answer = action_token(action).replace("-", " ")
        return _("{name} said {answer}").format(name=name, answer=answer)
    if is_say(action):
        answer = action_token(action).removeprefix("say ")
        return _("{name} said {answer}").format(name=name, answer=answer)
    return _("{name} called {call}").format(name=name, call=CALL_NAMES[action])


def decision_words(
    grade: str, name: str, chosen: int, best: int, loss: float, lang: str = DEFAULT_LANGUAGE
) -> str:
    """A graded decision of ``truco analyze`` in words, for a person:
    "Imprecisión: Lugar 1 jugó el 12 de bastos (pierde 0,62 puntos); mejor: cantar truco".

    >>> decision_words("mistake", "Seat 1", 35, TRUCO, 1.234, "en")
    'Mistake: Seat 1 played the 6 of cups (loses 1.23 points); better: call truco'
    """
    _ = translation(lang).gettext
    points = f"{loss:.2f}"
    if lang == "es":
        points = points.replace(".", ",")
    return _("{grade}: {did} (loses {points} points); better: {better}").format(
        grade=_(GRADE_WORDS.get(grade, grade)),
        did=did_words(name, chosen, lang),
        points=points,
        better=move_words(best, lang),
    )
