"""Background tasks of the server: kept, named, and their failures logged.

``asyncio`` holds only a weak reference to a task, so a task nobody keeps can be
collected mid-flight, and an exception nobody awaits is lost. Every task the server
starts goes through :func:`spawn`: the caller keeps what it returns (and cancels or
awaits it when it stops), and a failure reaches the log.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger("truco.server")

T = TypeVar("T")


def log_failure(task: asyncio.Task[Any]) -> None:
    """Done-callback: the task's exception goes to the log (a cancellation is not one)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("task %s failed", task.get_name(), exc_info=task.exception())


def spawn(coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
    """Start ``coro`` as a task named ``name`` whose failure is logged; keep the result."""
    task = asyncio.create_task(coro, name=name)
    task.add_done_callback(log_failure)
    return task
