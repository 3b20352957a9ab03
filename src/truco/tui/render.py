"""A seat's view as text for the table's panels (Textual markup), in the client's language.

Pure functions of a :class:`~truco.view.SeatView` and the players' names: they decide
nothing about the rules, they only say what the view holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.markup import escape

from ..actions import SAY_FIRST, is_play, is_say
from ..cards import RANK, SUIT
from ..game import PARDA, Declaration
from ..locale import _
from ..narrate import explain_hand, hand_bazas
from ..rules import Rules
from ..view import PendingCall, PublicHand, SeatView
from .cards_text import SUIT_STYLES, card_markup, card_short_markup, suit_text
from .keys import WORD_LABELS, call_words

TRUCO_LEVELS = ("", "truco", "retruco", "vale cuatro")
#: Each team's colour, for its name and its seats; the same for every viewer.
TEAM_STYLES = ("bold cyan", "bold magenta")
#: The mark of each team beside its seats (colour blind friendly: a shape as well).
TEAM_MARKS = ("●", "◆")


def team_markup(team: int, text: str) -> str:
    return f"[{TEAM_STYLES[team]}]{escape(text)}[/]"


def points_text(points: int, target: int) -> str:
    """A team's points, with las malas and las buenas on a table to 30."""
    if target != 30:
        return _("{points} of {target}").format(points=points, target=target)
    if points < 15:
        return _("{points} · {points} malas").format(points=points)
    if points == 15:
        return _("15 · en las buenas")
    return _("{points} · {buenas} buenas").format(points=points, buenas=points - 15)


