"""The table's widgets: panels, buttons that never take the keyboard, and the help and
megaphone screens."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, Static

from ..actions import MEGAPHONE_WORDS
from ..locale import _
from .keys import WORD_HINTS, WORD_KEYS, WORD_LABELS, say_action


class Panel(Static):
    """A bordered text panel with a title."""

    def __init__(self, title: str, *, id: str) -> None:
        super().__init__("", id=id, markup=True)
        self.border_title = title


class KeyButton(Button):
    """A button for the mouse; the keyboard goes through the table's keys, so the
    button never takes focus (Enter and space keep their meaning)."""

    can_focus = False

    def __init__(self, label: str, *, id: str) -> None:
        super().__init__(label, id=id, compact=True)


RULES_HELP = """\
# Truco — the rules in short

**Cards.** 40 Spanish cards in four suits: swords (espadas), clubs (bastos), coins (oros)
and cups (copas). From high to low: 1 of swords, 1 of clubs, 7 of swords, 7 of coins,
the 3s, the 2s, 1 of coins and 1 of cups, the 12s, 11s, 10s, 7 of cups and 7 of clubs,
the 6s, 5s, 4s.
Equal cards of rival teams make the baza *parda*.

**The hand.** Three cards each, three bazas; two bazas win the hand. After a parda the
next baza decides; a parda later goes to the winner of the first; all parda: the mano's team.

**Envido** (first baza only, before the truco is accepted): envido 2, envido-envido 4,
real envido 3, falta envido (what the leader needs). *No quiero* gives the caller what was
accepted before, or 1. Tanto: with two cards of a suit, 20 plus the two cards (10, 11, 12
count 0).
Each player declares from the mano; whoever cannot win says **son buenas**.
In 2v2 and 3v3 only the *pie* (last of the team to play) opens the envido.

**Flor** (tables con flor): three cards of a suit, sung before anything else: 3 points,
or contraflor (6) / contraflor al resto when the rivals hold flor too.

**Truco**: truco 2, retruco 3, vale cuatro 4; refused: 1, 2, 3 to the caller. Only the
team that accepted the last call raises. A hand without calls is worth 1.

**Al mazo**: leave the hand; the rivals score the truco in force.

**Score.** A chico is won at 15 or 30 points; on a table to 30 the first 15 are *las malas*,
the rest *las buenas*. A match is one chico or the best of three.

**Megaphone** (2v2, 3v3): words only your team hears — Sí, No, Voy, Vení, Tantos,
Cantale, Poné, No tengo nada.

# Keys

| key | action |
| --- | --- |
| 1 2 3 | play that card |
| e / r / f | envido / real envido / falta envido |
| l | flor |
| c / a / x | contraflor / contraflor al resto / con flor me achico |
| t | truco, retruco, vale cuatro |
| q / n | quiero / no quiero |
| m m | go to the mazo (m asks first; m again or y goes) |
| s | megaphone (team games) |
| Enter | next hand |
| w | save the record (when the match is over) |
| h or ? | this help |
| Ctrl+Q | quit (asks while a match is on, and offers to save it) |

Watching bots: space pauses, + and - change the speed.
Reading a record: → and ← step, PageDown / PageUp jump a hand, Home / End.

Press Escape or h to close.
"""


class HelpScreen(ModalScreen[None]):
    """The rules in short, and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,h,question_mark,q", "dismiss_help", "Close")
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-width: 100%; height: 90%;
        border: round $primary; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(_(RULES_HELP), id="help-text")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)


class MegaphoneScreen(ModalScreen[int | None]):
    """Pick a megaphone word (keys 1-8, Escape to cancel); dismisses with its action."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,s", "cancel", "Cancel")]
    DEFAULT_CSS = """
    MegaphoneScreen { align: center middle; }
    MegaphoneScreen > Grid { grid-size: 2; grid-gutter: 0 1; width: 70; height: auto;
        border: round $accent; background: $surface; padding: 0 1; }
    MegaphoneScreen Button { width: 100%; }
    """

    def compose(self) -> ComposeResult:
        with Grid() as grid:
            grid.border_title = _("📣 Megaphone — only your team hears it")
            for i, _word in enumerate(MEGAPHONE_WORDS):
                label = f"{WORD_KEYS[i]} {WORD_LABELS[i]} — {_(WORD_HINTS[i])}"
                yield KeyButton(label, id=f"word-{i}")

    def on_key(self, event: events.Key) -> None:
        if event.key in WORD_KEYS:
            event.stop()  # the word is spoken: the key must not reach the table too
            event.prevent_default()
            self.dismiss(say_action(WORD_KEYS.index(event.key)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        index = int((event.button.id or "word-0").removeprefix("word-"))
        self.dismiss(say_action(index))

    def action_cancel(self) -> None:
        self.dismiss(None)


class QuitScreen(ModalScreen[str | None]):
    """Quit in the middle of a match? Dismisses with ``"save"`` (save the record so far,
    then quit), ``"quit"``, or ``None`` (go on playing)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stay", "Stay"),
        Binding("w", "save", "Save and quit"),
        Binding("q,y", "leave", "Quit"),
    ]
    DEFAULT_CSS = """
    QuitScreen { align: center middle; }
    QuitScreen > Grid { grid-size: 1; width: 64; max-width: 100%; height: auto;
        border: round $warning; background: $surface; padding: 0 1; }
    QuitScreen Button { width: 100%; }
    """

    def __init__(self, *, can_save: bool) -> None:
        super().__init__()
        self.can_save = can_save

    def compose(self) -> ComposeResult:
        with Grid() as grid:
            grid.border_title = _("Quit the match?")
            if self.can_save:
                yield Static(_("The match is not over: quitting loses it."), id="quit-text")
                yield KeyButton(_("w  save the record so far, then quit"), id="quit-save")
            else:
                yield Static(
                    _("The server keeps the match; a bot covers your seat while you are away."),
                    id="quit-text",
                )
            yield KeyButton(_("q  quit"), id="quit-leave")
            yield KeyButton(_("Escape  go on playing"), id="quit-stay")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answer = {"quit-save": "save", "quit-leave": "quit"}.get(event.button.id or "")
        self.dismiss(answer)

    def action_save(self) -> None:
        if self.can_save:
            self.dismiss("save")

    def action_leave(self) -> None:
        self.dismiss("quit")

    def action_stay(self) -> None:
        self.dismiss(None)
