"""More migration shapes proven by running the MIGRATED program on Apache Kafka (the sequel of
test_migrated_shapes_on_broker.py and _2.py, whose migration, observation, stream and
handover helpers these reuse). Each case migrates a user program of the shape
(``migrated_programs/``) with the real codemod, checks the migrated text where it matters,
imports the result and drives it on the test broker with the real client:

1. ``nested_listener_classes``: a listener class nested in the worker, created as
   ``self.RebalanceListener(self, worker_id)``, reaching the consumer through the runner it
   is handed (``self.runner.consumer.commit()``) (kafka-python eager and cooperative,
   aiokafka eager);
2. ``transparent_decorators``: callbacks under a file-local ``functools.wraps`` decorator
   holding a lock (confluent ``Consumer``: an owner's decorated methods; kafka-python: the
   fixture's listener); the decorator must still run around every callback;
3. held handler: ``on_assign=self._handler.on_assign`` with ``self._handler =
   RebalanceHandler()`` stored once; the held handler is what is registered, and it still
   forwards each revocation to the user's callback (confluent);
4. ``collected_partitions``: ``on_assign`` building, in a loop, a list of
   ``TopicPartition(p.topic, p.partition, offset)`` from the program's own checkpoint store
   (or, the codemod fixture's form, of the partitions with ``offset`` set where there is a
   checkpoint), then ``assign``; nothing is committed to Kafka, and each partition must start
   exactly at the checkpoint the program chose (confluent);
5. subscript receiver ``consumers[topic].subscribe(...)``: the item is what gets subscribed
   (confluent).

Each is the same user-level check: a producer writes numbered messages throughout; member A
processes, member B joins mid-stream, then one of them leaves. Every callback runs with the
view, each program's own idea of its partitions is its consumer's assignment once the group
is stable, every partition's offsets are processed in order exactly once across every
handover, and the leaver's last commit (case 4: its last checkpoint) is where the group
continues. The confluent cases run eager, cooperative-sticky and KIP-848's ``consumer``
protocol (the migrated code passes no ``protocol=``: under the incremental protocols the
adapter's guessed-eager fallback runs, and case 4's staged starts must survive it).

Each check was shown able to fail by breaking the migrated source before it is loaded (a
temporary edit of this file, reverted; 2026-11-27):

- the view's commit removed from the revocation (cases 1, 2, 3, 5, every client and
  protocol): the leaver's-commit check failed (committed -1001, not the last offset + 1);
  with that check skipped too, the exactly-once check failed (hundreds processed twice);
- case 1 registering ``self.RebalanceListener(self, "A")``: the own-runner check failed;
- case 2 with ``with METRICS_LOCK:`` taken out of the decorator: the lock count failed (0
  against 8 and 10 callbacks); the confluent worker registered raw with confluent's
  ``subscribe(on_assign=lambda c, ps: ...)``: the through-the-view check failed;
- case 3 with the handler's forward removed: the forwarded-revocations check failed;
- case 4 (both forms, three protocols) with the migrated seek loop removed: the start check
  failed (a member restarted at 0 instead of the checkpoint, e.g. 86); seeking one before
  the checkpoint (first form): it failed by one (88 against 89); a ``consumer.commit()``
  added to the revocation: the nothing-committed check failed; the revocation not updating
  ``owned``: the group never looked stable (timed out waiting for A and B to share the
  topic).
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import asyncio
import functools
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import PROTOCOLS, config
from tests.integration.test_migrated_shapes_on_broker import (
    PARTITIONS,
    Member,
    Run,
    Stream,
    _cases,
    aiokafka_consumer,
    committed,
    end_offsets,
    kafka_python_consumer,
    load,
    migrated_source,
    scenario,
)
from tests.integration.test_migrated_shapes_on_broker_2 import (
    ConfluentMember,
    SampledConsumer,
    assert_callbacks_through_the_view,
    assert_exactly_once_across_handovers,
    assert_first_reads_at,
    confluent_cases,
    join_share_leave,
    record_registrations,
)

# --------------------------------------------------------------------------- 1. nested_listener_classes


@pytest.mark.parametrize(("client", "protocol"), _cases())
def test_nested_listener_class_created_through_self_on_the_broker(
    broker: Broker, client: str, protocol: str, tmp_path: Path
) -> None:
    """The nested class becomes a ``RebalanceListener`` (imported under another name: the
    nested class is called ``RebalanceListener`` too), registered as created; the consumer it
    reached through the runner is the callback's view: its bare commit lands at every
    handover, and each member's listener follows its own runner."""
    name = f"nested_listener_{client}"
    module_name = "kafka_python" if client == "kafka_python" else "aiokafka"
    await_ = "await " if client == "aiokafka" else ""
    source = migrated_source(name)
    assert (
        f"from rebalance_guard.{module_name} import RebalanceConsumer, RebalanceListener as GuardRebalanceListener, set_rebalance_listener\n"
        in source
    )
    assert "    class RebalanceListener(GuardRebalanceListener):\n" in source
    assert (
        "            self.runner.drain()\n"
        f"            {await_}consumer.commit()\n"
        "            self.runner.owned -= set(revoked)\n"
    ) in source
    assert "self.runner.consumer" not in source.split('"""', 2)[2]  # after the docstring
    assert (
        "        set_rebalance_listener(self.consumer, self.RebalanceListener(self, self.worker_id))\n"
        "        self.consumer.subscribe(self.topics)\n"
    ) in source
    module = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.Runner.RebalanceListener)
        runners: dict[str, Any] = {}

        def member(label: str) -> Member:
            m = Member(run, label)
            m.tracked = lambda: (
                {tp.partition for tp in set(runners[label].owned)} if label in runners else None
            )
            if client == "kafka_python":
                m.consumer = kafka_python_consumer(broker, group, protocol)
                runners[label] = module.Runner(label, m.consumer, [topic], m.handle)
                return m.start(runners[label].run)

            async def body(stopping: asyncio.Event) -> None:
                m.consumer = aiokafka_consumer(broker, group)
                runners[label] = module.Runner(label, m.consumer, [topic], m.handle)
                await runners[label].run(stopping)

            return m.start_async(body)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="A")

    assert_exactly_once_across_handovers(run, done)
    a_listener = next(c.listener for c in run.calls if c.listener.runner is runners["A"])
    assert_callbacks_through_the_view(run, a_listener)
    for call in run.calls:  # each listener was its own runner's, created through its self
        assert type(call.listener) is module.Runner.RebalanceListener
        assert call.listener.runner is runners[call.listener.worker_id], call


