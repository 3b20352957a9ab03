"""Request bodies counted as they stream: a cap on their size and on the time they take.

``Content-Length`` alone does not bound a body: a chunked one declares no size. So the
bytes are counted as the application reads them (:class:`BodyCap` wraps the ASGI
``receive``); the moment they pass ``max_body`` the client gets ``413``, the application
is told the client went away (it stops reading, and whatever it answers is dropped), and
the connection is closed (``Connection: close``): the server reads no more of it. A
body whose declared size is over the cap is refused before a byte of it is read. A body
still arriving ``seconds`` after the request began (a client trickling it byte by byte,
holding a connection open) gets ``408`` the same way.

The server (uvicorn) holds at most one flow-control window of a body (64 KiB) before the
application reads it, then stops reading the socket: memory per request stays bounded.
"""

from __future__ import annotations

import asyncio
import time

from starlette.types import Message, Receive, Send

from ...refusals import Refusal
from ..refusals import send_refusal

#: a closed connection is the only way to stop reading a body the client keeps sending
CLOSE = {"connection": "close"}


class BodyCap:
    """``receive`` and ``send`` of one HTTP request, with its body capped at ``max_body``
    bytes and ``seconds`` of reading (see the module)."""

    def __init__(self, receive: Receive, send: Send, max_body: int, seconds: float) -> None:
        self._receive = receive
        self._send = send
        self.max_body = max_body
        self.deadline = time.monotonic() + seconds
        self.seconds = seconds
        self.read = 0
        self.complete = False
        self.refused = False
        self.started = False

    def declared_too_large(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether the request's ``Content-Length`` (if any) is over the cap or not a size."""
        for name, value in headers:
            if name == b"content-length" and (not value.isdigit() or int(value) > self.max_body):
                return True
        return False

    async def receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        if self.complete:  # the body is in: what is left to hear is the disconnect
            return await self._receive()
        try:
            async with asyncio.timeout_at(_loop_time(self.deadline)):
                message = await self._receive()
        except TimeoutError:
            await self.refuse(408, Refusal.of("body_too_slow", seconds=f"{self.seconds:g}"))
            return {"type": "http.disconnect"}
        if message["type"] == "http.request":
            self.read += len(message.get("body", b""))
            if self.read > self.max_body:
                await self.too_large()
                return {"type": "http.disconnect"}
            self.complete = not message.get("more_body", False)
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return  # the refusal was the answer: the application's own is dropped
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)

    async def too_large(self) -> None:
        await self.refuse(413, Refusal.of("body_too_large", max_bytes=self.max_body))

    async def refuse(self, status: int, refusal: Refusal) -> None:
        """Answer ``status`` (unless an answer has begun) and close the connection."""
        self.refused = True
        if not self.started:
            await send_refusal(self._send, status, refusal, CLOSE)


def _loop_time(deadline: float) -> float:
    """``deadline`` (a ``time.monotonic`` instant) on the running loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())
