"""#27: every adapter times each callback, warns once when it is slow, and logs one record per
callback with what it did through the view, shown through the listener test harnesses (the
runtime's own adapters and views over in-memory consumers).

Durations come from a controllable clock (``rebalance_guard._observe.clock``) that a callback
advances: a "1.5 s callback" takes 1.5 s on that clock and no time on the machine's, so
nothing here depends on how busy the machine is.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from rebalance_guard import CallbackLogging, _observe
from rebalance_guard import aiokafka as rg_aiokafka
from rebalance_guard import confluent_kafka as rg_confluent
from rebalance_guard import confluent_kafka_aio as rg_confluent_aio
from rebalance_guard import kafka_python as rg_kafka_python
from rebalance_guard.testing import aiokafka as h_aiokafka
from rebalance_guard.testing import confluent_kafka as h_confluent
from rebalance_guard.testing import confluent_kafka_aio as h_confluent_aio
from rebalance_guard.testing import kafka_python as h_kafka_python

pytestmark = pytest.mark.kafka_python  # run again under kafka-python 2.x by .ci/run


def _offset(offset: int) -> Any:
    """kafka-python's OffsetAndMetadata (3.x added leader_epoch)."""
    from kafka.structs import OffsetAndMetadata

    fields = OffsetAndMetadata._fields
    return OffsetAndMetadata(offset, "", -1) if len(fields) == 3 else OffsetAndMetadata(offset, "")


class Clock:
    """A clock that only moves when a callback says it spent time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(_observe, "clock", fake)
    return fake


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[Callable[..., list[logging.LogRecord]]]:
    """The rebalance_guard records so far (at least ``level``)."""
    caplog.set_level(logging.DEBUG, logger="rebalance_guard")

    def records(level: int = logging.DEBUG) -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.name == "rebalance_guard" and r.levelno >= level]

    yield records


# -- one listener per client API: assigned seeks, pauses and takes `spend` seconds; revoked
#    commits bare (the consumed positions) and explicitly -------------------------------------


class KafkaPythonListener(rg_kafka_python.RebalanceListener):
    def __init__(self, clock: Clock, spend: float) -> None:
        self.clock, self.spend = clock, spend

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        from kafka.structs import TopicPartition

        consumer.seek(TopicPartition("orders", 0), 5)
        consumer.pause(TopicPartition("orders", 1))
        self.clock.spend(self.spend)

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        from kafka.structs import TopicPartition

        consumer.commit()
        consumer.commit({TopicPartition("orders", 1): _offset(9)})


class AIOKafkaListener(rg_aiokafka.RebalanceListener):
    def __init__(self, clock: Clock, spend: float) -> None:
        self.clock, self.spend = clock, spend

    async def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        from aiokafka.structs import TopicPartition

        consumer.seek(TopicPartition("orders", 0), 5)
        consumer.pause(TopicPartition("orders", 1))
        await asyncio.sleep(0)
        self.clock.spend(self.spend)

    async def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        from aiokafka.structs import TopicPartition

        await consumer.commit()
        await consumer.commit({TopicPartition("orders", 1): 9})


class ConfluentListener(rg_confluent.RebalanceListener):
    def __init__(self, clock: Clock, spend: float) -> None:
        self.clock, self.spend = clock, spend

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        from confluent_kafka import TopicPartition

        consumer.seek(TopicPartition("orders", 0, 5))
        consumer.pause([TopicPartition("orders", 1)])
        self.clock.spend(self.spend)

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        from confluent_kafka import TopicPartition

        consumer.commit()
        consumer.commit(offsets=[TopicPartition("orders", 1, 9)])


class ConfluentAIOListener(rg_confluent_aio.RebalanceListener):
    def __init__(self, clock: Clock, spend: float) -> None:
        self.clock, self.spend = clock, spend

    async def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        from confluent_kafka import TopicPartition

        await consumer.seek(TopicPartition("orders", 0, 5))
        await consumer.pause([TopicPartition("orders", 1)])
        self.clock.spend(self.spend)

    async def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        from confluent_kafka import TopicPartition

        await consumer.commit()
        await consumer.commit(offsets=[TopicPartition("orders", 1, 9)])


@dataclass
class Client:
    """One client API's harness, listener and partition type, driven synchronously."""

    client: str  # as the records name it
    listener: type[Any]
    harness: Callable[..., Any]
    partition: Callable[[int], Any]

    def run(self, harness: Any, step: str, *args: Any) -> None:
        result = getattr(harness, step)(*args)
        if asyncio.iscoroutine(result):
            asyncio.run(result)


def _kafka_tp(n: int) -> Any:
    from kafka.structs import TopicPartition

    return TopicPartition("orders", n)


def _aiokafka_tp(n: int) -> Any:
    from aiokafka.structs import TopicPartition

    return TopicPartition("orders", n)


