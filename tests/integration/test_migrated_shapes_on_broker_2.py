"""More migration shapes proven by running the MIGRATED program on Apache Kafka (the sequel of
test_migrated_shapes_on_broker.py, whose migration, observation and stream helpers these
reuse). Each case migrates a user program of the shape (``migrated_programs/``) with the real
codemod, imports the result and drives it on the test broker with the real client:

1. ``listener_helper_methods``: a listener injected with its consumer whose callbacks reach
   it only through helper methods of the listener (a bare commit in the revocation's helper,
   ``committed`` then ``seek`` in the assignment's); migrated, the helpers take the callback's
   view by keyword and the injection goes (kafka-python eager and cooperative, aiokafka
   eager);
2. ``role_named_callbacks``: a confluent owner registering its own
   ``on_partitions_assigned(self, consumer, partitions)`` methods, which keep their names with
   the parameters swapped (sync ``Consumer``);
3. ``defaulted_parameters``: confluent callbacks nested in a method reaching the worker through
   ``_self=self`` (sync ``Consumer``);
4. ``inherited_owner_callbacks`` on confluent's asyncio ``AIOConsumer``: a subclass
   registering the callbacks it inherits (tests/integration/test_confluent_kafka_inherited_owner.py
   runs the sync ``Consumer`` fixture). The codemod does migrate it on ``AIOConsumer``.

Each is the same user-level check: a producer writes numbered messages throughout; member A
processes, member B joins mid-stream, then one of them leaves. Every callback runs with the
view, each program's own idea of its partitions is its consumer's assignment once the group
is stable, every partition's offsets are processed in order exactly once across every
handover (the revocation's commit landed) and the leaver's last commit is the group's
committed offset. The confluent cases run eager, cooperative-sticky and KIP-848's
``consumer`` protocol; the migrated code passes no ``protocol=``, so under the incremental
protocols the adapter's guessed-eager fallback is what runs. kafka-python has no KIP-848 (and
2.x no cooperative), aiokafka no cooperative.

The confluent programs run on a subclass of the consumer they create that reads its
assignment on the polling thread after each ``poll()`` (:class:`SampledConsumer`): confluent's
``assignment()`` asked from the test's thread hangs during a rebalance, raw confluent alike.
(The ~10 s stall of the last member's ``close()`` in the view's bare ``commit()`` these cases
once showed is gone since 0247351: test_confluent_kafka_bare_commit_in_close.py.)
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import asyncio
import functools
import inspect
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka.aio import AIOConsumer
from rebalance_guard._view import ExpiringView

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import PROTOCOLS, config
from tests.integration.test_migrated_shapes_on_broker import (
    PARTITIONS,
    Member,
    Run,
    Stream,
    _cases,
    aiokafka_consumer,
    assert_processed_once_in_order,
    committed,
    end_offsets,
    first_with_partitions,
    kafka_python_consumer,
    load,
    migrated_source,
    scenario,
    split,
)

# --------------------------------------------------------------------------- harness


class SampledConsumer(confluent_kafka.Consumer):
    """confluent's ``Consumer``, its assignment read on the polling thread after each
    ``poll()``: called from another thread while ``poll()`` runs, confluent's ``assignment()``
    blocks for good during a rebalance (reproduced on raw confluent-kafka 2.16, without
    rebalance_guard), so the test must not ask it from its own thread."""

    sampled: set[int] | None = None

    def poll(self, *args: Any, **kwargs: Any) -> Any:
        message = super().poll(*args, **kwargs)
        self.sampled = {tp.partition for tp in self.assignment()}
        return message


class SampledAIOConsumer(AIOConsumer):
    """``AIOConsumer``, its assignment read in the polling task after each ``poll()`` (its
    executor would otherwise run ``assignment()`` beside a ``poll()``, as above)."""

    sampled: set[int] | None = None

    async def poll(self, *args: Any, **kwargs: Any) -> Any:
        message = await super().poll(*args, **kwargs)
        self.sampled = {tp.partition for tp in await self.assignment()}
        return message


class ConfluentMember(Member):
    """A member running a confluent program on a sampled consumer: its assignment is what the
    polling thread last read; messages are read through their methods."""

    program: Any = None

    def assignment(self) -> set[int] | None:
        return getattr(self.consumer, "sampled", None)

    def handle(self, message: Any) -> None:
        value = int(message.value())
        self.run.journal.append((self.name, message.partition(), message.offset(), value))


def record_registrations(
    module: ModuleType, name: str, on_register: Callable[[Any], None] = lambda listener: None
) -> dict[int, Any]:
    """Wrap the migrated module's ``name`` (``set_rebalance_listener(consumer, listener)`` or
    ``subscribe(consumer, topics, listener)``, maybe a coroutine): which listener each consumer
    was given (by ``id`` of the consumer); ``on_register`` sees each listener first."""
    registered: dict[int, Any] = {}
    original = getattr(module, name)

    def note(consumer: Any, args: tuple[Any, ...]) -> None:
        registered[id(consumer)] = args[-1]
        on_register(args[-1])

    if inspect.iscoroutinefunction(original):

        async def wrapper(consumer: Any, *args: Any, **kwargs: Any) -> Any:
            note(consumer, args)
            return await original(consumer, *args, **kwargs)

    else:

        def wrapper(consumer: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            note(consumer, args)
            return original(consumer, *args, **kwargs)

    setattr(module, name, functools.wraps(original)(wrapper))
    return registered


@dataclass
class HelperCall:
    listener: Any
    name: str
    partitions: frozenset[int]
    consumer: Any


def observe_helpers(cls: type, names: tuple[str, ...]) -> list[HelperCall]:
    """Record every call of the helper methods ``names`` of ``cls`` (after migration each
    takes ``(partitions, *, consumer)``)."""
    calls: list[HelperCall] = []
    for name in names:
        original = vars(cls)[name]

        def record(listener: Any, n: str, partitions: Any, consumer: Any) -> None:
            parts = frozenset(tp.partition for tp in partitions)
            calls.append(HelperCall(listener, n, parts, consumer))

        if inspect.iscoroutinefunction(original):

            async def wrapper(
                self: Any, partitions: Any, *, consumer: Any, _f: Any = original, _n: str = name
            ) -> Any:
                record(self, _n, partitions, consumer)
                return await _f(self, partitions, consumer=consumer)

        else:

            def wrapper(  # type: ignore[misc]
                self: Any, partitions: Any, *, consumer: Any, _f: Any = original, _n: str = name
            ) -> Any:
                record(self, _n, partitions, consumer)
                return _f(self, partitions, consumer=consumer)

        setattr(cls, name, functools.wraps(original)(wrapper))
    return calls


@dataclass
class Handover:
    """What one two-member run leaves to check."""

    a: Member
    b: Member
    sent: int
    leaver_owned: set[int]
    ends: dict[int, int]
    at_leave: dict[int, int]


def join_share_leave(
    run: Run,
    stream: Stream,
    broker: Broker,
    group: str,
    topic: str,
    member: Callable[[str], Member],
    leaver: str,
) -> Handover:
    """A processes a first stretch; B joins mid-stream and the two share the topic; the stream
    stops and everything is processed; ``leaver`` leaves (its close revokes and commits), the
    other takes every partition over and polls on a while; both stopped, nothing raised."""
    a = member("A")
    run.until(lambda: len(run.processed("A")) >= 60, "A to process a first stretch")
    b = member("B")
    run.until(lambda: split([a, b]) and len(run.processed("B")) >= 20, "A and B to share the topic")
    sent = stream.stop()
    run.until(lambda: len(set(run.processed())) >= sent, f"all {sent} messages processed")
    leaving, staying = (a, b) if leaver == "A" else (b, a)
    leaver_owned = leaving.assignment() or set()
    leaving.stop()
    ends = end_offsets(run)
    at_leave = committed(broker.bootstrap, group, topic)
    run.until(
        lambda: staying.stable() and staying.assignment() == set(range(PARTITIONS)),
        f"{staying.name} to own every partition",
    )
    time.sleep(1.0)  # let it poll: anything it would process twice arrives now
    staying.stop()
    run.check()
    return Handover(a, b, sent, leaver_owned, ends, at_leave)


def assert_exactly_once_across_handovers(run: Run, done: Handover) -> None:
    """The leaver's close committed what it processed; every offset processed once, in order,
    and B took partitions over from A (and the stream ran throughout)."""
    assert done.leaver_owned, "the leaver owned partitions"
    assert {p: done.at_leave[p] for p in done.leaver_owned} == {
        p: done.ends[p] for p in done.leaver_owned
    }
    handovers = assert_processed_once_in_order(run, done.sent)
    assert any(old == "A" and new == "B" for _, _, old, new in handovers), handovers
    assert done.sent > 100


def assert_first_reads_at(
    run: Run, starts: list[tuple[str, int, int, int]]
) -> list[tuple[str, int]]:
    """Each ``(member, partition, position, journal length)`` noted at an assignment: the
    member's first read of that partition after it is at that position (unless another member
    read it first: the partition had moved on). Returns the (member, position) pairs checked."""
    checked = []
    for who, p, position, since in starts:
        first = next(((o, m) for m, q, o, _ in run.journal[since:] if q == p), None)
        if first is None or first[1] != who:
            continue  # nothing new reached the partition before it moved on
        assert first[0] == position, (who, p, position, first, starts)
        checked.append((who, position))
    return checked


def assert_callbacks_through_the_view(run: Run, first: Any) -> None:
    """Every callback got the view; ``first`` (A's listener) was first given the whole topic;
    every listener had partitions revoked (the commits ran)."""
    assert run.calls, "no callback ran"
    assert all(c.through_view for c in run.calls), [type(c.consumer) for c in run.calls]
    assert first_with_partitions(run.of(first)) == (
        "on_partitions_assigned",
        frozenset(range(PARTITIONS)),
    )
    listeners = {id(c.listener): c.listener for c in run.calls}.values()
    assert len(listeners) == 2, listeners
    for listener in listeners:
        revoked = [c for c in run.of(listener) if c.name == "on_partitions_revoked"]
        assert any(c.partitions for c in revoked), run.of(listener)


def confluent_cases() -> list[Any]:
    return [pytest.param(p, id=p) for p in PROTOCOLS]


# --------------------------------------------------------------------------- 1. listener_helper_methods


HELPERS = {"kafka_python": ("_save_progress", "_restore"), "aiokafka": ("save_progress", "restore")}


@pytest.mark.parametrize(("client", "protocol"), _cases())
def test_listener_helper_methods_take_the_view_on_the_broker(
    broker: Broker, client: str, protocol: str, tmp_path: Path
) -> None:
    """The helpers the callbacks call get the callback's own view: the revocation's bare
    commit through it lands (B continues right after A's last offsets, and after the leaver's
    last again), the assignment's ``committed``/``seek`` through it restores the positions."""
    name = f"progress_helpers_{client}"
    save, restore = HELPERS[client]
    await_ = "await " if client == "aiokafka" else ""
    source = migrated_source(name)
    code = source.split('"""', 2)[2]  # after the module docstring
    assert "self.consumer" not in code  # the injection went: nothing uses it
    assert "    def __init__(self) -> None:\n" in source
    assert f"        {await_}self.{save}(revoked, consumer=consumer)\n" in source
    assert f"        {await_}self.{restore}(assigned, consumer=consumer)\n" in source
    for helper in (save, restore):  # keyword-only view (the annotation of partitions aside)
        signature = rf"\n    (async )?def {helper}\(self, partitions: [^\n]*, \*, consumer: RebalanceConsumer\) -> None:\n"
        assert re.search(signature, source), helper
    assert f"            {await_}consumer.commit()\n" in source
    module = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.ProgressListener)
        helpers = observe_helpers(module.ProgressListener, (save, restore))
        listeners = record_registrations(module, "set_rebalance_listener")

        def member(label: str) -> Member:
            m = Member(run, label)
            m.tracked = lambda: (
                {tp.partition for tp in set(li.owned)}
                if (li := listeners.get(id(m.consumer)))
                else None
            )
            if client == "kafka_python":
                m.consumer = kafka_python_consumer(broker, group, protocol)
                return m.start(
                    lambda stopping: module.consume(m.consumer, topic, m.handle, stopping)
                )

            async def body(stopping: asyncio.Event) -> None:
                m.consumer = aiokafka_consumer(broker, group)
                await module.consume(m.consumer, topic, m.handle, stopping)

            return m.start_async(body)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="A")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, listeners[id(done.a.consumer)])
    # each helper call got the view of the callback calling it (the same object)
    views = {id(c.consumer): c for c in run.calls}
    assert helpers and all(isinstance(h.consumer, ExpiringView) for h in helpers), helpers
    for h in helpers:
        caller = views.get(id(h.consumer))
        assert caller is not None and caller.listener is h.listener, h
        assert caller.partitions == h.partitions, (caller, h)
    assert {h.name for h in helpers if h.partitions} == {save, restore}


