"""Where people meet: a node's live tables, quick match, challenges and tournaments."""
