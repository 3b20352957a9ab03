"""A small HTTP/1.1 client for a load generator's few JSON POSTs (guests, tables): kept-alive
connections to each server, no cookies, nothing but ``Content-Length`` bodies.

A load generator on the machine it measures should spend its CPU on the load: a general client
(httpx over anyio and h11) costs milliseconds a request, this one a small part of that.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import orjson


class HttpError(OSError):
    """The server's answer was not HTTP/1.1 as this client reads it."""


class JsonPoster:
    """``await poster.post(url, body, token)`` -> (status, JSON body). At most ``limit``
    requests at a time to each server; idle connections are reused."""

    def __init__(self, limit: int = 50, timeout: float = 60) -> None:
        self.limit = limit
        self.timeout = timeout
        self._idle: dict[tuple[str, int], list[tuple[asyncio.StreamReader, Any]]] = {}
        self._slots: dict[tuple[str, int], asyncio.Semaphore] = {}

    async def post(self, url: str, body: Any, token: str | None = None) -> tuple[int, Any]:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname is None:
            raise ValueError(f"only http:// URLs: {url}")
        where = (parts.hostname, parts.port or 80)
        slots = self._slots.setdefault(where, asyncio.Semaphore(self.limit))
        payload = orjson.dumps(body)
        head = (
            f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Content-Type: application/json\r\nAccept: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n"
        )
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        request = (head + "\r\n").encode() + payload
        async with slots, asyncio.timeout(self.timeout):
            idle = self._idle.setdefault(where, [])
            while idle:  # a kept-alive connection the server may have closed meanwhile
                reader, writer = idle.pop()
                if reader.at_eof() or writer.is_closing():
                    writer.close()
                    continue
                try:
                    return await self._exchange(where, reader, writer, request)
                except (OSError, asyncio.IncompleteReadError):
                    writer.close()
            reader, writer = await asyncio.open_connection(*where)
            try:
                return await self._exchange(where, reader, writer, request)
            except asyncio.IncompleteReadError as error:
                writer.close()
                raise HttpError("the server closed the connection") from error
            except BaseException:
                writer.close()
                raise

    async def _exchange(
        self, where: tuple[str, int], reader: asyncio.StreamReader, writer: Any, request: bytes
    ) -> tuple[int, Any]:
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status_line = lines[0].split(b" ", 2)
        if len(status_line) < 2 or not status_line[0].startswith(b"HTTP/1."):
            raise HttpError(f"not an HTTP answer: {lines[0]!r}")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if b"content-length" not in headers:
            raise HttpError("an answer without Content-Length")
        body = await reader.readexactly(int(headers[b"content-length"]))
        if headers.get(b"connection", b"").lower() == b"close":
            writer.close()
        else:
            self._idle.setdefault(where, []).append((reader, writer))
        return int(status_line[1]), orjson.loads(body) if body else None

    async def close(self) -> None:
        for idle in self._idle.values():
            for _, writer in idle:
                writer.close()
        self._idle.clear()
