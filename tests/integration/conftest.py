from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.broker import Broker, start_broker


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    yield from start_broker()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.broker)
