"""The analysis told in words, for the terminal (``truco analyze``, ``truco show
--analyze``): moves as a player says them, losses as points and chance, never the
engine's tokens."""

from __future__ import annotations

from ..actions import MAZO, NO_QUIERO, QUIERO, action_token, is_play
from ..cards import RANK, SUIT
from .engine import PLURAL, Analysis, Decision

SUIT_WORDS = ("swords", "clubs", "coins", "cups")
CALL_WORDS = {
    "envido": "call envido",
    "real-envido": "call real envido",
    "falta-envido": "call falta envido",
    "flor": "sing flor",
    "contraflor": "sing contraflor",
    "contraflor-al-resto": "sing contraflor al resto",
    "con-flor-me-achico": "say con flor me achico",
    "truco": "call truco",
    "retruco": "call retruco",
    "vale-cuatro": "call vale cuatro",
}


def card_words(card: int) -> str:
    """``"the 12 of clubs"``."""
    return f"the {RANK[card]} of {SUIT_WORDS[SUIT[card]]}"


def move_words(action: int) -> str:
    """A move as a player says it: ``"play the 12 of clubs"``, ``"refuse (no quiero)"``."""
    if is_play(action):
        return f"play {card_words(action)}"
    if action == QUIERO:
        return "accept (quiero)"
    if action == NO_QUIERO:
        return "refuse (no quiero)"
    if action == MAZO:
        return "go to the mazo"
    return CALL_WORDS[action_token(action)]


def loss_words(d: Decision) -> str:
    """``"gave away 1.3 points of the hand and 6% of the chance to win the match"``."""
    return (
        f"gave away {d.points:.1f} points of the hand "
        f"and {100 * d.chance:.0f}% of the chance to win the match"
    )


def decision_line(d: Decision, analysis: Analysis) -> str:
    """One graded decision in a sentence."""
    seat = f"seat {d.seat}"
    name = next((p.name for p in analysis.players if p.seat == d.seat), seat)
    who = seat if name == seat else f"{name} ({seat})"
    article = "an" if d.grade == "inaccuracy" else "a"
    return (
        f"hand {d.hand + 1}, move {d.step + 1}: {who} chose to "
        f"{move_words(d.chosen)}, {article} {d.grade}: {loss_words(d)}; "
        f"better: {move_words(d.best)}"
    )


def report(analysis: Analysis) -> str:
    """Per player their accuracy and grades, then every graded decision."""
    lines = [f"{'seat':<5} {'player':<16} {'decisions':>9} {'accuracy':>8}  graded"]
    for p in analysis.players:
        graded = ", ".join(f"{n} {g if n == 1 else PLURAL[g]}" for g, n in p.grades.items())
        lines.append(f"{p.seat:<5} {p.name:<16} {p.decisions:>9} {p.accuracy:>8.1f}  {graded}")
    marked = [d for d in analysis.decisions if d.grade is not None]
    if marked:
        lines.append("")
    lines.extend(decision_line(d, analysis) for d in marked)
    return "\n".join(lines)
