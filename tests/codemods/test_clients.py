"""The codemods' idea of each client matches the runtime's (so a migrated call never fails)."""

from __future__ import annotations

import importlib

import pytest
from rebalance_codemods.clients import AIOKAFKA, CONFLUENT, KAFKA_PYTHON, Client


@pytest.mark.parametrize("client", [KAFKA_PYTHON, AIOKAFKA, CONFLUENT], ids=lambda c: c.name)
def test_view_methods_are_the_rebalance_consumer_protocol(client: Client) -> None:
    module = importlib.import_module(client.guard_module)
    protocol = module.RebalanceConsumer
    members = {name for name in vars(protocol) if not name.startswith("_")}
    assert client.view_methods == members
    for name in ("RebalanceListener", "RebalanceConsumer"):
        assert hasattr(module, name)
    registration = "subscribe" if client is CONFLUENT else "set_rebalance_listener"
    assert callable(getattr(module, registration))
