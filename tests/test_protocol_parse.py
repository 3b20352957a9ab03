"""``parse_client_message`` takes exactly what the pydantic models take (there is no
hand-written path beside them any more), refuses the rest with a ``ProtocolError``, and
keeps only the action tokens it met written as the notation writes them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from truco.server.protocol import (
    _CLIENT_MESSAGE,
    Act,
    ProtocolError,
    check_action_token,
    parse_client_message,
)

CASES: list[Any] = [
    {"type": "act", "action": "mazo"},
    {"type": "act", "action": "play 1e"},
    {"type": "act", "action": "say quiero"},
    {"type": "act", "action": "real-envido"},
    {"type": "act", "action": "Mazo"},  # not as the notation writes it
    {"type": "act", "action": " mazo"},
    {"type": "act", "action": "x" * 40},
    {"type": "act", "action": "x" * 41},
    {"type": "act", "action": "ñ" * 41},
    {"type": "act", "action": ""},
    {"type": "act", "action": 3},
    {"type": "act", "action": None},
    {"type": "act", "action": ["mazo"]},
    {"type": "act", "action": True},
    {"type": "act"},
    {"type": "act", "action": "mazo", "extra": 1},
    {"type": "act", "actions": "mazo"},
]


def by_the_model(data: Any) -> Any:
    """What validation with the pydantic model alone answers (then the token check)."""
    try:
        message = _CLIENT_MESSAGE.validate_python(data)
        if isinstance(message, Act):
            check_action_token(message.action)
        return message
    except Exception:
        return "refused"


@pytest.mark.parametrize("data", CASES, ids=[json.dumps(c)[:40] for c in CASES])
def test_act_messages_are_taken_as_the_model_takes_them(data: Any) -> None:
    try:
        fast: Any = parse_client_message(json.dumps(data))
    except ProtocolError:
        fast = "refused"
    assert fast == by_the_model(data)
    if fast != "refused":
        assert isinstance(fast, Act) and fast.action == data["action"]
        assert parse_client_message(json.dumps(data)) == fast  # the token is kept: the same
    else:  # a refusal is never kept
        with pytest.raises(ProtocolError):
            parse_client_message(json.dumps(data))


_VALUES: list[Any] = [None, 0, 1, 5, 6, -1, True, 1.0, "x", "a" * 512, "a" * 513, 2**53, 2**53 + 1]
_SHAPES = [("seat",), ("token",), ("since",), ("token", "since"), ("seat", "x"), ()]


@pytest.mark.parametrize("kind", ["sit", "hello"])
def test_sit_and_hello_are_taken_as_the_model_takes_them(kind: str) -> None:
    """Every shape of ``sit`` and ``hello`` is taken or refused as the model does, and
    taken as the same message (``true`` is not a seat, ``1.0`` not a version)."""
    import itertools

    from pydantic import ValidationError

    for keys in _SHAPES:
        for values in itertools.product(_VALUES, repeat=len(keys)):
            data = {"type": kind, **dict(zip(keys, values, strict=True))}
            try:
                expected = _CLIENT_MESSAGE.validate_python(data)
            except ValidationError:
                with pytest.raises(ProtocolError):
                    parse_client_message(json.dumps(data))
            else:
                got = parse_client_message(json.dumps(data))
                assert type(got) is type(expected) and got == expected
