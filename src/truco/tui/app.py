"""The Textual app: one table, drawn from one seat's view.

The app asks its session for the view, draws it, and turns keys and button presses
into actions that the session (the engine, or the server) accepts or refuses with a
reason. Bots think on a thread and act through the session, paced by a timer so that a
person can follow them.
"""

from __future__ import annotations

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

from ..actions import SAY_ACTIONS, TRUCO, VALE_CUATRO, is_say
from ..record import RecordError, load_record, replay
from ..view import PublicHand, SeatView
from . import render
from .cards_text import card_markup
from .keys import (
    CALL_KEYS,
    CALL_LABELS,
    CARD_KEYS,
    KEY_CALLS,
    MEGAPHONE_KEY,
    call_label,
)
from .session import BotTurn, TableSession
from .viewer import RecordViewer
from .widgets import HelpScreen, KeyButton, MegaphoneScreen, Panel

#: Seconds between two bot actions at speed 1.
BASE_DELAY = 1.0
#: A closed hand stays on screen this many bot delays when watching.
HAND_PAUSE = 3

_CALL_BUTTONS = tuple(dict.fromkeys(CALL_KEYS))  # each call once, in drawing order


class TrucoApp(App[None]):
    """The terminal table for a :class:`~truco.tui.session.TableSession`."""

    TITLE = "Truco Argento"
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; background: $primary; color: $text; padding: 0 1; text-style: bold; }
    #top { height: 1fr; }
    #left { width: 1fr; min-width: 28; max-width: 44; }
    #score { height: auto; border: round $primary; padding: 0 1; }
    #seats { height: 1fr; border: round $primary; padding: 0 1; }
    #middle { width: 2fr; }
    #table { height: 1fr; border: round $accent; padding: 0 1; }
    #last { height: auto; max-height: 12; border: round $secondary; padding: 0 1; }
    #log-box { width: 1fr; max-width: 40; height: 100%; border: round $primary; padding: 0 1; }
    #turn { height: 1; padding: 0 1; }
    #message { height: auto; min-height: 1; padding: 0 1; color: $warning; }
    #hand { height: auto; padding: 0 1; }
    #hand KeyButton { margin-right: 2; }
    #calls { grid-size: 5; grid-gutter: 0 1; height: auto; padding: 0 1; }
    #calls KeyButton { width: 100%; }
    #keys { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

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
        self._view: SeatView = session.view()
        self._log_hand = self._view.hand_index  # the hand the log is writing
        self._last_log = ""
        self._old_log: list[str] = []
        self._log_closed = -1  # the last hand whose log was closed

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield Panel("Score", id="score")
                yield Panel("Seats", id="seats")
            with Vertical(id="middle"):
                yield Panel("Table", id="table")
                yield Panel("Last hand", id="last")
            with VerticalScroll(id="log-box") as log_box:
                log_box.border_title = "Log"
                yield Static(id="log")
        yield Static(id="turn")
        yield Static(id="message")
        with Horizontal(id="hand"):
            for i in range(3):
                yield KeyButton("", id=f"card-{i}")
        with Grid(id="calls"):
            for action in _CALL_BUTTONS:
                yield KeyButton(CALL_LABELS[action], id=f"act-{action}")
            yield KeyButton(f"{MEGAPHONE_KEY} 📣 megaphone", id="megaphone")
        yield Static(id="keys")

    def on_mount(self) -> None:
        listen = getattr(self.session, "listen", None)
        if listen is not None:  # a server's table: its frames redraw the screen
            self.run_worker(listen(self.refresh_table), name="table socket", exclusive=True)
            self.set_interval(1.0, self._draw_title)  # the turn clock counts down
        self.refresh_table()

    def on_unmount(self) -> None:
        close = getattr(self.session, "close", None)
        if close is not None:
            close()

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

    def refresh_table(self) -> None:
        """Read the session's view and redraw everything; then let the bots go on."""
        s = self.session
        view = self._view = s.view()
        notice = getattr(s, "pop_notice", lambda: None)()
        if notice:
            self.message = notice
        names, teams = s.names, s.team_names
        self._draw_title()
        self.query_one("#score", Panel).update(render.score_markup(view, teams))
        self.query_one("#seats", Panel).update(
            render.seats_markup(view, names, s.open_hands(), s.seat_notes)
        )
        self.query_one("#table", Panel).update(render.table_markup(view, names, teams))
        self.query_one("#last", Panel).update(
            render.last_hand_markup(view.last_hand, names, teams, view.rules)
        )
        self._draw_log(view)
        self.query_one("#turn", Static).update(self._turn_line())
        self.query_one("#message", Static).update(escape(self.message))
        self._draw_buttons(view)
        self.query_one("#keys", Static).update(self._keys_line())
        self._pace()

    def _draw_title(self) -> None:
        s = self.session
        caption = getattr(s, "caption", lambda: "")()
        mode = {"play": "", "watch": " — watching bots", "show": " — record", "remote": " — online"}
        title = f"Truco Argento · {self._view.rules.describe()}{mode.get(s.mode, '')}"
        self.query_one("#title", Static).update(
            escape(title + (f" · {caption}" if caption else ""))
        )

    def _draw_log(self, view: SeatView) -> None:
        """The log of the match: the hands before (as last seen, with what they scored)
        above the one being played."""
        s = self.session
        last = view.last_hand
        if isinstance(s, RecordViewer):  # a record jumps about: its log is the hand shown
            lines = [render.log_markup(view, s.names, s.hand_log())]
            if last is not None and last.index == view.hand_index:
                lines.append(render.hand_result_markup(last, s.names, s.team_names))
            self.query_one("#log", Static).update("\n".join(lines))
            return
        if view.hand_index < self._log_hand:  # a record stepped back: start afresh
            self._old_log.clear()
            self._log_closed = -1
        elif view.hand_index > self._log_hand:  # the next hand is dealt
            self._close_log(self._log_hand, last)
        self._log_hand = view.hand_index
        if last is not None and last.index == view.hand_index:  # closed, not dealt again
            self._close_log(view.hand_index, last)
        else:
            self._last_log = render.log_markup(view, s.names)
        shown = [*self._old_log[-40:], self._last_log]
        self.query_one("#log", Static).update("\n".join(line for line in shown if line))
        self.query_one("#log-box", VerticalScroll).scroll_end(animate=False)

    def _close_log(self, index: int, last: PublicHand | None) -> None:
        """Move hand ``index``'s log above, with its result, once."""
        if index <= self._log_closed:
            return
        self._log_closed = index
        self._old_log.append(self._last_log)
        self._last_log = ""
        if last is not None and last.index == index:
            s = self.session
            self._old_log.append(render.hand_result_markup(last, s.names, s.team_names))

    def _turn_line(self) -> str:
        if getattr(self.session, "away", lambda: False)():
            return "[b reverse] A bot covers your seat [/] — b: take it back"
        if self.hand_over():
            return "[b reverse] Hand over [/] — Enter: next hand"
        line = render.turn_markup(self._view, self.session.names, self.session.team_names)
        if self.session.mode == "watch" and self.paused:
            line += "  [b](paused)[/b]"
        return line

    def _keys_line(self) -> str:
        mode = self.session.mode
        if mode == "show":
            return "→/←: step   PgDn/PgUp: hand   Home/End   h: help   Ctrl+Q: quit"
        if mode == "watch":
            return f"space: pause   +/-: speed ({1 / max(self.delay, 1e-9):.1f} actions/s)   w: save   h: help   Ctrl+Q: quit"
        talk = "   s: megaphone" if self._view.rules.players > 2 else ""
        step = "   b: take your seat back" if mode == "remote" else "   Enter: next hand"
        return (
            f"1-3: cards   letters: calls (on the buttons){talk}{step}"
            "   w: save   h: help   Ctrl+Q: quit"
        )

    def _draw_buttons(self, view: SeatView) -> None:
        seated = self.session.seat is not None and self.session.mode in ("play", "remote")
        legal = set(view.legal) if not self.hand_over() else set()
        for i in range(3):
            button = self.query_one(f"#card-{i}", KeyButton)
            if seated and i < len(view.hand):
                card = view.hand[i]
                button.label = self._markup_label(f"[b]{CARD_KEYS[i]}[/b] {card_markup(card)}")
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
            visual = widget.label if isinstance(widget, Button) else widget.visual  # type: ignore[attr-defined]
            parts.append(getattr(visual, "plain", str(visual)))
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
        self.query_one("#turn", Static).update(f"{self.session.names[turn.seat]} is thinking…")

        def think() -> None:
            try:
                action = turn.think()
            except Exception as exc:
                action = next(a for a in turn.legal if not is_say(a))
                self.message = f"{self.session.names[turn.seat]} failed ({exc!r}); it plays on"
            try:
                self.call_from_thread(self._bot_done, turn, action)
            except RuntimeError:
                pass  # the app closed while the bot thought

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
            self.say("You are not at the table here.")
            return
        if self.hand_over():
            self.say("The hand is over: press Enter for the next one.")
            return
        reason = self.session.act(action)
        self.message = f"Not now: {reason}" if reason else ""
        self.refresh_table()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("card-"):
            index = int(button_id.removeprefix("card-"))
            if index < len(self._view.hand):
                self.take(self._view.hand[index])
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

    def on_key(self, event: events.Key) -> None:
        if len(self.screen_stack) > 1:
            return  # a modal screen has the keyboard
        key = event.key
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
        elif key in ("enter", "space"):
            if self.hand_over():
                self._seen_hand = self._view.last_hand.index  # type: ignore[union-attr]
                self.say("")
                self.refresh_table()
        elif key in CARD_KEYS:
            index = CARD_KEYS.index(key)
            if index < len(self._view.hand):
                self.take(self._view.hand[index])
            elif self._view.winner is not None:
                self.say("The match is over.")
            else:
                self.say(f"Key {key}: you hold no card {key} now.")
        elif key == "b" and mode == "remote":
            if getattr(self.session, "away", lambda: False)():
                self.session.come_back()  # type: ignore[attr-defined]
                self.say("Taking your seat back from the bot.")
            else:
                self.say("Key 'b' takes your seat back when a bot covers it; it does not now.")
        elif key in KEY_CALLS:
            self.take(self._call_for_key(key))
        elif key == MEGAPHONE_KEY:
            self.open_megaphone()
        elif character and character.isprintable():
            self.say(f"Key {character!r} does nothing here; h shows the keys.")
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
            self.say("Paused." if self.paused else "")
            self.query_one("#turn", Static).update(self._turn_line())
        elif character in ("+", "="):
            self.delay = max(self.delay / 1.5, 0.05)
        elif character in ("-", "_"):
            self.delay = min(self.delay * 1.5, 10.0)
        elif character and character.isprintable():
            self.say(f"Key {character!r} does nothing while watching; h shows the keys.")
        else:
            return False
        self.query_one("#keys", Static).update(self._keys_line())
        return True

    def _viewer_key(self, key: str) -> bool:
        viewer: Any = self.session
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
                self.say(f"Key {key!r} does nothing in the record viewer; → and ← step.")
                return True
            return False
        moved = step()
        self.message = "" if moved else "No more steps that way."
        self.refresh_table()
        return True

    # ------------------------------------------------------------------ the record
    def save_record(self) -> Path | None:
        """Write the match's record to a new file in ``save_dir``."""
        record: dict[str, Any] | None = self.session.record()
        notice = getattr(self.session, "pop_notice", lambda: None)()
        if record is None and notice:
            self.say(notice)
            return None
        if record is None:
            self.say(
                "The record can be saved when the match is over (it holds every hand's cards)."
            )
            return None
        text = json.dumps(record, ensure_ascii=False, indent=1)
        try:
            load_record(text)
            replay(load_record(text))
        except RecordError as exc:  # never write a file truco replay would refuse
            self.say(f"Not saved: the record does not replay ({exc}).")
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
            self.say(f"Not saved: cannot write {path}: {exc.strerror}")
            return None
        self.saved_path = path
        self.say(f"Saved the record to {path}")
        return path
