"""The collector's schedule of a server (truco.server.pauses): survivors frozen, and cyclic
garbage frozen while alive freed once the frozen heap has grown enough, or after a while."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from truco.server.pauses import Pauses


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_cyclic_garbage_frozen_while_alive_is_freed_when_the_frozen_heap_grows(
    unfrozen: None,
) -> None:
    now = [0.0]
    pauses = Pauses(thaw_seconds=900.0, thaw_growth=1.0, clock=lambda: now[0], check_seconds=0)
    frozen = gc.get_freeze_count()
    assert frozen > 0
    cycle = Cycle()
    gone = weakref.ref(cycle)
    pauses.step()  # alive now: frozen with the other survivors
    del cycle
    pauses.step()
    assert gone() is not None and pauses.thaws == 0  # frozen garbage: waits for the thaw
    keep = [[i] for i in range(frozen + 10)]  # the heap doubles (objects still in use)
    pauses.step()
    assert pauses.thaws == 1 and gone() is None
    assert pauses.baseline >= len(keep)


def test_a_thaw_comes_after_thaw_seconds_even_without_growth(unfrozen: None) -> None:
    now = [0.0]
    pauses = Pauses(thaw_seconds=900.0, thaw_growth=1.0, clock=lambda: now[0], check_seconds=0)
    cycle = Cycle()
    gone = weakref.ref(cycle)
    pauses.step()
    del cycle
    now[0] = 899.0
    pauses.step()
    assert gone() is not None and pauses.thaws == 0
    now[0] = 900.0
    pauses.step()
    assert gone() is None and pauses.thaws == 1


def test_by_default_a_growing_heap_brings_no_thaw(unfrozen: None) -> None:
    """Tables being added double the heap legitimately: a thaw then walked all of it (a pause
    of hundreds of milliseconds) for little garbage."""
    now = [0.0]
    pauses = Pauses(clock=lambda: now[0], check_seconds=0)
    keep = [[i] for i in range(3 * gc.get_freeze_count())]
    now[0] = 10.0
    pauses.step()
    assert pauses.thaws == 0 and len(keep) > 0