# --------------------------------------------------------------------------- 2. role_named_callbacks


@pytest.mark.parametrize("protocol", confluent_cases())
def test_role_named_callbacks_on_the_broker(broker: Broker, protocol: str, tmp_path: Path) -> None:
    """The source registering its own role-named methods becomes its own listener; its bare
    ``consumer.commit()`` in the revocation is the view's synchronous commit: B continues right
    after A's last offsets, and A after B's when B leaves."""
    name = "role_named_source_confluent"
    source = migrated_source(name)
    assert "class KafkaSource(RebalanceListener):\n" in source
    assert "        subscribe(self.consumer, [self.topic], self)\n" in source
    assert (
        "    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "        consumer.commit()\n"
    ) in source
    assert (
        "    def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        in source
    )
    module = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what KafkaSource() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.KafkaSource)

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            m.program = module.KafkaSource(conf, topic)
            m.consumer = m.program.consumer
            m.tracked = lambda: set(m.program.owned)
            return m.start(lambda stopping: m.program.run(m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)
    assert {type(c.listener) for c in run.calls} == {module.KafkaSource}


# --------------------------------------------------------------------------- 3. defaulted_parameters


@pytest.mark.parametrize("protocol", confluent_cases())
def test_defaulted_self_parameter_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The nested callbacks, gathered into a listener class inside ``start()``, keep
    ``_self=self``: each member's worker (not another's) follows its partitions, and the
    revocation's bare commit on the view lands at every handover."""
    name = "defaulted_self_worker_confluent"
    source = migrated_source(name)
    assert "        class RebalanceCallbacks(RebalanceListener):\n" in source
    assert (
        "            def on_partitions_revoked(listener, partitions, consumer: RebalanceConsumer, _self=self):\n"
        "                consumer.commit()\n"
    ) in source
    assert (
        "            def on_partitions_assigned(listener, partitions, consumer: RebalanceConsumer, _self=self):\n"
        in source
    )
    assert "        subscribe(self.consumer, [topic], RebalanceCallbacks())\n" in source
    module = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        # each start() defines its own listener class: observe each as it is registered
        listeners = record_registrations(module, "subscribe", lambda li: run.observe(type(li)))

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            m.program = module.Worker(SampledConsumer(conf))
            m.consumer = m.program.consumer
            m.tracked = lambda: set(m.program.owned) if id(m.consumer) in listeners else None
            return m.start(lambda stopping: m.program.start(topic, m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="A")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, listeners[id(done.a.consumer)])
    for m in (done.a, done.b):  # _self was the member's own worker
        revocations = [
            c
            for c in run.of(listeners[id(m.consumer)])
            if c.name == "on_partitions_revoked" and c.through_view
        ]
        assert m.program.revocations == len(revocations) > 0, (m.name, revocations)


