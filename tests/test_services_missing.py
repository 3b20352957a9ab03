"""A test whose PostgreSQL or Redis is missing is skipped on a developer's machine, and
fails on CI (``CI`` set): a CI run without its services must not pass by skipping."""

from __future__ import annotations

import pytest

from databases import service_missing


def test_without_ci_a_missing_service_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"Redis at 127\.0\.0\.1:6379"):
        service_missing("Redis at 127.0.0.1:6379 is not reachable")


def test_on_ci_a_missing_service_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"PostgreSQL .* \(CI is set"):
        service_missing("PostgreSQL at 127.0.0.1:5432 is not reachable")
