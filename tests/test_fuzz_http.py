"""Fuzz the lobby API from its own OpenAPI schema (schemathesis): valid and invalid
requests of every operation, with and without a session; none may get a 5xx, and every
answer is as the document says (schemathesis' conformance checks: its status is listed
for the operation, its content type and body follow the listed schema, a refusal is
``{"detail", "code", "params"}``).

The examples per operation are few (CI's time is bounded); ``TRUCO_FUZZ_EXAMPLES``
raises them for a longer run."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from server_testing import LiveServer, guest_token
from truco.server import ServerConfig

EXAMPLES = int(os.environ.get("TRUCO_FUZZ_EXAMPLES", "25"))
#: what every answer is checked for
CONFORMANCE = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def live() -> Any:
    config = ServerConfig(
        db_url="sqlite://",
        bot_delay=0,
        turn_seconds=0,
        http_rate="1000000/minute",
        http_write_rate="1000000/minute",
        max_tables_per_guest=1000,
        max_tables_per_address=1000,
        max_tables=5000,
    )
    with LiveServer(config) as server:
        yield server


@pytest.fixture(scope="module")
def session(live: LiveServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {guest_token(live.url, 'Fuzz')}"}


def check(case: Any, session: dict[str, str]) -> int:
    generated = {k.lower() for k in (case.headers or {})}
    headers = None if "authorization" in generated else session  # fuzzed, or a valid one
    response = case.call(headers=headers, timeout=30)
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
    case.validate_response(response, checks=CONFORMANCE, headers=headers)
    if response.status_code >= 400:
        refusal = response.json()
        assert set(refusal) == {"detail", "code", "params"}, refusal
        assert isinstance(refusal["detail"], str) and 0 < len(refusal["detail"]) < 1000
        assert refusal["code"].replace("_", "").isalpha() and refusal["code"].islower()
    return int(response.status_code)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_request_gets_a_server_error_and_every_answer_is_documented(
    live: LiveServer, session: dict[str, str], mode: GenerationMode
) -> None:
    # (the notice stream never ends by itself: tests/test_notices.py tries it)
    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json").exclude(path="/api/notices")
    operations = len(list(schema.get_all_operations()))
    assert operations >= 10  # every route of the API is in the schema

    @given(case=schema.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES * operations,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def fuzz(case: Any) -> None:
        statuses[check(case, session) // 100] += 1

    statuses: Counter[int] = Counter()
    fuzz()
    # the fuzzer reached past validation and was refused too: it tried what it should
    assert statuses[2] > 0 and statuses[4] > 0, statuses
