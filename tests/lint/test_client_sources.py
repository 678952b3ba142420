"""The Kafka clients' own source, checked as repositories: their internals are not user code.

kafka-python's and aiokafka's ``KafkaConsumer.subscribe()`` forward ``listener=`` to their
``SubscriptionState`` (aiokafka through a relative import, which only repository mode
resolves). That call is no registration: reporting it (KRB203) and refusing to migrate it was
noise on every site-packages scan.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from rebalance_lint import check_repository


def _package_files(name: str, prefix: str) -> dict[str, bytes]:
    module = importlib.import_module(name)
    root = Path(module.__file__ or "").parent
    return {
        prefix + path.relative_to(root.parent).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*.py"))
    }


@pytest.mark.parametrize("prefix", ["", "vendor/"])  # the package at the root, or vendored
@pytest.mark.parametrize("client", ["kafka", "aiokafka"])
def test_a_clients_own_subscribe_forwarding_is_not_a_registration(client: str, prefix: str) -> None:
    files = _package_files(client, prefix)
    assert any(b"SubscriptionState" in source for source in files.values())
    reports = check_repository(files)
    findings = [
        f"{path}:{f.line}: {f.code} {f.message}"
        for path, report in reports.items()
        for f in report.findings
    ]
    assert findings == []
