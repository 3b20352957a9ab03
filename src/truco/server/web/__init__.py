"""The server's edge: the ASGI app, its pages and routes (HTTP and WebSocket), the wire protocol."""
