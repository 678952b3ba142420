"""Issue 25: confluent's "start from a timestamp" recipe, migrated, starts where it did.

The recipe (tests/codemods/fixtures/assign_at_times.py, a shape from real code): on_assign
sets each partition's offset to a time, asks ``offsets_for_times`` for the first offset at or
after it and assigns that answer. The codemod (lint_rules/.../shapes/assign_at_times.py)
makes the assign a seek per partition of the answer on the view; the adapter stages each
seek into the assignment it makes after the callback. librdkafka answers ``OFFSET_END``
(-1) for a partition with no message at or after the time, so the staged seek of that
logical offset must make the adapter's assignment start at the partition's end.

Proven here on a 2-partition topic whose messages carry known timestamps: partition 0 has a
message after the time (consumption starts there), partition 1 has none (it starts at the
end: it reports its end first, and a message produced afterwards is the first it delivers).
The original file's code on raw confluent-kafka (eager: the recipe's ``assign()`` is refused
under the incremental protocols) is the oracle; the migrated twin runs through
rebalance_guard.confluent_kafka's :class:`Consumer` under every protocol, and through its
own ``subscribe()`` on a plain consumer. The same recipe on the asyncio ``AIOConsumer`` (bound
answer with ``assign``, inline answer with ``incremental_assign``) is proven by
test_confluent_kafka_assign_derived.py.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import OFFSET_END, KafkaError, Producer, TopicPartition
from rebalance_guard.confluent_kafka import Consumer, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import DEADLINE_S, PROTOCOLS, closing, config

FIXTURES = Path(__file__).parents[1] / "codemods" / "fixtures"
#: message timestamps, ms after T0: partition 0 has messages after SINCE, partition 1 none
TIMES = {0: (0, 1_000, 2_000, 3_000), 1: (0, 1_000)}
SINCE = 1_500
#: where each partition starts: the first offset at or after SINCE, or the end
STARTS = {0: 2, 1: 2}


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"assign_at_times_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORIGINAL = _load(FIXTURES / "assign_at_times.py")
MIGRATED = _load(FIXTURES / "migrated" / "assign_at_times.py")


def _topic(broker: Broker) -> tuple[str, int]:
    """A fresh topic with :data:`TIMES`' messages; the time to start from (ms since epoch)."""
    topic = broker.create_topic(2)
    t0 = int(time.time() * 1000) - 600_000  # ten minutes ago: within the broker's limits
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for partition, times in TIMES.items():
        for at in times:
            producer.produce(topic, f"{partition}@{at}".encode(), partition=partition,
                             timestamp=t0 + at)  # fmt: skip
    assert producer.flush(30) == 0
    return topic, t0 + SINCE


def _starts(consumer: confluent_kafka.Consumer, broker: Broker, topic: str) -> dict[str, Any]:
    """Poll with ``enable.partition.eof``: each partition's first event (a message's offset,
    or ``("end", offset)``); once partition 1 reported its end, one more message goes to it,
    and the offset it arrives at is ``after_end``."""
    first: dict[int, int | tuple[str, int]] = {}
    after_end: int | None = None
    sent = False
    deadline = time.monotonic() + DEADLINE_S
    with closing([consumer]):
        while after_end is None:
            assert time.monotonic() < deadline, f"no new message after the end: {first}"
            message = consumer.poll(0.2)
            if message is None:
                continue
            partition, offset = message.partition() or 0, message.offset() or 0
            error = message.error()
            if error is not None:
                assert error.code() == KafkaError._PARTITION_EOF, error
                first.setdefault(partition, ("end", offset))
            else:
                first.setdefault(partition, offset)
                if partition == 1 and sent:
                    after_end = offset
            if not sent and 1 in first and 0 in first:
                producer = Producer({"bootstrap.servers": broker.bootstrap})
                producer.produce(topic, b"1@now", partition=1)
                assert producer.flush(30) == 0
                sent = True
    return {"first": first, "after_end": after_end}


#: what every run must see: partition 0 starts at its message after SINCE, partition 1 at its
#: end (2 messages), where the message produced after the end then arrives
EXPECTED = {"first": {0: STARTS[0], 1: ("end", STARTS[1])}, "after_end": STARTS[1]}


def _conf(broker: Broker, protocol: str) -> dict[str, Any]:
    eof: dict[str, Any] = {"enable.partition.eof": True}  # each partition reports its end
    return config(broker, protocol=protocol, **eof)


def test_offsets_for_times_answers_the_same_partitions_with_end_where_nothing_follows(
    broker: Broker,
) -> None:
    """The premise: the same partitions in the same order, OFFSET_END (-1) for partition 1."""
    topic, since = _topic(broker)
    reader = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "x"})
    try:
        asked = [TopicPartition(topic, 1, since), TopicPartition(topic, 0, since)]
        found = reader.offsets_for_times(asked, timeout=10)
    finally:
        reader.close()
    assert [(p.topic, p.partition, p.offset) for p in found] == [
        (topic, 1, OFFSET_END),
        (topic, 0, STARTS[0]),
    ]
    assert OFFSET_END == -1


Opener = Callable[[dict[str, Any], str, int], confluent_kafka.Consumer]
ORIGINALS: dict[str, Opener] = {
    "method, bound answer": lambda conf, topic, since: ORIGINAL.TimeReader(
        conf, topic, since
    ).open(),
    "function, inline answer": ORIGINAL.open_replay,
}


@pytest.mark.parametrize("shape", list(ORIGINALS))
def test_original_recipe_on_raw_confluent_is_the_oracle(broker: Broker, shape: str) -> None:
    topic, since = _topic(broker)
    consumer = ORIGINALS[shape](_conf(broker, "eager"), topic, since)
    assert type(consumer) is confluent_kafka.Consumer
    assert _starts(consumer, broker, topic) == EXPECTED


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_migrated_listener_through_the_rebalance_guard_consumer(
    broker: Broker, protocol: str
) -> None:
    """The migrated TimeReader (offsets_for_times and a seek loop on the view) registered on
    rebalance_guard.confluent_kafka.Consumer."""
    topic, since = _topic(broker)
    conf = _conf(broker, protocol)
    reader = MIGRATED.TimeReader(conf, topic, since)
    consumer = Consumer(conf)
    set_rebalance_listener(consumer, reader)
    consumer.subscribe([topic])
    assert _starts(consumer, broker, topic) == EXPECTED
    assert reader.total_partitions == 2 or protocol != "eager"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("shape", ["method, bound answer", "function, inline answer"])
def test_migrated_file_as_written(broker: Broker, protocol: str, shape: str) -> None:
    """The migrated file's own entry points: a plain consumer and its ``subscribe()``."""
    topic, since = _topic(broker)
    conf = _conf(broker, protocol)
    if shape == "method, bound answer":
        consumer = MIGRATED.TimeReader(conf, topic, since).open()
    else:
        consumer = MIGRATED.open_replay(conf, topic, since)
    assert _starts(consumer, broker, topic) == EXPECTED
