"""The online table: an authoritative server (FastAPI, WebSockets) and its page.

Run it with ``truco serve``; build it in code with :func:`create_app`. Importing this
package needs nothing beyond the engine (so ``truco`` can list ``serve`` on the base
install); ``create_app`` and ``ServerConfig`` load the server's extra on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import ServerConfig
    from .web.app import create_app

__all__ = ["ServerConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .web.app import create_app

        return create_app
    if name == "ServerConfig":
        from .config import ServerConfig

        return ServerConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
