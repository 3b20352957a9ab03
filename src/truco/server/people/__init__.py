"""Who plays: players and accounts, sessions, ratings and fair play, moderation, friends."""