# --------------------------------------------------------------------------- 2. transparent_decorators


class CountingLock:
    """The decorator's lock, counting how often it was taken."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.taken = 0

    def __enter__(self) -> None:
        self._lock.acquire()
        self.taken += 1

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def _transparent_cases() -> list[Any]:
    confluent = [pytest.param("confluent", p, id=f"confluent-{p}") for p in PROTOCOLS]
    return confluent + _cases(("kafka_python",))


@pytest.mark.parametrize(("client", "protocol"), _transparent_cases())
def test_callbacks_under_a_pass_through_decorator_on_the_broker(
    broker: Broker, client: str, protocol: str, tmp_path: Path
) -> None:
    """The decorated callbacks keep their decorator and take the view through it: the lock
    is taken once per callback the client runs, and the revocation's bare commit (the view's
    synchronous one on confluent) lands at every handover."""
    name = f"transparent_decorators_{client}"
    source = migrated_source(name)
    if client == "confluent":
        assert "class Worker(RebalanceListener):\n" in source
        assert (
            "    @synchronized\n"
            "    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
            "        consumer.commit()\n"
        ) in source
        assert (
            "    @synchronized\n"
            "    def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        ) in source
        assert "        subscribe(self.consumer, [self.topic], self)\n" in source
        listener_class = "Worker"
    else:
        assert (
            "class OwnershipListener(RebalanceListener):\n    def __init__(self) -> None:\n"
            in source
        )
        assert (
            "    @synchronized\n"
            "    def on_partitions_revoked(self, revoked: Any, consumer: RebalanceConsumer) -> None:\n"
            "        consumer.commit()\n"
        ) in source
        assert (
            "    set_rebalance_listener(consumer, OwnershipListener())\n    consumer.subscribe([topic])\n"
            in source
        )
        listener_class = "OwnershipListener"
    module = load(source, tmp_path, name)
    module.METRICS_LOCK = lock = CountingLock()  # what the wrapper takes, looked up per call
    module.Consumer = SampledConsumer  # what Worker() creates (confluent)
    topic, group = broker.create_topic(PARTITIONS), broker.group()

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(getattr(module, listener_class))
        listeners = (
            record_registrations(module, "set_rebalance_listener")
            if client == "kafka_python"
            else {}
        )

        def member(label: str) -> Member:
            if client == "confluent":
                m: Member = ConfluentMember(run, label)
                program = module.Worker(config(broker, group, protocol), topic)
                m.consumer, m.program = program.consumer, program  # type: ignore[attr-defined]
                m.tracked = lambda: set(program.owned)
                return m.start(lambda stopping: program.run(m.handle, stopping))
            m = Member(run, label)
            m.consumer = kafka_python_consumer(broker, group, protocol)
            m.tracked = lambda: (
                {tp.partition for tp in set(li.owned)}
                if (li := listeners.get(id(m.consumer)))
                else None
            )
            return m.start(lambda stopping: module.consume(m.consumer, topic, m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")

    assert_exactly_once_across_handovers(run, done)
    a: Any = done.a
    first = a.program if client == "confluent" else listeners[id(a.consumer)]
    assert_callbacks_through_the_view(run, first)
    # every callback the client ran went through the decorator (the lock taken once each)
    assert lock.taken == len(run.calls) > 0, (lock.taken, len(run.calls))


# --------------------------------------------------------------------------- 3. held handler


@pytest.mark.parametrize("protocol", confluent_cases())
def test_held_handler_is_the_listener_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The handler the wrapper holds becomes the listener and is registered as held: its
    synchronous commit on the view lands at every handover, and it still forwards each
    revocation to the user's callback."""
    name = "held_handler_confluent"
    source = migrated_source(name)
    assert "class RebalanceHandler(RebalanceListener):\n" in source
    assert (
        "from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe as guard_subscribe\n"
        in source
    )
    assert (
        "    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "        try:\n"
        "            consumer.commit(asynchronous=False)\n"
    ) in source
    assert "        guard_subscribe(self._consumer, topics, self._handler)\n" in source
    assert "self._handler.on_" not in source.split('"""', 2)[2]  # after the docstring
    module = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what StreamingConsumer() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)
    forwarded: dict[str, list[frozenset[int]]] = {}

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.RebalanceHandler)
        listeners = record_registrations(module, "guard_subscribe")

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            program = m.program = module.StreamingConsumer(conf)
            m.consumer = program._consumer
            m.tracked = lambda: set(program._handler.owned)
            seen = forwarded.setdefault(label, [])
            program.subscribe(
                [topic], on_revoke=lambda ps: seen.append(frozenset(p.partition for p in ps))
            )
            return m.start(lambda stopping: program.run(m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="A")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program._handler)  # type: ignore[attr-defined]
    for m in (done.a, done.b):
        handler = m.program._handler  # type: ignore[attr-defined]
        assert listeners[id(m.consumer)] is handler  # registered as held
        revocations = [c.partitions for c in run.of(handler) if c.name == "on_partitions_revoked"]
        assert forwarded[m.name] == revocations and any(revocations), (m.name, forwarded)


