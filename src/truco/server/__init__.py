"""The online table: an authoritative server (FastAPI, WebSockets) and its page.

Run it with ``truco serve``; build it in code with :func:`create_app`.
"""

from .app import create_app
from .config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
