"""The migrated inherited-owner fixture on Apache Kafka (issue 25,
``shapes/inherited_owner_callbacks.py``): a subclass subscribing with the ``on_assign`` it
inherits, migrated to ``subscribe(self.consumer, topics, self)`` with the defining class as the
listener, starts where the original did, under every protocol: at the beginning when asked
to reset (the original's offsets-then-assign became seeks on the view), at the committed
offset when not. The original on raw confluent-kafka is the oracle (its ``assign()`` inside
``on_assign`` is refused under the incremental protocols, so eager only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from confluent_kafka import TopicPartition

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import (
    PROTOCOLS,
    closing,
    config,
    poll_until,
    produce,
)

FIXTURES = Path(__file__).parents[1] / "codemods" / "fixtures"
COMMITTED = 3


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORIGINAL = _load(FIXTURES / "inherited_owner_callbacks.py", "inherited_owner_original")
MIGRATED = _load(FIXTURES / "migrated" / "inherited_owner_callbacks.py", "inherited_owner_migrated")


def _first_offset(module: ModuleType, conf: dict[str, Any], topic: str, reset: bool) -> int:
    """Commit COMMITTED for the group, then run the subclass's consume() and poll."""
    reader = module.TransactionConsumer(conf)
    reader.topics, reader.streaming_topics = [topic], []
    reader.consumer.commit(offsets=[TopicPartition(topic, 0, COMMITTED)], asynchronous=False)
    reader.consume(reset_offset=reset)
    seen: list[int] = []
    with closing([reader.consumer]):
        poll_until([reader.consumer], lambda: bool(seen), lambda c, m: seen.append(m.offset() or 0),
                   what="a first message")  # fmt: skip
    return seen[0]


@pytest.mark.parametrize("reset", [True, False], ids=["reset", "committed"])
def test_the_original_on_raw_confluent(broker: Broker, reset: bool) -> None:
    topic = broker.create_topic(1)
    produce(broker, topic, 6, 1)
    first = _first_offset(ORIGINAL, config(broker, protocol="eager"), topic, reset)
    assert first == (0 if reset else COMMITTED)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("reset", [True, False], ids=["reset", "committed"])
def test_the_migrated_subclass(broker: Broker, protocol: str, reset: bool) -> None:
    topic = broker.create_topic(1)
    produce(broker, topic, 6, 1)
    first = _first_offset(MIGRATED, config(broker, protocol=protocol), topic, reset)
    assert first == (0 if reset else COMMITTED)