def tally(points: int) -> str:
    """Points as a score pad draws them: a square of five per group."""
    return " ".join(["▣"] * (points // 5) + (["·" * (points % 5)] if points % 5 else []))


def score_markup(view: SeatView, team_names: Sequence[str], *, compact: bool = False) -> str:
    """Each team's points (with a score-pad tally unless ``compact``), and the chicos."""
    rules = view.rules
    lines = []
    for team in (0, 1):
        points = view.score[team]
        mark = _(" (you)") if view.team == team else ""
        name = f"{TEAM_MARKS[team]} {team_names[team]}"
        if compact:
            lines.append(f"{team_markup(team, name)}{mark} [b]{points}[/b]")
            continue
        lines.append(f"{team_markup(team, name)}{mark}")
        lines.append(f"  {points_text(points, rules.target)}")
        if points:
            lines.append(f"  [dim]{tally(points)}[/dim]")
    if rules.chicos == 3:
        lines.append(
            _("Chicos {ours}-{theirs} (best of 3)").format(
                ours=view.chicos[0], theirs=view.chicos[1]
            )
        )
    return "\n".join(lines)


def _cards_left(view: SeatView, seat: int) -> int:
    return 3 - sum(1 for s, _c in view.played if s == seat)


def seat_relation(seat: int, viewer: int | None) -> str:
    """ "you", "partner" or "rival" of ``seat`` for ``viewer`` (empty for a spectator)."""
    if viewer is None:
        return ""
    if seat == viewer:
        return _("you")
    return _("partner") if seat & 1 == viewer & 1 else _("rival")


def seats_markup(
    view: SeatView,
    names: Sequence[str],
    open_hands: Mapping[int, Sequence[int]],
    notes: Sequence[str] = (),
    *,
    compact: bool = False,
) -> str:
    """One line per seat: its team's mark and colour, partner or rival, who acts, mano,
    dealer, who left, and (unless ``compact``) the cards still held."""
    lines = []
    waiting = view.winner is None and (view.turn is not None or view.pending is not None)
    players = view.rules.players
    for seat, name in enumerate(names):
        acting = waiting and seat in view.actors
        marker = "[b reverse]▶[/]" if acting else " "
        tags = []
        relation = seat_relation(seat, view.seat) if players > 2 else ""
        if relation and seat != view.seat:
            tags.append(relation)
        if seat == view.mano:
            tags.append(_("mano"))
        if seat == view.dealer and not compact:
            tags.append(_("deals"))
        in_round = seat in view.round_seats
        if view.pica_pica and not in_round:
            tags.append(_("waits (pica-pica)"))
        elif view.bazas and not view.in_hand[seat] and view.winner is None:
            tags.append(_("al mazo"))
        line = f"{marker}{team_markup(seat & 1, f'{TEAM_MARKS[seat & 1]} {name}')}"
        if tags:
            line += f" [dim]· {', '.join(tags)}[/dim]"
        if compact:
            lines.append(line)
            continue
        below = []  # what plays the seat, and its cards (open) or how many it holds
        if seat < len(notes) and notes[seat]:
            below.append(f"[dim]{escape(notes[seat])}[/dim]")
        if seat in open_hands:
            below.append(" ".join(card_short_markup(c) for c in open_hands[seat]) or "-")
        elif seat != view.seat and in_round and view.winner is None:
            below.append(f"[dim]{'🂠 ' * _cards_left(view, seat)}[/dim]")
        if below:
            line += "\n   " + " ".join(below)
        lines.append(line)
    return "\n".join(lines)


def call_name(pending: PendingCall) -> str:
    if pending.kind == "truco":
        return TRUCO_LEVELS[pending.level]
    if pending.kind == "envido":
        return " + ".join(c.replace("-", " ") for c in pending.chain) or "envido"
    return pending.kind.replace("-", " ")


def pending_text(
    pending: PendingCall, team_names: Sequence[str], seat: int | None = None, players: int = 2
) -> str:
    """The call waiting for an answer and who owes it: spoken to a player ("¡truco! — te
    toca responder", "nos toca" in a team, "responden ellos"), of the teams by name to a
    spectator."""
    call = call_name(pending)
    if seat is None:
        return _("¡{call}! — {team} must answer").format(call=call, team=team_names[pending.team])
    if pending.team == seat % 2 and players == 2:
        return _("¡{call}! — you must answer").format(call=call)
    if pending.team == seat % 2:
        return _("¡{call}! — we must answer").format(call=call)
    return _("¡{call}! — they must answer").format(call=call)


def card_cell(card: int, width: int) -> str:
    """A card for a cell of the bazas grid, ``width`` columns: ``12 espadas``, or
    ``12 esp`` in narrow cells; its suit coloured."""
    suit = suit_text(card)
    text = f"{RANK[card]} {suit if width > 10 else suit[:3]}"
    return f"[{SUIT_STYLES[SUIT[card]]}]{text}[/]" + " " * max(1, width - len(text))


def bazas_grid(
    bazas: Sequence[Sequence[tuple[int, int]]],
    results: Sequence[int | None],
    seats: Sequence[int],
    names: Sequence[str],
    team_names: Sequence[str],
    *,
    compact: bool = False,
) -> list[str]:
    """The bazas laid out per seat, as on a table: a column per baza, a row per seat
    with the card it played there, and a last row with who won each (or parda).
    ``results`` holds a team, :data:`~truco.game.PARDA`, or ``None`` (not settled yet)."""
    if not bazas:
        return []
    width = 7 if compact else 11
    name_width = min(max(len(names[s]) for s in seats), 8) + 3
    ordinals = (_("1st"), _("2nd"), _("3rd"))
    head = " " * name_width + "".join(f"{ordinals[i]:<{width}}" for i in range(len(bazas)))
    lines = [f"[dim]{escape(head.rstrip())}[/dim]"]
    for seat in seats:
        row = team_markup(seat & 1, f"{TEAM_MARKS[seat & 1]} {names[seat][:8]}".ljust(name_width))
        for baza in bazas:
            card = next((c for s, c in baza if s == seat), None)
            if card is None:
                row += "[dim]" + "·".ljust(width) + "[/dim]"
            else:
                row += card_cell(card, width)
        lines.append(row)
    wins = " " * name_width
    for i in range(len(bazas)):
        result = results[i] if i < len(results) else None
        if result is None:
            cell, style = "…", "dim"
        elif result == PARDA:
            cell, style = _("parda"), "b"
        else:
            cell, style = team_names[result][: width - 1], TEAM_STYLES[result]
        wins += f"[{style}]{escape(cell)}[/]" + " " * max(1, width - len(cell))
    lines.append(wins.rstrip())
    return lines


def table_markup(
    view: SeatView, names: Sequence[str], team_names: Sequence[str], *, compact: bool = False
) -> str:
    """The bazas of the hand so far, laid out per seat; the pending call; the envido
    showdown; the team's megaphone words."""
    if view.winner is not None:
        return (
            "[b]"
            + escape(_("The match is over: {team} won.").format(team=team_names[view.winner]))
            + "[/b]"
        )
    lines = []
    if view.pica_pica:
        pair = " vs ".join(escape(names[s]) for s in view.round_seats)
        lines.append(_("[b]Pica-pica[/b] round: {pair}").format(pair=pair))
    seats = view.round_seats or tuple(range(view.rules.players))
    bazas = [baza for baza in view.bazas if baza]  # a baza about to be led is not drawn
    lines += bazas_grid(bazas, view.baza_results, seats, names, team_names, compact=compact)
    if view.flor_sung:
        lines.append(
            _("Flor: {names}").format(names=", ".join(escape(names[s]) for s in view.flor_sung))
        )
    if view.truco_level:
        lines.append(
            "[dim]" + _("Playing for {call}").format(call=TRUCO_LEVELS[view.truco_level]) + "[/dim]"
        )
    if view.pending is not None:
        waiting = pending_text(view.pending, team_names, view.seat, view.rules.players)
        lines.append(f"[b yellow]{escape(waiting)}[/b yellow]")
    for declarations in view.showdowns:
        lines.append("Envido: " + showdown_text(declarations, names))
    words = [
        f"{escape(names[seat])} [i]{WORD_LABELS[a - SAY_FIRST]}[/i]"
        for seat, a in view.log
        if is_say(a)
    ]
    if words:  # the view holds only the words of the seat's own team
        lines.append(_("📣 Your team: {words}").format(words=" · ".join(words[-6:])))
    if not lines:
        lines.append("[dim]" + _("No card on the table yet.") + "[/dim]")
    return "\n".join(lines)


def showdown_text(declarations: Sequence[Declaration], names: Sequence[str]) -> str:
    words = []
    for d in declarations:
        said = "son buenas" if d.tanto is None else str(d.tanto)
        words.append(f"{escape(names[d.seat])} {said}")
    return " · ".join(words)


def turn_markup(view: SeatView, names: Sequence[str], team_names: Sequence[str]) -> str:
    """Whose move it is, from the person's side."""
    if view.winner is not None:
        return _("Match over: [b]{team}[/b] won.").format(team=escape(team_names[view.winner]))
    if not view.actors:
        return _("Waiting for the next hand.")
    mine = (
        view.seat is not None
        and view.seat in view.actors
        and any(not is_say(a) for a in view.legal)
    )
    if view.pending is not None:
        if mine:
            return "[b reverse] " + _("Your answer") + " [/]"
        who = ", ".join(escape(names[s]) for s in view.actors)
        return _("Waiting for the answer of {who}").format(who=who)
    if mine:
        return "[b reverse] " + _("Your turn") + " [/]"
    if view.turn is None:
        return ""
    return _("{name}'s turn").format(name=escape(names[view.turn]))


def action_text(seat: int, action: int, names: Sequence[str]) -> str:
    name = team_markup(seat & 1, names[seat])
    if is_play(action):
        return f"{name}: {card_markup(action)}"
    if is_say(action):
        return f"{name} 📣 [i]{WORD_LABELS[action - SAY_FIRST]}[/i]"
    return f"{name}: [b]{call_words(action)}[/b]"


def log_markup(
    view: SeatView,
    names: Sequence[str],
    log: Sequence[tuple[int, int]] | None = None,
    *,
    hand_index: int | None = None,
    mano: int | None = None,
) -> str:
    """A hand, one action a line: the view's log (the team's own megaphone words only),
    or ``log`` (a closed hand's, or a record's where nothing is secret) of hand
    ``hand_index`` whose mano was ``mano`` (default: the view's hand)."""
    index = view.hand_index if hand_index is None else hand_index
    first = view.mano if mano is None else mano
    if first == view.seat:  # the person is told, not named ("Mano 1, es mano Vos")
        head = _("Hand {number}, you are mano").format(number=index + 1)
    else:
        head = _("Hand {number}, mano {name}").format(number=index + 1, name=names[first])
    lines = [f"[dim]{escape(head)}[/dim]"]
    lines += [action_text(s, a, names) for s, a in (view.log if log is None else log)]
    return "\n".join(lines)


def closed_log(seen: Sequence[tuple[int, int]], hand: PublicHand) -> tuple[tuple[int, int], ...]:
    """The whole log of a closed hand for a seat: what it saw while the hand was played
    (its team's megaphone words included), then the hand's public actions it had not
    seen yet (the last card, the "no quiero" or the mazo that ended it)."""
    public_seen = sum(1 for _s, a in seen if not is_say(a))
    return (*seen, *hand.actions[public_seen:])


def hand_gains(hand: PublicHand, before: tuple[int, int] | None) -> tuple[int, int]:
    """The points each team actually scored in the hand: from ``before`` (the score when
    it was dealt) when known, else what the hand was worth to each."""
    if before is None:
        return hand.points
    return (hand.score[0] - before[0], hand.score[1] - before[1])


def last_hand_markup(
    hand: PublicHand | None,
    names: Sequence[str],
    team_names: Sequence[str],
    rules: Rules,
    before: tuple[int, int] | None,
    *,
    compact: bool = False,
    you: int | None = None,
) -> str:
    """The last closed hand: its bazas laid out per seat, what it scored explained in
    words (envido, truco and how, points dropped; ``you``, the person's seat, in the
    second person), the cards shown and the score."""
    if hand is None:
        return "[dim]" + _("No hand played yet.") + "[/dim]"
    lines = [f"[b]{escape(_('Hand {number}').format(number=hand.index + 1))}[/b]"]
    lines += closed_bazas_lines(hand, names, team_names, rules, compact=compact)
    target = rules.target if before is not None else None
    lines += [escape(line) for line in _explain(hand, names, team_names, before, target, you)]
    for declarations in hand.showdowns:
        lines.append("Envido: " + showdown_text(declarations, names))
    for seat, cards in hand.revealed:
        shown = ", ".join(card_markup(c) for c in cards)
        lines.append(_("{name} shows {cards}").format(name=escape(names[seat]), cards=shown))
    score = f"{hand.score[0]}-{hand.score[1]}"
    line = _("Score {score}").format(score=score)
    if rules.chicos == 3:
        line += _(", chicos {chicos}").format(chicos=f"{hand.chicos[0]}-{hand.chicos[1]}")
    lines.append(line)
    return "\n".join(lines)


def closed_bazas_lines(
    hand: PublicHand,
    names: Sequence[str],
    team_names: Sequence[str],
    rules: Rules,
    *,
    compact: bool = False,
) -> list[str]:
    """A closed hand's bazas laid out per seat, its last card included (a pica-pica
    hand's cards in the order played)."""
    bazas = hand_bazas(hand.actions, rules.players)
    seats = sorted({s for s, _c in hand.played})
    if bazas and seats and not _several_rounds(hand):
        return bazas_grid(
            [b.cards for b in bazas],
            [(PARDA if b.winner is None else b.winner) if b.finished else None for b in bazas],
            seats,
            names,
            team_names,
            compact=compact,
        )
    if hand.played:
        return ["  ".join(f"{escape(names[s])} {card_markup(c)}" for s, c in hand.played)]
    return []


def landed_markup(
    hand: PublicHand,
    names: Sequence[str],
    team_names: Sequence[str],
    rules: Rules,
    *,
    compact: bool = False,
) -> str:
    """The table panel while a closed hand stays on it: its bazas as they ended (the
    deciding card drawn), the tantos sung and the cards shown."""
    title = _("Hand {number} is over").format(number=hand.index + 1)
    lines = [f"[b]{escape(title)}[/b]"]
    lines += closed_bazas_lines(hand, names, team_names, rules, compact=compact)
    for declarations in hand.showdowns:
        lines.append("Envido: " + showdown_text(declarations, names))
    for seat, cards in hand.revealed:
        shown = ", ".join(card_markup(c) for c in cards)
        lines.append(_("{name} shows {cards}").format(name=escape(names[seat]), cards=shown))
    return "\n".join(lines)


def _several_rounds(hand: PublicHand) -> bool:
    return sum(1 for _t, source, _p in hand.why if source == "truco") > 1


def _explain(
    hand: PublicHand,
    names: Sequence[str],
    team_names: Sequence[str],
    before: tuple[int, int] | None,
    target: int | None,
    you: int | None = None,
) -> list[str]:
    from ..locale import current_language

    return explain_hand(
        hand, names, team_names, before or (0, 0), current_language(), target=target, you=you
    )


def hand_result_markup(
    hand: PublicHand,
    names: Sequence[str],
    team_names: Sequence[str],
    before: tuple[int, int] | None,
    target: int,
    *,
    you: int | None = None,
) -> str:
    """The close of a hand for the log: what each team scored (points dropped because
    the chico was decided are not counted), then the hand explained in words (``you``,
    the person's seat, in the second person)."""
    gains = hand_gains(hand, before)
    scored = ", ".join(f"{team_names[team]} +{gains[team]}" for team in (0, 1) if gains[team]) or _(
        "no points"
    )
    head = _("— Hand {number}: {scored} ({score})").format(
        number=hand.index + 1, scored=scored, score=f"{hand.score[0]}-{hand.score[1]}"
    )
    lines = [f"[b]{escape(head)}[/b]"]
    explained = _explain(
        hand, names, team_names, before, target if before is not None else None, you
    )
    lines += [f"  [i]{escape(line)}[/i]" for line in explained]
    return "\n".join(lines)
