"""What keeps one client from hurting the others: caps on heads, bodies and sockets, rate limits,
the login throttle."""
