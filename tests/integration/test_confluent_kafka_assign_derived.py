"""Issue 25: ``on_assign`` callbacks assigning a list derived from their partitions, migrated,
start where they did (on raw confluent-kafka, the protocol their call is made for).

The shapes (codemod fixtures, each with its migrated twin, the assign become a seek per item
of the list on the view, staged by the adapter into the assignment it makes afterwards):

* ``committed()``'s answer, some offsets moved back by a warm-up window, then assigned
  (tests/codemods/fixtures/assign_committed.py, ``shapes/assign_committed.py``): a partition
  the group committed nothing for is answered at ``OFFSET_INVALID`` (-1001) and sought there,
  so the adapter's assignment must start it where the raw assign does: at the committed
  offset, else where ``auto.offset.reset`` says. Proven with both reset policies.
* a list of the partitions at ``OFFSET_BEGINNING`` bound to a name, then assigned (held_out_3
  014's shape: ``open_from_start`` in tests/codemods/fixtures/assign_at_offsets.py).
* on the asyncio ``AIOConsumer``, those two and ``offsets_for_times``' answer
  (tests/codemods/fixtures/assign_derived_aio.py; the last was proven on the sync consumer
  only, by test_confluent_kafka_assign_at_times.py).

One topic layout for all: partition 0 holds 6 messages and the group committed offset 4 for
it; partition 1 holds 3 and nothing is committed. Messages carry timestamps 1 s apart, and
the time asked of ``offsets_for_times`` falls between partition 0's third and fourth message
and after partition 1's last, so that partition has no offset at or after it (``OFFSET_END``).
Each consumer polls with ``enable.partition.eof``: a partition's first event is a message's
offset or its end; a partition that starts at its end then gets one more message, and where it
arrives is checked too.

The original's call works under one protocol only: ``assign()`` under eager,
``incremental_assign()`` under cooperative and KIP-848. Under the other, librdkafka refuses it
with ``_STATE`` inside the callback, ``poll()`` raises that ``KafkaError`` (an object that is
no exception: ``except Exception`` does not catch it) and nothing is assigned: pinned by
:func:`test_the_original_call_under_the_other_protocol_assigns_nothing`. The migrated code
makes no such call (the adapter makes the one the protocol takes), so it starts, under every
protocol, where the original starts under its own.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import OFFSET_INVALID, KafkaError, Producer, TopicPartition
from confluent_kafka.aio import AIOConsumer
from rebalance_guard.confluent_kafka import Consumer, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import DEADLINE_S, PROTOCOLS, closing, config

FIXTURES = Path(__file__).parents[1] / "codemods" / "fixtures"
#: message timestamps, ms after T0, per partition
TIMES = {0: (0, 1_000, 2_000, 3_000, 4_000, 5_000), 1: (0, 1_000, 2_000)}
#: what the group committed before the test's consumer joins
COMMITTED = {0: 4}
WARMUP = 2
SINCE = 2_500  # offsets_for_times: partition 0 from offset 3, partition 1 none (its end)
END = {partition: len(times) for partition, times in TIMES.items()}


def _load(name: str, migrated: bool) -> ModuleType:
    path = FIXTURES / ("migrated" if migrated else "") / name
    spec = importlib.util.spec_from_file_location(
        f"assign_derived_{'migrated' if migrated else 'original'}_{path.stem}", path
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COMMITTED_SHAPES = {migrated: _load("assign_committed.py", migrated) for migrated in (False, True)}
AT_OFFSETS = {migrated: _load("assign_at_offsets.py", migrated) for migrated in (False, True)}
AIO = {migrated: _load("assign_derived_aio.py", migrated) for migrated in (False, True)}


def _topic(broker: Broker, group: str) -> tuple[str, int]:
    """A fresh topic with :data:`TIMES`' messages and :data:`COMMITTED` committed for
    ``group``; the time to start from (ms since the epoch)."""
    topic = broker.create_topic(2)
    t0 = int(time.time() * 1000) - 600_000  # ten minutes ago: within the broker's limits
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for partition, times in TIMES.items():
        for at in times:
            producer.produce(topic, f"{partition}@{at}".encode(), partition=partition,
                             timestamp=t0 + at)  # fmt: skip
    assert producer.flush(30) == 0
    committer = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    try:
        offsets = [TopicPartition(topic, p, offset) for p, offset in COMMITTED.items()]
        committed = committer.commit(offsets=offsets, asynchronous=False)
        assert committed is not None and all(p.error is None for p in committed), committed
    finally:
        committer.close()
    return topic, t0 + SINCE


def _conf(broker: Broker, group: str, protocol: str, reset: str) -> dict[str, Any]:
    extra: dict[str, Any] = {"enable.partition.eof": True, "auto.offset.reset": reset}
    return config(broker, group, protocol=protocol, **extra)


class Starts:
    """Each partition's first event (a message's offset, or ``("end", offset)``) and, for a
    partition that starts at its end, the offset a message produced afterwards arrives at."""

    def __init__(self, broker: Broker, topic: str) -> None:
        self.broker, self.topic = broker, topic
        self.first: dict[int, int | tuple[str, int]] = {}
        self.after_end: dict[int, int] = {}
        self.sent: set[int] = set()
        self.deadline = time.monotonic() + DEADLINE_S

    def done(self) -> bool:
        assert time.monotonic() < self.deadline, f"not every start seen: {self.seen()}"
        ended = {p for p, first in self.first.items() if isinstance(first, tuple)}
        return len(self.first) == len(TIMES) and ended <= set(self.after_end)

    def see(self, message: confluent_kafka.Message[Any, Any] | None) -> None:
        if message is None:
            return
        partition, offset = message.partition() or 0, message.offset() or 0
        error = message.error()
        if error is not None:
            assert error.code() == KafkaError._PARTITION_EOF, error
            self.first.setdefault(partition, ("end", offset))
        else:
            self.first.setdefault(partition, offset)
            if partition in self.sent:
                self.after_end.setdefault(partition, offset)
        ended = {p for p, first in self.first.items() if isinstance(first, tuple)}
        for partition in sorted(ended - self.sent):
            producer = Producer({"bootstrap.servers": self.broker.bootstrap})
            producer.produce(self.topic, b"after the end", partition=partition)
            assert producer.flush(30) == 0
            self.sent.add(partition)

    def seen(self) -> dict[str, Any]:
        return {"first": self.first, "after_end": self.after_end}


def _starts(consumer: confluent_kafka.Consumer, broker: Broker, topic: str) -> dict[str, Any]:
    starts = Starts(broker, topic)
    with closing([consumer]):
        while not starts.done():
            starts.see(consumer.poll(0.2))
    return starts.seen()


def _expected(first: dict[int, int | str]) -> dict[str, Any]:
    """``first``: each partition's first offset, or ``"end"``: it starts at its end, where the
    message produced afterwards then arrives."""
    return {
        "first": {p: ("end", END[p]) if at == "end" else at for p, at in first.items()},
        "after_end": {p: END[p] for p, at in first.items() if at == "end"},
    }


#: where each shape starts each partition
WARM = {  # committed offset 4 moved back by WARMUP; nothing committed: auto.offset.reset
    "earliest": _expected({0: COMMITTED[0] - WARMUP, 1: 0}),
    "latest": _expected({0: COMMITTED[0] - WARMUP, 1: "end"}),
}
FROM_START = _expected({0: 0, 1: 0})
AT_TIMES = _expected({0: 3, 1: "end"})


def test_committed_answers_the_partitions_asked_with_invalid_where_nothing_is_committed(
    broker: Broker,
) -> None:
    """The premise: the same partitions in the same order, OFFSET_INVALID for partition 1."""
    group = broker.group()
    topic, _ = _topic(broker, group)
    reader = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    try:
        asked = [TopicPartition(topic, 1), TopicPartition(topic, 0)]
        found = reader.committed(asked, timeout=10)
    finally:
        reader.close()
    assert [(p.topic, p.partition, p.offset, p.error) for p in found] == [
        (topic, 1, OFFSET_INVALID, None),
        (topic, 0, COMMITTED[0], None),
    ]
    assert OFFSET_INVALID == -1001


# -- the sync Consumer -----------------------------------------------------------------------

Opener = Callable[[dict[str, Any], str, int], confluent_kafka.Consumer]


def _warm_reader(migrated: bool) -> Opener:
    return lambda conf, topic, since: (
        COMMITTED_SHAPES[migrated].WarmupReader(conf, topic, WARMUP).open()
    )


def _rewound(migrated: bool) -> Opener:
    return lambda conf, topic, since: COMMITTED_SHAPES[migrated].open_rewound(conf, topic, WARMUP)


def _from_start(migrated: bool) -> Opener:
    return lambda conf, topic, since: AT_OFFSETS[migrated].open_from_start(conf, topic)


#: shape -> (opener of the original or the migrated file, the protocols the original's call
#: is made for, where it starts by auto.offset.reset)
SHAPES: dict[str, tuple[Callable[[bool], Opener], tuple[str, ...], dict[str, dict[str, Any]]]] = {
    "committed, moved in a method, incremental_assign": (
        _warm_reader, ("cooperative", "consumer"), WARM
    ),
    "committed, moved in a function, assign": (_rewound, ("eager",), WARM),
    "partitions at OFFSET_BEGINNING bound to a name, assign": (
        _from_start, ("eager",), {"earliest": FROM_START, "latest": FROM_START}
    ),
}  # fmt: skip
RESETS = ("earliest", "latest")


def _original_cases() -> list[tuple[str, str, str]]:
    return [(s, p, r) for s, (_, ps, _) in SHAPES.items() for p in ps for r in RESETS]


@pytest.mark.parametrize(("shape", "protocol", "reset"), _original_cases())
def test_original_on_raw_confluent_is_the_oracle(
    broker: Broker, shape: str, protocol: str, reset: str
) -> None:
    opener, _, expected = SHAPES[shape]
    group = broker.group()
    topic, since = _topic(broker, group)
    consumer = opener(False)(_conf(broker, group, protocol, reset), topic, since)
    assert type(consumer) is confluent_kafka.Consumer
    assert _starts(consumer, broker, topic) == expected[reset]


@pytest.mark.parametrize("reset", RESETS)
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_migrated_file_as_written(broker: Broker, shape: str, protocol: str, reset: str) -> None:
    """The migrated file's own entry points: a plain consumer and rebalance_guard's
    ``subscribe()`` (the protocol guessed, learnt under an incremental one)."""
    opener, _, expected = SHAPES[shape]
    group = broker.group()
    topic, since = _topic(broker, group)
    consumer = opener(True)(_conf(broker, group, protocol, reset), topic, since)
    assert _starts(consumer, broker, topic) == expected[reset]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_migrated_listener_through_the_rebalance_guard_consumer(
    broker: Broker, protocol: str
) -> None:
    """The migrated WarmupReader (committed(), the loop, a seek loop on the view) registered
    on rebalance_guard.confluent_kafka.Consumer; it remembers where the warm-up ends."""
    group = broker.group()
    topic, _ = _topic(broker, group)
    conf = _conf(broker, group, protocol, "latest")
    reader = COMMITTED_SHAPES[True].WarmupReader(conf, topic, WARMUP)
    consumer = Consumer(conf)
    set_rebalance_listener(consumer, reader)
    consumer.subscribe([topic])
    assert _starts(consumer, broker, topic) == WARM["latest"]
    assert reader.resume_at == {(topic, 0): COMMITTED[0]}


#: how long a consumer whose original call was refused is watched for any message
STALLED_S = 5.0


@pytest.mark.parametrize(
    ("shape", "protocol"),
    [
        ("committed, moved in a method, incremental_assign", "eager"),
        ("committed, moved in a function, assign", "cooperative"),
        ("committed, moved in a function, assign", "consumer"),
    ],
)
def test_the_original_call_under_the_other_protocol_assigns_nothing(
    broker: Broker, shape: str, protocol: str
) -> None:
    """What the migration changes: under the other protocol raw confluent-kafka refuses the
    original's call with ``_STATE``; ``poll()`` then raises that ``KafkaError`` itself, an
    object that is no exception (only a bare ``except:`` catches it: ``except Exception``
    lets it end the program), and the consumer is left with nothing assigned: no message
    arrives. The migrated code starts at the callback's offsets under every protocol
    (:func:`test_migrated_file_as_written`)."""
    opener, _, _ = SHAPES[shape]
    group = broker.group()
    topic, since = _topic(broker, group)
    consumer = opener(False)(_conf(broker, group, protocol, "latest"), topic, since)
    raised: list[object] = []
    delivered: list[confluent_kafka.Message[Any, Any]] = []
    deadline = time.monotonic() + DEADLINE_S
    with closing([consumer]):
        while not raised:
            assert time.monotonic() < deadline, "the original's call was not refused"
            try:
                message = consumer.poll(0.2)
            except:  # noqa: E722  (what poll() raises is no BaseException)
                raised.append(sys.exc_info()[1])
            else:
                delivered += [message] if message is not None else []
        quiet_until = time.monotonic() + STALLED_S
        while time.monotonic() < quiet_until:
            message = consumer.poll(0.2)
            delivered += [message] if message is not None else []
        assigned = consumer.assignment()
    (error,) = raised
    assert isinstance(error, KafkaError) and not isinstance(error, BaseException), error
    assert error.code() == KafkaError._STATE
    assert delivered == [] and assigned == []


# -- the asyncio AIOConsumer -----------------------------------------------------------------

AioOpener = Callable[[ModuleType, dict[str, Any], str, int], Awaitable[AIOConsumer]]
#: shape -> (opener, the protocols the original's call is made for, where it starts)
AIO_SHAPES: dict[str, tuple[AioOpener, tuple[str, ...], dict[str, Any]]] = {
    "offsets_for_times bound, assign": (
        lambda m, conf, topic, since: m.open_replay(conf, topic, since), ("eager",), AT_TIMES
    ),
    "offsets_for_times inline, incremental_assign": (
        lambda m, conf, topic, since: m.open_incremental_replay(conf, topic, since),
        ("cooperative", "consumer"),
        AT_TIMES,
    ),
    "committed, moved, incremental_assign": (
        lambda m, conf, topic, since: m.open_warm(conf, topic, WARMUP),
        ("cooperative", "consumer"),
        WARM["latest"],
    ),
    "committed, moved, assign": (
        lambda m, conf, topic, since: m.open_warm_eager(conf, topic, WARMUP),
        ("eager",),
        WARM["latest"],
    ),
    "partitions at OFFSET_BEGINNING bound to a name, assign": (
        lambda m, conf, topic, since: m.open_from_start(conf, topic), ("eager",), FROM_START
    ),
}  # fmt: skip


def _aio_starts(broker: Broker, shape: str, protocol: str, migrated: bool) -> dict[str, Any]:
    opener, _, _ = AIO_SHAPES[shape]
    group = broker.group()
    topic, since = _topic(broker, group)
    conf = _conf(broker, group, protocol, "latest")

    async def scenario() -> dict[str, Any]:
        consumer = await opener(AIO[migrated], conf, topic, since)
        assert (type(consumer) is AIOConsumer) or migrated
        starts = Starts(broker, topic)
        try:
            while not starts.done():
                starts.see(await consumer.poll(0.2))
        finally:
            await consumer.close()
        return starts.seen()

    return asyncio.run(scenario())


@pytest.mark.parametrize(
    ("shape", "protocol"), [(s, p) for s, (_, ps, _) in AIO_SHAPES.items() for p in ps]
)
def test_aio_original_on_raw_confluent_is_the_oracle(
    broker: Broker, shape: str, protocol: str
) -> None:
    assert _aio_starts(broker, shape, protocol, migrated=False) == AIO_SHAPES[shape][2]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("shape", list(AIO_SHAPES))
def test_aio_migrated_file_as_written(broker: Broker, shape: str, protocol: str) -> None:
    assert _aio_starts(broker, shape, protocol, migrated=True) == AIO_SHAPES[shape][2]
