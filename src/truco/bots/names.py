"""The names bots go by at a table: people's names, given in seat order, not engine ids
(each client adds the bot's level in its own language: "Rosa (difícil)").

>>> [BOT_NAMES[i % len(BOT_NAMES)] for i in range(3)]
['Rosa', 'Tito', 'Chela']
"""

from __future__ import annotations

#: Enough for a 3v3 table of bots (``truco watch --players 6``) without a repeat.
BOT_NAMES = ("Rosa", "Tito", "Chela", "Nacho", "Mirta", "Lalo")
