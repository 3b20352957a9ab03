"""``PUBLISH`` on a Redis connection of its own, in the Redis protocol (RESP) directly.

The bus publishes once per turn of a busy node's event loop; through redis-py's client each
``PUBLISH`` costs about 100 µs of CPU (its pool, retries and reply machinery), written here
about 25 µs. Only what the bus needs: several ``PUBLISH`` in one write, their integer replies
read in order. Any failure closes the connection (the next call opens a new one) and is
raised to the caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from urllib.parse import unquote, urlsplit


class Publisher:
    """Publishes to the Redis of a ``redis[s]://[user:password@]host[:port][/db]`` URL."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss"):
            # redis-py takes unix:// too; connecting to the default TCP port instead would
            # publish to another server (or none) without a word
            raise ValueError(f"the cluster bus publishes over redis:// or rediss://, not {url!r}")
        self.tls = parts.scheme == "rediss"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 6379
        self.username = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def publish(self, messages: list[tuple[str, bytes]]) -> list[int]:
        """``PUBLISH`` each ``(channel, payload)``; how many subscribers heard each."""
        try:
            reader, writer = await self._connection()
            writer.write(b"".join(_command(b"PUBLISH", c.encode(), p) for c, p in messages))
            return [await _integer(reader) for _ in messages]
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            reader, writer = await asyncio.open_connection(
                self.host, self.port, ssl=ssl.create_default_context() if self.tls else None
            )
            self._reader, self._writer = reader, writer
            if self.password is not None:
                auth = [self.username.encode()] if self.username else []
                writer.write(_command(b"AUTH", *auth, self.password.encode()))
                line = await reader.readline()
                if not line.startswith(b"+"):
                    raise ConnectionError(f"Redis refused AUTH: {line.decode(errors='replace')}")
        return self._reader, self._writer


def _command(*parts: bytes) -> bytes:
    head = b"*%d\r\n" % len(parts)
    return head + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


async def _integer(reader: asyncio.StreamReader) -> int:
    line = await reader.readline()
    if not line.startswith(b":"):
        if not line:
            raise ConnectionError("Redis closed the connection")
        raise ConnectionError(f"Redis answered {line.decode(errors='replace').strip()}")
    return int(line[1:])
