"""A seat's view as text for the table's panels (Textual markup).

Pure functions of a :class:`~truco.view.SeatView` and the players' names: they decide
nothing about the rules, they only say what the view holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.markup import escape

from ..actions import SAY_FIRST, is_play, is_say
from ..game import PARDA
from ..rules import Rules
from ..view import PendingCall, PublicHand, SeatView
from .cards_text import card_markup, card_short_markup
from .keys import CALL_LABELS, WORD_LABELS

TRUCO_LEVELS = ("", "truco", "retruco", "vale cuatro")
#: Each team's colour, for its name and its seats.
TEAM_STYLES = ("bold cyan", "bold magenta")


def team_markup(team: int, text: str) -> str:
    return f"[{TEAM_STYLES[team]}]{escape(text)}[/]"


def points_text(points: int, target: int) -> str:
    """A team's points, with las malas and las buenas on a table to 30."""
    if target != 30:
        return f"{points} of {target}"
    if points < 15:
        return f"{points} · {points} malas"
    if points == 15:
        return "15 · en las buenas"
    return f"{points} · {points - 15} buenas"


def tally(points: int) -> str:
    """Points as a score pad draws them: a square of five per group."""
    return " ".join(["▣"] * (points // 5) + (["·" * (points % 5)] if points % 5 else []))


def score_markup(view: SeatView, team_names: Sequence[str]) -> str:
    rules = view.rules
    lines = []
    for team in (0, 1):
        points = view.score[team]
        mark = " (you)" if view.team == team else ""
        lines.append(f"{team_markup(team, team_names[team])}{mark}")
        lines.append(f"  {points_text(points, rules.target)}  [dim]{tally(points)}[/dim]")
    if rules.chicos == 3:
        lines.append(f"Chicos {view.chicos[0]}-{view.chicos[1]} (best of 3)")
    return "\n".join(lines)


def _cards_left(view: SeatView, seat: int) -> int:
    return 3 - sum(1 for s, _ in view.played if s == seat)


def seats_markup(
    view: SeatView,
    names: Sequence[str],
    open_hands: Mapping[int, Sequence[int]],
    notes: Sequence[str] = (),
) -> str:
    """One line per seat: who acts, mano, dealer, who left, cards still held."""
    lines = []
    waiting = view.winner is None and (view.turn is not None or view.pending is not None)
    for seat, name in enumerate(names):
        acting = waiting and seat in view.actors
        marker = "[b reverse] ▶ [/]" if acting else "   "
        tags = []
        if seat == view.mano:
            tags.append("mano")
        if seat == view.dealer:
            tags.append("reparte")
        in_round = seat in view.round_seats
        if view.pica_pica and not in_round:
            tags.append("waits (pica-pica)")
        elif view.bazas and not view.in_hand[seat] and view.winner is None:
            tags.append("al mazo")
        line = f"{marker} {team_markup(seat % 2, name)}"
        if seat < len(notes) and notes[seat]:
            line += f" [dim]({escape(notes[seat])})[/dim]"
        if tags:
            line += f" [dim]· {', '.join(tags)}[/dim]"
        if seat in open_hands:
            line += "\n      " + (" ".join(card_short_markup(c) for c in open_hands[seat]) or "-")
        elif seat != view.seat and in_round and view.winner is None:
            line += f"\n      [dim]{'🂠 ' * _cards_left(view, seat)}[/dim]"
        lines.append(line)
    return "\n".join(lines)


def pending_text(pending: PendingCall, team_names: Sequence[str]) -> str:
    if pending.kind == "truco":
        call = TRUCO_LEVELS[pending.level]
    elif pending.kind == "envido":
        call = " + ".join(c.replace("-", " ") for c in pending.chain) or "envido"
    else:
        call = pending.kind.replace("-", " ")
    return f"¡{call}! — {team_names[pending.team]} must answer"


def table_markup(view: SeatView, names: Sequence[str], team_names: Sequence[str]) -> str:
    """The bazas of the hand so far, the pending call and the envido showdown."""
    if view.winner is not None:
        return f"[b]The match is over: {escape(team_names[view.winner])} won.[/b]"
    lines = []
    if view.pica_pica:
        pair = " vs ".join(escape(names[s]) for s in view.round_seats)
        lines.append(f"[b]Pica-pica[/b] round: {pair}")
    for i, baza in enumerate(view.bazas):
        cards = "   ".join(f"{escape(names[s])}: {card_markup(c)}" for s, c in baza)
        result = ""
        if i < len(view.baza_results):
            r = view.baza_results[i]
            result = "  → [b]parda[/b]" if r == PARDA else f"  → [b]{escape(team_names[r])}[/b]"
        lines.append(f"Baza {i + 1}: {cards or '[dim]…[/dim]'}{result}")
    if view.flor_sung:
        lines.append("Flor: " + ", ".join(escape(names[s]) for s in view.flor_sung))
    if view.truco_level:
        lines.append(f"[dim]Playing for {TRUCO_LEVELS[view.truco_level]}[/dim]")
    if view.pending is not None:
        lines.append(f"[b yellow]{escape(pending_text(view.pending, team_names))}[/b yellow]")
    for declarations in view.showdowns:
        lines.append("Envido: " + showdown_text(declarations, names))
    words = [
        f"{escape(names[seat])} [i]{WORD_LABELS[a - SAY_FIRST]}[/i]"
        for seat, a in view.log
        if is_say(a)
    ]
    if words:  # the view holds only the words of the seat's own team
        lines.append("📣 Your team: " + " · ".join(words[-6:]))
    return "\n".join(lines)


def showdown_text(declarations: Sequence[object], names: Sequence[str]) -> str:
    words = []
    for d in declarations:
        seat, tanto = d.seat, d.tanto  # type: ignore[attr-defined]
        said = "son buenas" if tanto is None else str(tanto)
        words.append(f"{escape(names[seat])} {said}")
    return " · ".join(words)


def turn_markup(view: SeatView, names: Sequence[str], team_names: Sequence[str]) -> str:
    """Whose move it is, from the person's side."""
    if view.winner is not None:
        return f"Match over: [b]{escape(team_names[view.winner])}[/b] won."
    if not view.actors:
        return "Waiting for the next hand."
    mine = (
        view.seat is not None
        and view.seat in view.actors
        and any(not is_say(a) for a in view.legal)
    )
    if view.pending is not None:
        if mine:
            return "[b reverse] Your answer [/]"
        who = ", ".join(escape(names[s]) for s in view.actors)
        return f"Waiting for the answer of {who}"
    if mine:
        return "[b reverse] Your turn [/]"
    return f"{escape(names[view.turn])}'s turn" if view.turn is not None else ""


def action_text(seat: int, action: int, names: Sequence[str]) -> str:
    name = escape(names[seat])
    if is_play(action):
        return f"{name}: {card_markup(action)}"
    if is_say(action):
        return f"{name} 📣 [i]{WORD_LABELS[action - SAY_FIRST]}[/i]"
    return f"{name}: [b]{CALL_LABELS[action]}[/b]"


def log_markup(
    view: SeatView, names: Sequence[str], log: Sequence[tuple[int, int]] | None = None
) -> str:
    """The hand so far, one action a line: the view's log (the team's own megaphone words
    only), or ``log`` where nothing is secret (a record)."""
    lines = [f"[dim]Hand {view.hand_index + 1}, mano {escape(names[view.mano])}[/dim]"]
    lines += [action_text(s, a, names) for s, a in (view.log if log is None else log)]
    return "\n".join(lines)


def last_hand_markup(
    hand: PublicHand | None, names: Sequence[str], team_names: Sequence[str], rules: Rules
) -> str:
    """What the last closed hand scored, and the cards it showed."""
    if hand is None:
        return "[dim]No hand played yet.[/dim]"
    lines = [f"[b]Hand {hand.index + 1}[/b]"]
    if hand.played:
        lines.append(
            "  " + "  ".join(f"{escape(names[s])} {card_markup(c)}" for s, c in hand.played)
        )
    for team, source, points in hand.why:
        lines.append(f"  {escape(team_names[team])} +{points} ({source})")
    if not hand.why:
        lines.append("  no points")
    for declarations in hand.showdowns:
        lines.append("  Envido: " + showdown_text(declarations, names))
    for seat, cards in hand.revealed:
        shown = ", ".join(card_markup(c) for c in cards)
        lines.append(f"  {escape(names[seat])} shows {shown}")
    score = " - ".join(str(p) for p in hand.score)
    lines.append(
        f"  Score {score}"
        + (f", chicos {hand.chicos[0]}-{hand.chicos[1]}" if rules.chicos == 3 else "")
    )
    return "\n".join(lines)


def hand_result_markup(hand: PublicHand, names: Sequence[str], team_names: Sequence[str]) -> str:
    """One line for the log: what a closed hand gave each team."""
    gains = ", ".join(
        f"{escape(team_names[team])} +{points} {source}" for team, source, points in hand.why
    )
    return (
        f"[b]— Hand {hand.index + 1}: {gains or 'no points'} ({hand.score[0]}-{hand.score[1]})[/b]"
    )
