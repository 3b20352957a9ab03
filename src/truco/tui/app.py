"""The Textual app: one table, drawn from one seat's view.

The app asks its session for the view, draws it, and turns keys and button presses
into actions that the session (the engine, or the server) accepts or refuses with a
reason. Bots think on a thread and act through the session, paced by a timer so that a
person can follow them.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import threading
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.markup import escape
from textual.widgets import Button, Static

from ..actions import MAZO, SAY_ACTIONS, TRUCO, VALE_CUATRO, is_say
from ..locale import _
from ..record import RecordError, load_record, replay
from ..view import PublicHand, SeatView
from . import render
from .cards_text import card_markup
from .keys import (
    CALL_KEYS,
    CARD_KEYS,
    KEY_CALLS,
    MEGAPHONE_KEY,
    call_label,
    call_words,
)
from .reasons import refusal_text
from .session import BotTurn, TableSession
from .viewer import RecordViewer
from .widgets import HelpScreen, KeyButton, MegaphoneScreen, Panel, QuitScreen

#: Seconds between two bot actions at speed 1.
BASE_DELAY = 1.0
#: A closed hand stays on screen this many bot delays when watching.
HAND_PAUSE = 3
#: Online, a closed hand stays on the table this long (or until a key or an action).
LANDED_SECONDS = 4.0

_CALL_BUTTONS = tuple(dict.fromkeys(CALL_KEYS))  # each call once, in drawing order


class TrucoApp(App[None]):
    """The terminal table for a :class:`~truco.tui.session.TableSession`."""

    TITLE = "Truco Argento"
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold; }
    #top { height: 1fr; layout: grid; grid-size: 3 1; grid-columns: 1fr 2fr 1fr; }
    #left { height: 100%; }
    #score { height: auto; border: round $primary; padding: 0 1; }
    #seats { height: 1fr; border: round $primary; padding: 0 1; }
    #middle { height: 100%; }
    #table { height: 1fr; min-height: 6; border: round $accent; padding: 0 1; }
    #last { height: auto; max-height: 16; border: round $secondary; padding: 0 1; }
    #log-box { height: 100%; border: round $primary; padding: 0 1; }
    #turn { height: 1; padding: 0 1; }
    #message { height: auto; min-height: 1; padding: 0 1; color: $warning; }
    #hand { height: auto; padding: 0 1; }
    #hand KeyButton { width: auto; min-width: 0; margin-right: 2; }
    #calls { grid-size: 5; grid-gutter: 0 1; height: auto; padding: 0 1; }
    #calls KeyButton { width: 100%; }
    #keys { height: 1; background: $panel; color: $text-muted; padding: 0 1; }

    /* narrow terminals (under 100 columns): the log goes under the score and the seats */
    Screen.-narrow #top { grid-size: 2 2; grid-columns: 30 1fr; grid-rows: auto 1fr; }
    Screen.-narrow #middle { row-span: 2; }
    Screen.-narrow #left { height: auto; }
    Screen.-narrow #seats { height: auto; }
    Screen.-narrow #calls { grid-size: 3; }
    /* short terminals: the last hand's panel gives its room to the table */
    Screen.-short #last { max-height: 9; }
    Screen.-tiny #top { grid-columns: 24 1fr; }
    Screen.-tiny #last { display: none; }
    """

    #: Widths and heights where the layout changes (see the CSS classes above).
    NARROW_BELOW = 100
    SHORT_BELOW = 32
    TINY_BELOW = (70, 22)

    def __init__(
        self,
        session: TableSession,
        *,
        delay: float = BASE_DELAY,
        save_dir: Path | str = ".",
    ) -> None:
        super().__init__()
        self.session = session
        self.delay = delay
        self.save_dir = Path(save_dir)
        self.message = ""
        self.paused = False
        self.saved_path: Path | None = None
        self._scheduled = False  # a bot's move is on its way
        self._thinking = False  # a bot is thinking on its thread
        self._seen_hand = -1  # the last closed hand the person has seen the result of
        self._landed_seen = -1  # the last closed hand the table panel no longer shows
        self._landed_timer = -1  # the closed hand a pause runs for (online)
        self._view: SeatView = session.view()
        self._log_hand = self._view.hand_index  # the hand the log is writing
        self._last_log = ""
        self._seen_log: tuple[tuple[int, int], ...] = ()  # that hand's actions as last seen
        self._old_log: list[str] = []
        self._log_closed = -1  # the last hand whose log was closed
        #: The score when each hand was dealt, as seen (to tell what a hand really scored).
        self._start_scores: dict[int, tuple[int, int]] = {}
        self._closed_hands: dict[int, PublicHand] = {}
        self.compact = False  # a small terminal: shorter texts
        self._mazo_asked = False  # "m" was pressed once: the next "m" (or "y") leaves the hand

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield Panel(_("Score"), id="score")
                yield Panel(_("Seats"), id="seats")
            with Vertical(id="middle"):
                yield Panel(_("Table"), id="table")
                yield Panel(_("Last hand"), id="last")
            with VerticalScroll(id="log-box") as log_box:
                log_box.border_title = _("Log")
                yield Static(id="log")
        yield Static(id="turn")
        yield Static(id="message")
        with Horizontal(id="hand"):
            for i in range(3):
                yield KeyButton("", id=f"card-{i}")
        with Grid(id="calls"):
            for action in _CALL_BUTTONS:
                yield KeyButton(call_words(action), id=f"act-{action}")
            yield KeyButton(f"{MEGAPHONE_KEY} 📣 " + _("megaphone"), id="megaphone")
        yield Static(id="keys")

    def on_mount(self) -> None:
        if self.session.mode == "remote":  # a server's table: its frames redraw the screen
            self.run_worker(self.session.listen(self.refresh_table), name="table socket")
            self.set_interval(1.0, self._draw_title)  # the turn clock counts down
        self._fit(self.size.width, self.size.height)
        self.refresh_table()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)
        self.refresh_table()

    def _fit(self, width: int, height: int) -> None:
        """Choose the layout for the terminal's size."""
        tiny = width < self.TINY_BELOW[0] or height < self.TINY_BELOW[1]
        self.screen.set_class(width < self.NARROW_BELOW, "-narrow")
        self.screen.set_class(height < self.SHORT_BELOW, "-short")
        self.screen.set_class(tiny, "-tiny")
        self.compact = width < self.NARROW_BELOW or height < self.SHORT_BELOW

    def on_unmount(self) -> None:
        self.session.close()

    # ------------------------------------------------------------------ drawing
    @property
    def view(self) -> SeatView:
        return self._view

    def hand_over(self) -> bool:
        """A hand has just closed and the person has not moved on yet (play only)."""
        last = self._view.last_hand
        return (
            self.session.mode == "play"
            and last is not None
            and last.index > self._seen_hand
            and self._view.winner is None
        )

    def landed(self) -> PublicHand | None:
        """The closed hand the table panel still shows, until the person moves on
        (Enter, or an action), the next hand moves (watching), or a pause passes (online);
        the match's last hand stays."""
        last = self._view.last_hand
        if last is None or last.index <= self._landed_seen or self.session.mode == "show":
            return None
        if self._view.winner is not None:
            return last
        if self.session.mode == "watch" and self._view.log:
            return None  # the next hand is being played: the pause was the watching's
        if self.session.mode == "remote" and self._landed_timer != last.index:
            self._landed_timer = last.index
            self.set_timer(LANDED_SECONDS, lambda: self.move_on(last.index))
        return last

    def move_on(self, index: int | None = None) -> None:
        """The next hand to the table (``index``: only if that closed hand still shows)."""
        last = self._view.last_hand
        if last is None or (index is not None and index != last.index):
            return
        self._landed_seen = max(self._landed_seen, last.index)
        self.refresh_table()

    def refresh_table(self) -> None:
        """Read the session's view and redraw everything; then let the bots go on."""
        s = self.session
        view = self._view = s.view()
        self._remember(view)
        notice = s.pop_notice()
        if notice:
            self.message = notice
        names, teams = s.names, s.team_names
        compact = self.compact
        self._draw_title()
        self.query_one("#score", Panel).update(render.score_markup(view, teams, compact=compact))
        self.query_one("#seats", Panel).update(
            render.seats_markup(view, names, s.open_hands(), s.seat_notes, compact=compact)
        )
        landed = self.landed()
        if landed is None:
            table = render.table_markup(view, names, teams, compact=compact)
        else:  # the closed hand stays on the table, its last card drawn
            table = render.landed_markup(landed, names, teams, view.rules, compact=compact)
            if view.winner is not None:
                table = render.table_markup(view, names, teams) + "\n" + table
        self.query_one("#table", Panel).update(table)
        last = view.last_hand
        self.query_one("#last", Panel).update(
            render.last_hand_markup(
                last,
                names,
                teams,
                view.rules,
                self.score_before(last),
                compact=compact,
                you=s.seat,
            )
        )
        self._draw_log(view)
        self.query_one("#turn", Static).update(self._turn_line())
        message = self.message
        if not message and isinstance(s, RecordViewer):
            message = s.mark()  # the analysis' word on this step, whole, on its own line
        self.query_one("#message", Static).update(escape(message))
        self._draw_buttons(view)
        self.query_one("#keys", Static).update(self._keys_line())
        self._pace()

    def _remember(self, view: SeatView) -> None:
        """Keep what later explains a closed hand: the score each hand was dealt at."""
        last = view.last_hand
        if last is not None:
            self._closed_hands[last.index] = last
        in_play = view.winner is None and (last is None or last.index < view.hand_index)
        if in_play:
            self._start_scores.setdefault(view.hand_index, view.score)

    def score_before(self, hand: PublicHand | None) -> tuple[int, int] | None:
        """The score when ``hand`` was dealt, if known (the session's word first)."""
        if hand is None:
            return None
        known = self.session.score_before(hand.index)
        if known is not None:
            return known
        if hand.index == 0:
            return (0, 0)
        return self._start_scores.get(hand.index)

    def _draw_title(self) -> None:
        s = self.session
        caption = s.caption()
        mode = {
            "play": "",
            "watch": _(" — watching bots"),
            "show": _(" — record"),
            "remote": _(" — online") if s.seat is not None else _(" — online, watching"),
        }
        title = f"Truco Argento · {self._view.rules.describe()}{mode.get(s.mode, '')}"
        self.query_one("#title", Static).update(
            escape(title + (f" · {caption}" if caption else ""))
        )

    def _draw_log(self, view: SeatView) -> None:
        """The log of the match: the hands before (each with its last action, what it
        scored and why) above the one being played."""
        s = self.session
        last = view.last_hand
        log = self.query_one("#log", Static)
        if isinstance(s, RecordViewer):  # a record jumps about: its log is the hand shown
            hand_number, mano = s.hand_shown()
            lines = [
                render.log_markup(view, s.names, s.hand_log(), hand_index=hand_number, mano=mano)
            ]
            if last is not None and last.index == hand_number:
                lines.append(self._result_markup(last))
            log.update("\n".join(lines))
            self.query_one("#log-box", VerticalScroll).scroll_end(animate=False)
            return
        if view.hand_index > self._log_hand:  # the next hand is dealt
            self._close_log(self._log_hand)
        self._log_hand = view.hand_index
        if last is not None and last.index == view.hand_index:  # closed, not dealt again
            self._close_log(view.hand_index)
        else:
            self._seen_log = view.log
            self._last_log = render.log_markup(view, s.names)
        shown = [*self._old_log[-40:], self._last_log]
        log.update("\n".join(line for line in shown if line))
        self.query_one("#log-box", VerticalScroll).scroll_end(animate=False)

    def _close_log(self, index: int) -> None:
        """Move hand ``index``'s log above, completed with the actions that closed it and
        followed by what it scored and why, once."""
        if index <= self._log_closed:
            return
        self._log_closed = index
        hand = self._closed_hands.get(index)
        names = self.session.names
        if hand is not None:
            actions = render.closed_log(self._seen_log, hand)
            view = self._view
            self._old_log.append(
                render.log_markup(view, names, actions, hand_index=index, mano=hand.mano)
            )
            self._old_log.append(self._result_markup(hand))
        elif self._last_log:
            self._old_log.append(self._last_log)
        self._last_log = ""
        self._seen_log = ()

    def _result_markup(self, hand: PublicHand) -> str:
        s = self.session
        return render.hand_result_markup(
            hand,
            s.names,
            s.team_names,
            self.score_before(hand),
            self._view.rules.target,
            you=s.seat,
        )

    def spectator(self) -> bool:
        """At a server's table without a seat (it was full): watching, not playing."""
        return self.session.mode == "remote" and self.session.seat is None

    def _turn_line(self) -> str:
        if self.session.away():
            return "[b reverse] " + _("A bot covers your seat") + " [/] — " + _("b: take it back")
        if self.spectator():
            return "[b reverse] " + _("You are watching") + " [/] — " + _("no seat was free")
        landed = self.hand_over() or (
            self.session.mode == "remote" and self._view.winner is None and self.landed()
        )
        if landed:
            return "[b reverse] " + _("Hand over") + " [/] — " + _("Enter: next hand")
        line = render.turn_markup(self._view, self.session.names, self.session.team_names)
        if self.session.mode == "watch" and self.paused:
            line += "  [b]" + _("(paused)") + "[/b]"
        return line

    def _keys_line(self) -> str:
        mode = self.session.mode
        short = self.compact
        quit_keys = _("h: help   Ctrl+Q: quit")
        if mode == "show":
            keys = _("→/←: step   PgDn/PgUp: hand   Home/End")
            return f"{keys}   {quit_keys}"
        if mode == "watch":
            pause = _("space: pause")
            if short:
                return f"{pause}   +/-   {quit_keys}"
            speed = _("+/-: speed ({speed:.1f}/s)").format(speed=1 / max(self.delay, 1e-9))
            return f"{pause}   {speed}   " + _("w: save") + f"   {quit_keys}"
        if self.spectator():
            return quit_keys
        if short:
            return _("1-3: cards   letters: calls") + f"   {quit_keys}"
        talk = "   " + _("s: megaphone") if self._view.rules.players > 2 else ""
        step = "   " + (_("b: take your seat back") if mode == "remote" else _("Enter: next hand"))
        return (
            _("1-3: cards   letters: calls (on the buttons)")
            + talk
            + step
            + "   "
            + _("w: save")
            + f"   {quit_keys}"
        )

    def _draw_buttons(self, view: SeatView) -> None:
        seated = self.session.seat is not None and self.session.mode in ("play", "remote")
        legal = set(view.legal) if not self.hand_over() else set()
        for i in range(3):
            button = self.query_one(f"#card-{i}", KeyButton)
            if seated and i < len(view.hand):
                card = view.hand[i]
                button.label = self._markup_label(f"[b]{CARD_KEYS[i]}[/b] {card_markup(card)}")
                # a new label only repaints a button: without a layout it keeps the width of
                # the card it held before, and the new card's name is cut
                button.refresh(layout=True)
                button.display = True
                button.disabled = card not in legal
            else:
                button.display = False
        pending_truco = view.pending is not None and view.pending.kind == "truco"
        for action in _CALL_BUTTONS:
            button = self.query_one(f"#act-{action}", KeyButton)
            button.display = seated and action in legal
            if button.display:
                label = call_label(action, pending_truco)
                button.label = self._markup_label(f"[b]{CALL_KEYS[action]}[/b] {label}")
        talk = self.query_one("#megaphone", KeyButton)
        talk.display = seated and any(a in legal for a in SAY_ACTIONS)

    @staticmethod
    def _markup_label(markup: str) -> Content:
        return Content.from_markup(markup)

    def say(self, message: str) -> None:
        """Show one line to the person (a refusal, a saved file)."""
        self.message = message
        self.query_one("#message", Static).update(escape(message))

    def screen_text(self) -> str:
        """The plain text of everything drawn on the table (for tests and logs)."""
        parts = []
        for widget in self.screen.query("Static, Button"):
            if not widget.display:
                continue
            content = widget.label if isinstance(widget, Button) else widget.render()
            parts.append(getattr(content, "plain", str(content)))
        return "\n".join(parts)

    # ------------------------------------------------------------------ pacing the bots
    def _pace(self) -> None:
        """Schedule the next bot move, if a bot is to act and nothing else is on its way."""
        if self._scheduled or self._thinking or self.paused:
            return
        last = self._view.last_hand
        if self.session.mode == "watch" and last is not None and last.index > self._seen_hand:
            self._seen_hand = last.index  # let the closed hand show a moment longer
            if self._view.winner is None:
                self._schedule(self.delay * HAND_PAUSE)
            return
        if self.hand_over() or self.session.bot_turn() is None:
            return
        self._schedule(self.delay)

    def _schedule(self, delay: float) -> None:
        self._scheduled = True
        if delay > 0:
            self.set_timer(delay, self._bot_turn)
        else:  # no pause at all (tests, the fastest watching)
            self.call_later(self._bot_turn)

    def _bot_turn(self) -> None:
        """The bot thinks on a thread (a search bot may take a while); the screen stays live."""
        self._scheduled = False
        turn = None if self.paused or self.hand_over() else self.session.bot_turn()
        if turn is None:
            return
        self._thinking = True
        self.query_one("#turn", Static).update(
            _("{name} is thinking…").format(name=escape(self.session.names[turn.seat]))
        )

        def think() -> None:
            try:
                action = turn.think()
            except Exception as exc:
                action = next(a for a in turn.legal if not is_say(a))
                self.message = _("{name} failed ({error}); it plays on").format(
                    name=self.session.names[turn.seat], error=repr(exc)
                )
            with contextlib.suppress(RuntimeError):  # the app closed while the bot thought
                self.call_from_thread(self._bot_done, turn, action)

        # a daemon thread: quitting never waits for a bot that thinks too long
        threading.Thread(target=think, name=f"truco bot {turn.seat}", daemon=True).start()

    def _bot_done(self, turn: BotTurn, action: int) -> None:
        self._thinking = False
        self.session.play_bot(turn, action)
        self.refresh_table()

    def is_idle(self) -> bool:
        """Nothing will happen until the person does something (tests wait for this)."""
        return not (self._scheduled or self._thinking)

    # ------------------------------------------------------------------ the person
    def take(self, action: int) -> None:
        """Hand one action to the session; show its refusal, if any."""
        if self.session.mode in ("watch", "show"):
            self.say(_("You are not at the table here."))
            return
        if self.hand_over():
            self.say(_("The hand is over: press Enter for the next one."))
            return
        last = self._view.last_hand
        if last is not None and self._view.winner is None:
            self._landed_seen = max(self._landed_seen, last.index)  # acting moves on
        refusal = self.session.act(action)
        self.message = (
            _("Not now: {reason}").format(reason=refusal_text(refusal, self.session.names))
            if refusal
            else ""
        )
        self.refresh_table()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("card-"):
            index = int(button_id.removeprefix("card-"))
            if index < len(self._view.hand):
                self.take(self._view.hand[index])
        elif button_id == f"act-{MAZO}":
            self.go_to_mazo()
        elif button_id.startswith("act-"):
            self.take(int(button_id.removeprefix("act-")))
        elif button_id == "megaphone":
            self.open_megaphone()

    def open_megaphone(self) -> None:
        if not any(a in self._view.legal for a in SAY_ACTIONS):
            self.take(SAY_ACTIONS[0])  # refused: the engine says why
            return

        def spoken(action: int | None) -> None:
            if action is not None:
                self.take(action)

        self.push_screen(MegaphoneScreen(), spoken)

    def go_to_mazo(self) -> None:
        """Leaving the hand cannot be taken back: the first "m" (or click) asks, the second
        (or "y") goes. Refused at once when the mazo is not legal now (the engine says why)."""
        if self._mazo_asked or MAZO not in self._view.legal:
            self._mazo_asked = False
            self.take(MAZO)
            return
        self._mazo_asked = True
        self.say(_("Go to the mazo and leave this hand? Press m again (or y); any other key: no."))

    def on_key(self, event: events.Key) -> None:
        if len(self.screen_stack) > 1:
            return  # a modal screen has the keyboard
        key = event.key
        if self._mazo_asked and key not in ("m", "y"):
            self._mazo_asked = False  # any other key says no (and does what it does)
            self.say("")
        handled = self.handle_key(key, event.character)
        if handled:
            event.stop()
            event.prevent_default()

    def handle_key(self, key: str, character: str | None) -> bool:
        mode = self.session.mode
        if key in ("h", "question_mark"):
            self.push_screen(HelpScreen())
        elif key == "w":
            self.save_record()
        elif mode == "show":
            return self._viewer_key(key)
        elif mode == "watch":
            return self._watch_key(key, character)
        else:
            return self._player_key(key, character)
        return True

    def _player_key(self, key: str, character: str | None) -> bool:
        """A key of a person at the table (or of a spectator at a server's full table)."""
        if self.spectator() and (key in CARD_KEYS or key in KEY_CALLS or key == MEGAPHONE_KEY):
            self.say(_("You are watching this table: no seat was free."))
        elif key in ("enter", "space"):
            last = self._view.last_hand
            if self.hand_over() and last is not None:
                self._seen_hand = last.index
                self.say("")
                self.move_on()
            elif self.landed() is not None and self._view.winner is None:
                self.move_on()
        elif key in CARD_KEYS:
            index = CARD_KEYS.index(key)
            if index < len(self._view.hand):
                self.take(self._view.hand[index])
            elif self._view.winner is not None:
                self.say(_("The match is over."))
            else:
                self.say(_("Key {key}: you hold no card {key} now.").format(key=key))
        elif key == "b" and self.session.mode == "remote":
            if self.session.away():
                self.session.come_back()
                self.say(_("Taking your seat back from the bot."))
            else:
                self.say(_("Key 'b' takes your seat back when a bot covers it; it does not now."))
        elif key == "m" or (key == "y" and self._mazo_asked):
            self.go_to_mazo()
        elif key in KEY_CALLS:
            self.take(self._call_for_key(key))
        elif key == MEGAPHONE_KEY:
            self.open_megaphone()
        elif character and character.isprintable():
            self.say(
                _("Key {key} does nothing here; h shows the keys.").format(key=repr(character))
            )
        else:
            return False
        return True

    def _call_for_key(self, key: str) -> int:
        """The call a letter stands for now: the legal one, or (to hear why not) the one
        the hand would call next."""
        candidates = KEY_CALLS[key]
        for action in candidates:
            if action in self._view.legal:
                return action
        if TRUCO in candidates:
            return min(TRUCO + self._view.truco_level, VALE_CUATRO)
        return candidates[0]

    # ------------------------------------------------------------------ watching, reading
    def _watch_key(self, key: str, character: str | None) -> bool:
        if key in ("space", "p"):
            self.paused = not self.paused
            if not self.paused:
                self._pace()
            self.say(_("Paused.") if self.paused else "")
            self.query_one("#turn", Static).update(self._turn_line())
        elif character in ("+", "="):
            self.delay = max(self.delay / 1.5, 0.05)
        elif character in ("-", "_"):
            self.delay = min(self.delay * 1.5, 10.0)
        elif character and character.isprintable():
            self.say(
                _("Key {key} does nothing while watching; h shows the keys.").format(
                    key=repr(character)
                )
            )
        else:
            return False
        self.query_one("#keys", Static).update(self._keys_line())
        return True

    def _viewer_key(self, key: str) -> bool:
        viewer = self.session
        if not isinstance(viewer, RecordViewer):
            return False
        steps = {
            "right": viewer.forward,
            "l": viewer.forward,
            "space": viewer.forward,
            "left": viewer.back,
            "j": viewer.back,
            "pagedown": viewer.next_hand,
            "pageup": viewer.previous_hand,
            "home": viewer.first,
            "end": viewer.last,
        }
        step = steps.get(key)
        if step is None:
            if len(key) == 1:
                self.say(
                    _("Key {key} does nothing in the record viewer; → and ← step.").format(
                        key=repr(key)
                    )
                )
                return True
            return False
        moved = step()
        self.message = "" if moved else _("No more steps that way.")
        if not moved and viewer.error and viewer.index == len(viewer.steps) - 1:
            self.message = _("The record stops here: {reason}").format(reason=viewer.error)
        self.refresh_table()
        return True

    # ------------------------------------------------------------------ quitting
    def match_in_progress(self) -> bool:
        """A match that quitting would lose: started, not over, played here."""
        view = self._view
        started = view.hand_index > 0 or bool(view.log) or view.last_hand is not None
        return self.session.mode in ("play", "watch") and view.winner is None and started

    async def action_quit(self) -> None:
        """Ctrl+Q: quit at once, unless a match played here would be lost: then ask,
        and offer to save the record so far. A server keeps its matches: ask only."""
        if isinstance(self.screen, QuitScreen):
            self.exit()  # Ctrl+Q twice
            return
        if self.match_in_progress():
            self.push_screen(QuitScreen(can_save=True), self._quit_answer)
        elif self.session.mode == "remote" and self.session.seat is not None:
            self.push_screen(QuitScreen(can_save=False), self._quit_answer)
        else:
            self.exit()

    def _quit_answer(self, answer: str | None) -> None:
        if answer == "save":
            path = self.save_record(self.session.record_so_far())
            if path is not None:
                self.exit(message=_("Saved the record so far to {path}").format(path=path))
        elif answer == "quit":
            self.exit()

    # ------------------------------------------------------------------ the record
    def save_record(self, record: dict[str, Any] | None = None) -> Path | None:
        """Write the match's record (or ``record``) to a new file in ``save_dir``."""
        if record is None:
            record = self.session.record()
        notice = self.session.pop_notice()
        if record is None and notice:
            self.say(notice)
            return None
        if record is None:
            self.say(
                _("The record can be saved when the match is over (it holds every hand's cards).")
            )
            return None
        text = json.dumps(record, ensure_ascii=False, indent=1)
        try:
            replay(load_record(text))
        except RecordError as exc:  # never write a file truco replay would refuse
            self.say(_("Not saved: the record does not replay ({error}).").format(error=exc))
            return None
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = self.save_dir / f"truco-{stamp}.json"
        counter = 1
        while path.exists():
            path = self.save_dir / f"truco-{stamp}-{counter}.json"
            counter += 1
        try:
            path.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            self.say(
                _("Not saved: cannot write {path}: {error}").format(path=path, error=exc.strerror)
            )
            return None
        self.saved_path = path
        self.say(_("Saved the record to {path}").format(path=path))
        return path
