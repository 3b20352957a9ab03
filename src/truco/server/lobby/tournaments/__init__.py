"""Tournaments: Swiss and arena events played on the server's tables.

:mod:`.matching` holds the pure pairing and scoring functions; :mod:`.records` the
tournaments' rows; :mod:`.director` runs them against the lobby's tables.
"""