# --------------------------------------------------------------------------- 4. collected_partitions


#: the two forms of the loop, each with its migrated tail: a new ``TopicPartition`` of each
#: partition at its checkpoint (the beginning without one), and the fixture's form setting
#: ``offset`` on the partitions themselves where there is a checkpoint
COLLECTED = {
    "collected_offsets_confluent": (
        "        to_assign = []\n"
        "        for p in partitions:\n"
        "            to_assign.append(\n"
        "                TopicPartition(\n"
        "                    p.topic, p.partition, CHECKPOINTS.get((p.topic, p.partition), OFFSET_BEGINNING)\n"
        "                )\n"
        "            )\n"
        "        for partition in to_assign:\n"
        "            consumer.seek(partition)\n"
    ),
    "collected_partitions_confluent": (
        "            if saved is not None:\n"
        "                partition.offset = saved\n"
        "            to_assign.append(partition)\n"
        "        for partition in partitions:\n"
        "            consumer.seek(partition)\n"
    ),
}


@pytest.mark.parametrize("protocol", confluent_cases())
@pytest.mark.parametrize("name", list(COLLECTED))
def test_loop_built_offsets_start_where_the_program_chose_on_the_broker(
    broker: Broker, name: str, protocol: str, tmp_path: Path
) -> None:
    """The assign of the loop-built list becomes seeks of its items on the view. The program
    commits nothing to Kafka (its group has no committed offset at the end), so only those
    seeks can make a partition start at the program's checkpoint: after every assignment a
    member's first message of each partition is exactly at the checkpoint it was assigned
    at, and nothing is processed twice across the handovers."""
    source = migrated_source(name)
    assert "class Ledger(RebalanceListener):\n" in source
    assert COLLECTED[name] in source
    assert "consumer.assign(" not in source
    assert "        subscribe(self.consumer, [self.topic], self)\n" in source
    module = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what Ledger() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)
    #: (member, partition, the checkpoint when assigned, the journal's length then)
    starts: list[tuple[str, int, int, int]] = []

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        _note_starts(module, run, starts)
        run.observe(module.Ledger)

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            program = m.program = module.Ledger(conf, topic)
            program.label = label
            m.consumer = program.consumer
            m.tracked = lambda: set(program.owned)
            return m.start(lambda stopping: program.run(m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")
        at_end = committed(broker.bootstrap, group, topic)

    assert {p: o for p, o in at_end.items() if o >= 0} == {}, "the program commits nothing"
    # the leaver's last checkpoints (every partition's, at the end) are where processing got to
    done.at_leave = {p: module.CHECKPOINTS[(topic, p)] for p in range(PARTITIONS)}
    assert done.at_leave == end_offsets(run)
    checked = assert_first_reads_at(run, starts)
    assert any(c > 0 for _, c in checked), (checked, starts)  # a start mid-partition was seen
    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)  # type: ignore[attr-defined]


def _note_starts(module: ModuleType, run: Run, starts: list[tuple[str, int, int, int]]) -> None:
    """Wrap ``Ledger.on_partitions_assigned``: note each partition's checkpoint (the start
    the program chooses; 0, the beginning, without one) and where the journal stood."""
    original = module.Ledger.on_partitions_assigned

    @functools.wraps(original)
    def noting(self: Any, partitions: Any, consumer: Any) -> Any:
        for tp in partitions:
            checkpoint = module.CHECKPOINTS.get((tp.topic, tp.partition), 0)
            starts.append((self.label, tp.partition, checkpoint, len(run.journal)))
        return original(self, partitions, consumer)

    module.Ledger.on_partitions_assigned = noting


# --------------------------------------------------------------------------- 5. subscript receiver


@pytest.mark.parametrize("protocol", confluent_cases())
def test_subscript_receiver_is_subscribed_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """``consumers[topic]`` is passed along to ``subscribe()`` as written: the dict's own
    consumer gets the listener; its assignment's committed-offset seeks and its revocation's
    synchronous commit on the view keep every partition exactly once across the handovers."""
    name = "subscript_receiver_confluent"
    source = migrated_source(name)
    assert "        subscribe(consumers[topic], [topic], RebalanceCallbacks())\n" in source
    assert (
        "            for partition in partitions:\n"
        "                partition.offset = consumer.committed([partition], timeout=10)[0].offset\n"
        "            owned.update(p.partition for p in partitions)\n"
        "            for partition in partitions:\n"
        "                consumer.seek(partition)\n"
    ) in source
    assert (
        "        def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n"
        "            consumer.commit(asynchronous=False)\n"
    ) in source
    module = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what start() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        # each start() defines its own listener class: observe each as it is registered
        listeners = record_registrations(module, "subscribe", lambda li: run.observe(type(li)))

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            owned: set[int] = set()
            consumers = m.program = module.start([topic], conf, owned)
            m.consumer = consumers[topic]
            m.tracked = lambda: set(owned)
            return m.start(lambda stopping: module.serve(consumers, m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="A")

    assert_exactly_once_across_handovers(run, done)
    assert set(listeners) == {id(done.a.consumer), id(done.b.consumer)}  # the items themselves
    assert_callbacks_through_the_view(run, listeners[id(done.a.consumer)])
