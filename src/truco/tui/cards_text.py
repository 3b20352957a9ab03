"""Cards and seats as people read them."""

from __future__ import annotations

from ..cards import RANK, SUIT
from ..locale import _, current_language
from ..narrate import SUIT_WORDS, card_words

#: Suit colours on the table (espadas blue, bastos green, oros gold, copas red).
SUIT_STYLES = ("bold #5fafff", "bold #5faf5f", "bold #ffd700", "bold #ff5f5f")


def card_text(card: int) -> str:
    """``"1 de espadas"`` (``"1 of swords"`` on an English screen)."""
    return card_words(card, current_language())


def suit_text(card: int) -> str:
    """The card's suit in the screen's language: ``"espadas"``, ``"swords"``."""
    return _(SUIT_WORDS[SUIT[card]])


def card_markup(card: int) -> str:
    """The card in Textual markup, its suit coloured."""
    return f"[{SUIT_STYLES[SUIT[card]]}]{card_text(card)}[/]"


def card_short_markup(card: int) -> str:
    """``"7 oros"``, its suit coloured: for rows of open hands."""
    return f"[{SUIT_STYLES[SUIT[card]]}]{RANK[card]} {suit_text(card)}[/]"