# --------------------------------------------------------------------------- 4. inherited_owner_callbacks


@pytest.mark.parametrize("protocol", confluent_cases())
def test_inherited_owner_callbacks_on_aioconsumer_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The codemod migrates the inherited-owner shape on ``AIOConsumer`` too: the defining
    class becomes the listener and the subclass's registration passes ``self``. Run as the
    subclass, both members' inherited ``await consumer.commit()`` (the view's synchronous
    commit) lands at every handover."""
    name = "inherited_owner_aio"
    source = migrated_source(name)
    assert (
        "from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe\n"
        in source
    )
    assert "class MessageConsumer(RebalanceListener):\n" in source
    assert "class TransactionConsumer(MessageConsumer):\n" in source
    assert source.count("        await subscribe(self.consumer, ") == 2
    assert "        await subscribe(self.consumer, topics, self)\n" in source
    assert (
        "    async def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "        await consumer.commit()\n"
    ) in source
    module = load(source, tmp_path, name)
    module.AIOConsumer = SampledAIOConsumer  # what MessageConsumer() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.MessageConsumer)

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            m.tracked = lambda: set(m.program.owned) if m.program is not None else None

            async def body(stopping: asyncio.Event) -> None:
                m.program = module.TransactionConsumer(conf, [topic])
                m.consumer = m.program.consumer
                await m.program.run(m.handle, stopping)

            return m.start_async(body)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="A")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)
    assert {type(c.listener) for c in run.calls} == {module.TransactionConsumer}
