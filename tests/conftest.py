"""The one test broker of a pytest session (tests/integration/broker.py says which)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.broker import Broker, plan, start_broker


def pytest_report_header() -> str:
    return plan()


@pytest.fixture(scope="session")
def broker(request: pytest.FixtureRequest) -> Iterator[Broker]:
    keep_logs = [False]
    brokers = start_broker(keep_logs)
    yield next(brokers)
    keep_logs[0] = request.session.testsfailed > 0
    next(brokers, None)
