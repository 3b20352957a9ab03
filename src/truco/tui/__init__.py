"""The terminal game: play against bots, watch bots, step through records, join a server.

The screen is a Textual app (:mod:`.app`) that draws one seat's view and offers the legal
actions it is given as keys and buttons; where the actions come from is a *session*:
:mod:`.session` (a local game with bots), :mod:`.viewer` (a saved record) or
:mod:`.remote` (a table on a Truco Argento server). Rules are only ever decided by the
engine (or the server that runs it).
"""