CLIENTS = {
    "kafka_python": Client(
        "kafka-python", KafkaPythonListener, h_kafka_python.ListenerHarness, _kafka_tp
    ),
    "aiokafka": Client("aiokafka", AIOKafkaListener, h_aiokafka.ListenerHarness, _aiokafka_tp),
    "confluent_kafka": Client(
        "confluent-kafka Consumer",
        ConfluentListener,
        h_confluent.ListenerHarness,
        lambda n: ("orders", n),
    ),
    "confluent_kafka_aio": Client(
        "confluent-kafka AIOConsumer",
        ConfluentAIOListener,
        h_confluent_aio.ListenerHarness,
        lambda n: ("orders", n),
    ),
}


def _rebalance(client: Client, listener: Any) -> Any:
    """Assign orders-0 and orders-1, consume to 42 and 7, revoke both: a whole generation."""
    harness = client.harness(listener)
    client.run(harness, "assign", [client.partition(0), client.partition(1)])
    harness.set_positions({client.partition(0): 42, client.partition(1): 7})
    client.run(harness, "revoke")
    return harness


@pytest.mark.parametrize("name", CLIENTS)
def test_a_one_and_a_half_second_callback_logs_one_warning(
    name: str, clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    client = CLIENTS[name]
    _rebalance(client, client.listener(clock, 1.5))
    warnings = logs(logging.WARNING)
    assert len(warnings) == 1, [w.getMessage() for w in warnings]
    (warning,) = warnings
    text = warning.getMessage()
    label = f"{client.listener.__name__}.on_partitions_assigned"
    assert text.startswith(f"slow rebalance callback {label}(): 1.500 s for 2 partitions")
    assert client.client in text and "warns over 1 s" in text
    assert "this member consumes none of its partitions until it returns" in text
    assert "max.poll.interval.ms" in text
    assert "It did: seek {orders-0: 5}; pause [orders-1]" in text
    assert warning.rebalance_callback == label  # type: ignore[attr-defined]
    assert warning.rebalance_client == client.client  # type: ignore[attr-defined]
    assert warning.rebalance_duration == pytest.approx(1.5)  # type: ignore[attr-defined]
    assert warning.rebalance_partitions == ["orders-0", "orders-1"]  # type: ignore[attr-defined]
    assert warning.rebalance_slow is True  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", CLIENTS)
def test_one_record_per_callback_with_what_it_did(
    name: str, clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    client = CLIENTS[name]
    _rebalance(client, client.listener(clock, 0.0))
    records = logs()
    assert [r.rebalance_event for r in records] == [  # type: ignore[attr-defined]
        "on_partitions_assigned",
        "on_partitions_revoked",
    ]
    assert {r.levelno for r in records} == {logging.DEBUG}
    assigned, revoked = records
    assert assigned.rebalance_actions == [  # type: ignore[attr-defined]
        {"method": "seek", "offsets": {"orders-0": 5}},
        {"method": "pause", "partitions": ["orders-1"]},
    ]
    # a bare commit commits the consumed positions: the record names them
    assert revoked.rebalance_actions == [  # type: ignore[attr-defined]
        {"method": "commit", "offsets": {"orders-0": 42, "orders-1": 7}},
        {"method": "commit", "offsets": {"orders-1": 9}},
    ]
    assert revoked.rebalance_error is None  # type: ignore[attr-defined]
    assert revoked.getMessage().startswith(
        f"rebalance callback {client.listener.__name__}.on_partitions_revoked(): 0.000 s for "
        f"2 partitions [orders-0, orders-1] ({client.client}, "
    )
    assert revoked.getMessage().endswith(
        ": commit {orders-0: 42, orders-1: 7}; commit {orders-1: 9}"
    )


@pytest.mark.parametrize("name", CLIENTS)
def test_the_warning_can_be_turned_off_or_moved_per_listener(
    name: str, clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    client = CLIENTS[name]
    quiet = client.listener(clock, 30.0)
    quiet.callback_logging = CallbackLogging(slow_after=None)
    _rebalance(client, quiet)
    assert logs(logging.WARNING) == []
    eager = client.listener(clock, 0.2)
    eager.callback_logging = CallbackLogging(slow_after=0.1)
    _rebalance(client, eager)
    (warning,) = logs(logging.WARNING)
    assert "0.200 s for 2 partitions" in warning.getMessage()
    assert "warns over 0.1 s" in warning.getMessage()


class TeamListener(KafkaPythonListener):
    """A team that wants every rebalance in its production logs (class-level setting)."""

    callback_logging = CallbackLogging(level=logging.INFO)


def test_info_records_where_a_team_asks_for_them(
    clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    client = CLIENTS["kafka_python"]
    _rebalance(client, TeamListener(clock, 0.0))
    assert [r.levelno for r in logs()] == [logging.INFO, logging.INFO]
    _rebalance(client, TeamListener(clock, 2.0))  # slow: the same record, as a warning
    assert [r.levelno for r in logs()][2:] == [logging.WARNING, logging.INFO]


def test_nothing_is_formatted_when_the_logger_would_not_emit(
    clock: Clock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.WARNING, logger="rebalance_guard")
    monkeypatch.setattr(_observe, "_render_action", _must_not_run)
    _rebalance(CLIENTS["kafka_python"], KafkaPythonListener(clock, 0.5))
    assert [r for r in caplog.records if r.name == "rebalance_guard"] == []


def _must_not_run(action: Any) -> str:
    raise AssertionError("a record was built although the logger would drop it")


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_what_the_group_goes_through_by_protocol(
    protocol: str, clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    class SlowRevoke(rg_kafka_python.RebalanceListener):
        def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
            clock.spend(1.5)

    harness = h_kafka_python.ListenerHarness(SlowRevoke(), protocol=protocol)  # type: ignore[arg-type]
    harness.assign([_kafka_tp(0), _kafka_tp(1)])
    harness.rebalance([_kafka_tp(0)])
    (warning,) = logs(logging.WARNING)
    assert warning.rebalance_protocol == protocol  # type: ignore[attr-defined]
    text = warning.getMessage()
    assert f"(kafka-python, {protocol}; warns over 1 s)" in text
    if protocol == "eager":
        assert "2 partitions" in text and "the whole group waits for it" in text
    else:  # cooperative: only orders-1 moves
        assert "1 partition " in text and "revoked partitions are consumed by no member" in text


def test_kip_848_and_unknown_protocols_are_described_too() -> None:
    assert "only once this member has released them" in _observe.group_effect(
        "on_partitions_revoked", "consumer"
    )
    unknown = _observe.group_effect("on_partitions_revoked", None)
    assert "eager protocols: the whole group waits" in unknown
    assert "already belong to other members" in _observe.group_effect("on_partitions_lost", None)


def test_a_failing_slow_callback_is_logged_with_its_error(
    clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    class Failing(rg_confluent.RebalanceListener):
        def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
            clock.spend(1.5)
            raise ValueError("store unreachable")

    harness = h_confluent.ListenerHarness(Failing())
    with pytest.raises(ValueError, match="store unreachable"):
        harness.assign([("orders", 0)])
    (warning,) = logs(logging.WARNING)
    assert warning.rebalance_error == "ValueError: store unreachable"  # type: ignore[attr-defined]
    assert "raised ValueError" in warning.getMessage()


def test_a_forgotten_await_is_not_booked_as_done(
    clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    class Forgetful(rg_confluent_aio.RebalanceListener):
        async def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
            await consumer.commit()
            consumer.commit()  # never awaited: it never runs

    harness = h_confluent_aio.ListenerHarness(Forgetful())
    asyncio.run(harness.assign([("orders", 0)]))
    harness.set_positions({("orders", 0): 3})
    with pytest.raises(rg_confluent_aio.NotAwaitedError):
        asyncio.run(harness.revoke())
    revoked = logs()[-1]
    assert revoked.rebalance_actions == [  # type: ignore[attr-defined]
        {"method": "commit", "offsets": {"orders-0": 3}}
    ]
    assert revoked.rebalance_error.startswith("NotAwaitedError")  # type: ignore[attr-defined]


def test_a_failed_commit_is_booked_with_its_error(
    clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    class CommitsLost(rg_kafka_python.RebalanceListener):
        def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            consumer.commit({tp: _offset(1) for tp in partitions})

    harness = h_kafka_python.ListenerHarness(CommitsLost())
    harness.assign([_kafka_tp(0)])
    with pytest.raises(Exception, match="another member owns them"):
        harness.lose()
    lost = logs()[-1]
    (action,) = lost.rebalance_actions  # type: ignore[attr-defined]
    assert action["offsets"] == {"orders-0": 1}
    assert action["error"].startswith("CommitFailedError")
    assert "commit {orders-0: 1} failed (CommitFailedError" in lost.getMessage()


def test_a_legacy_one_argument_callback_is_timed_too(
    clock: Clock, logs: Callable[..., list[logging.LogRecord]]
) -> None:
    class Legacy:
        def on_partitions_assigned(self, partitions: Any) -> None:
            clock.spend(1.5)

        def on_partitions_revoked(self, partitions: Any) -> None:
            pass

    harness = h_kafka_python.ListenerHarness(Legacy())
    harness.assign([_kafka_tp(0)])
    (warning,) = logs(logging.WARNING)
    assert "Legacy.on_partitions_assigned(): 1.500 s for 1 partition " in warning.getMessage()


def test_a_wrong_setting_is_refused_at_registration() -> None:
    class Wrong(rg_kafka_python.RebalanceListener):
        callback_logging = 0.5  # type: ignore[assignment]

    with pytest.raises(TypeError, match=r"Wrong.callback_logging must be a .*CallbackLogging"):
        h_kafka_python.ListenerHarness(Wrong())
    with pytest.raises(TypeError, match="CallbackLogging"):
        h_aiokafka.ListenerHarness(Wrong())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="slow_after"):
        CallbackLogging(slow_after=-1)


def test_confluent_checks_the_setting_when_the_callback_runs() -> None:
    class Wrong(rg_confluent.RebalanceListener):
        callback_logging = "fast"

    harness = h_confluent.ListenerHarness(Wrong())
    with pytest.raises(TypeError, match="CallbackLogging"):
        harness.assign([("orders", 0)])
    assert harness.assignment == {("orders", 0)}  # the adapter still assigned
