"""The migration shapes of test_migrated_shapes_on_broker_6.py and _7.py proven on aiokafka by
running the MIGRATED program on Apache Kafka (the sequel of test_migrated_shapes_on_broker.py to
_7.py, whose migration, observation, stream and handover helpers these reuse; each case's
migrated-line checks and driver, shared with its kafka-python twin in _6.py or _7.py, are in
migrated_shapes_support.py, the client's parts passed in). Each case migrates an aiokafka user
program of the shape (``migrated_programs/*_aiokafka.py``: coroutine callbacks awaiting
``commit``, ``aiokafka.abc.ConsumerRebalanceListener``, ``AIOKafkaConsumer`` started, polled
with ``getmany`` and stopped by the program) with the real codemod (no manual site, no KRB2xx
left, idempotent), checks the migrated lines that matter, imports the result and drives it on
the test broker with the real client, each member in a thread of its own with its own event loop
(as broker_3's and _4's aiokafka cases). aiokafka 0.14 speaks only the eager protocol: each case
runs it with aiokafka's default assignor (round-robin, as every aiokafka case of broker_1 to _4:
``eager``) and with its range assignor (``eager-range``), the split checked to be that
assignor's; the cooperative case is listed and skipped with the reason, as theirs (aiokafka has
no cooperative-sticky assignor, nor KIP-848):

1. ``super()`` callback calls: the listener's coroutine callbacks do their own work (track the
   partitions it owns; on revocation ``await self.consumer.commit(offsets)`` of the offsets the
   loop processed of the revoked partitions, on the consumer it was handed) and then
   ``return super().on_partitions_*(p)`` (aiokafka's base methods are plain no-ops: called,
   not awaited); migrated, the base is rebalance_guard's ``RebalanceListener``, the commit is
   ``await consumer.commit(offsets)`` on the view (the injected consumer goes) and ``super()``
   is handed the view. Every callback the client made ran with the view and reached the base's
   with that same view and partitions (one call each); each partition's offsets are processed
   exactly once across the handovers (B joins, then leaves: rebalance_guard's ``stop()``
   revokes first, aiokafka's own does not), the leaver's last commit the group's offset;
2. ``view_uses`` with a None-tested consumer: a module-global ``consumer = None`` set in the
   coroutine ``main()`` (``global consumer``) before ``consumer.subscribe([topic],
   listener=Listener())``, the revocation's ``if pending and consumer is not None: await
   consumer.commit(pending)``; migrated, the view parameter is ``rebalance_consumer`` (the
   module's ``consumer`` is taken) and both the test and the awaited commit are of the view.
   Each member loads the program separately (its own process: its own global and its own
   ``processed``). The injected variant (``self.consumer``; migrated, the injection goes and the
   test and the commit are of the view, named ``consumer``) runs the same way. Checked, for
   both: every callback got the view; every revocation that had processed offsets of its
   partitions committed exactly those, once, through its own view (the commit's coroutine
   awaited to its end; no revocation without any committed, no commit through any other view);
   every offset processed once, in order, across B's join and leave; the leaver's last commit
   (its ``stop()``'s revocation) is the group's committed offset of its partitions, and covers
   all of them;
3. ``parameter_listeners``: the listener (``StoredOffsets(worker)``) is created by the caller
   and handed to ``connect_kafka_consumer(servers, topic, group_id, rebalance_listener)``, which
   creates the ``AIOKafkaConsumer`` and subscribes with it; migrated, the class derives from
   ``RebalanceListener`` and the function calls ``set_rebalance_listener(consumer,
   rebalance_listener)`` then ``subscribe([topic])``. The worker keeps its offsets outside
   Kafka: the revocation saves the processed positions of the revoked partitions to the store,
   the assignment hands the partitions to the poll loop, which seeks each to its stored
   position. Nothing is committed to Kafka: every offset processed once, in order, the
   leaver's last save (its ``stop()``'s revocation) at its partitions' ends, the store at every
   end; the caller's listener is the one registered, and its callbacks received the view (as
   on kafka-python they do not use it: the codemod cannot hand it to the worker's methods).

The codemod migrated all four programs with no manual site and nothing left to KRB2xx (the
migrated listeners get KRB104, the commit on revoke also running on loss, as the kafka-python
twins); the callbacks' ``set[TopicPartition]`` annotations became ``AbstractSet[...]``
(rebalance_guard.aiokafka's signature; the kafka-python twins keep ``set``), and case 3's
worker methods the callbacks hand them to (``save``, ``take``) were widened with them.

Each check was shown able to fail by breaking the migrated source before it is loaded (the
text replaced in ``load``'s argument by a throwaway pytest plugin under /tmp, nothing
committed; 2026-11-27), ``eager`` and ``eager-range`` both failing (each pair in 9 to 18 s,
the timeouts in about 190 s):

- case 1, ``super().on_partitions_revoked(revoked)`` (the old arity): ``TypeError:
  RebalanceListener.on_partitions_revoked() missing 1 required positional argument:
  'consumer'`` inside the callback, "a callback raised" failed; the same for
  ``on_partitions_assigned`` (the error also reached the member's ``getmany()``: "member A
  raised"); the revocation's ``super()`` call dropped, or the assignment's: the base-reached
  check failed (every revocation, resp. assignment, the client made missing from what the base
  saw); ``super()`` handed ``None`` instead of the view: the same check failed (the base saw
  each revocation with another consumer); the revocation's ``await consumer.commit(offsets)``
  dropped (``pass``): the leaver's-commit check failed (``{1: -1001, 3: -1001}`` against
  ``{1: 77, 3: 77}``; range ``{2: -1001, 3: -1001}`` against 62); the commit not awaited:
  ``NotAwaitedError: commit() on the rebalance view returned a coroutine that
  CommittingListener.on_partitions_revoked() never awaited`` handed to ``getmany()``, "member A
  raised"; the program's ``await consumer.stop()`` bypassing the registered one (``await
  type(consumer).stop(consumer)``, aiokafka's own, which leaves without revoking): the
  leaver's-commit check failed (the group's offset B's join-time commit, ``{1: 76, 3: 76}``
  against ``{1: 88, 3: 87}``; range 60 against 71); aiokafka's default assignor forced for
  ``eager-range`` (the test's ``assignor()`` answering ``{}``): the split check failed (``{0,
  2}`` not a range split);
- case 2, global, the guard flipped (``rebalance_consumer is None``), the commit dropped
  (``pass``) or the view replaced by None before the test (``rebalance_consumer = None``): no
  handover commit, the leaver's-commit check failed (``{0: -1001, 2: -1001}`` against ``{0: 75,
  2: 75}``, 76 or 86; range ``{0: -1001, 1: -1001}`` against 63 or 64); the same three on the
  injected variant (``consumer is None``, ``pass``, ``consumer = None``): the same check failed
  (-1001 against 74 to 85; range 59 to 64); global, the commit made on the module's raw consumer instead of the view
  (``await consumer.commit(pending)``): exactly-once and the leaver's commit held, the
  through-the-view commit check failed (a revocation holding ``{0: 64, 1: 64, 2: 64, 3: 64}``
  committed nothing through its view); one partition of ``pending`` left out of the commit:
  the leaver's-commit check failed (``{1: 74, 3: 84}`` against ``{1: 84, 3: 84}``; range ``{0:
  -1001, 1: 63}`` against ``{0: 64, 1: 63}``); the commit not awaited (global and injected):
  ``NotAwaitedError`` from ``getmany()``, "member A raised"; the guarded commit run only once
  the member is stopping (``and STOPPING.is_set()``, ``STOPPING = stopping`` in ``main()``):
  the exactly-once check failed (343 messages processed twice; range 243); the callbacks
  handed a forwarding object instead of the view (a ``Listener`` subclass registered whose
  callbacks await the base's with ``Fwd(view)``, whose ``commit`` forwards to the view):
  exactly-once held, the callbacks-got-the-view check failed (every call's consumer a
  ``Fwd``);
- case 3, the revocation no longer writing the store (``self.positions.pop(tp)`` only): the
  leaver's-save check failed (-1, nothing stored, against 78; range 63); the assignment no
  longer handing the partitions to the loop (``self.unstarted |= ...`` dropped): the new owner
  started where aiokafka put it, the exactly-once check failed (309 messages processed twice;
  range 251); the loop starting a stored partition one past its stored position: one message
  per handover skipped (timed out waiting for all 353 / 308 messages processed); the
  ``set_rebalance_listener(consumer, rebalance_listener)`` line dropped: no callback ran (timed
  out waiting for A and B to share the topic); another ``StoredOffsets`` registered in place
  of the caller's: the caller's-listener check failed.
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.structs import TopicPartition
from rebalance_guard.aiokafka import RebalanceListener

from tests.integration.aiokafka_support import make_consumer
from tests.integration.broker import Broker
from tests.integration.migrated_shapes_support import (
    AIOKAFKA,
    GuardedProgram,
    Split,
    guarded_commit_on_the_broker,
    migrated_none_tested_global,
    migrated_none_tested_injected,
    migrated_parameter_listener,
    migrated_super_callbacks,
    stored_offsets_on_the_broker,
    super_calls_on_the_broker,
)
from tests.integration.test_migrated_shapes_on_broker import (
    Member,
    load,
    protocols,
)

#: aiokafka's eager protocol with its default assignor (round-robin) and with the range one;
#: cooperative listed and skipped with the reason, as broker_1 to _4's aiokafka cases
PROTOCOLS = ["eager", "eager-range", *protocols("aiokafka")[1:]]


def assignor(protocol: str) -> dict[str, Any]:
    """The consumer settings of ``protocol`` (aiokafka's default assignor for ``eager``)."""
    if protocol == "eager-range":
        return {"partition_assignment_strategy": (RangePartitionAssignor,)}
    assert protocol == "eager", protocol
    return {}


#: the leaver's partitions once A and B share the topic, by assignor (which member gets which
#: half depends on the member ids the broker hands out)
SPLITS = {"eager": ({0, 2}, {1, 3}), "eager-range": ({0, 1}, {2, 3})}


def assert_split_by(protocol: str, leaver_owned: set[int]) -> None:
    """The group was split by the assignor asked for (round-robin or range)."""
    assert leaver_owned in SPLITS[protocol], (protocol, leaver_owned)


def split_by(protocol: str) -> Split:
    """The drivers' split check of ``protocol``: ``assert_split_by``."""
    return functools.partial(assert_split_by, protocol)


def aiokafka_consumer(broker: Broker, group: str, protocol: str) -> Any:
    """broker_1's aiokafka consumer (short group timeouts, manual commits) with the assignor."""
    return make_consumer(broker.bootstrap, group, **assignor(protocol))


def aiokafka_factory(
    protocol: str, on_create: Callable[[Any], None] = lambda consumer: None
) -> Any:
    """What the program's ``AIOKafkaConsumer(...)`` creates: the test's aiokafka consumer (short
    group timeouts, the assignor) with the program's own settings; ``on_create`` sees each."""

    def create(**config: Any) -> Any:
        consumer = make_consumer(
            config["bootstrap_servers"], config["group_id"], **config, **assignor(protocol)
        )
        on_create(consumer)
        return consumer

    return create


# --------------------------------------------------------------------------- 1. super() calls


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_super_callback_calls_get_the_view_on_aiokafka(
    broker: Broker, protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every coroutine callback ran with the view and handed that view to the base's through
    ``super()``; the revocation's awaited commit on the view keeps every partition exactly
    once."""
    name = "super_callbacks_aiokafka"
    source = migrated_super_callbacks("aiokafka")
    module: Any = load(source, tmp_path, name)
    assert module.RebalanceListener is RebalanceListener

    def start(m: Member, topic: str, group: str) -> Member:
        async def body(stopping: asyncio.Event) -> None:
            m.consumer = aiokafka_consumer(broker, group, protocol)
            await module.consume(m.consumer, topic, m.handle, stopping)

        return m.start_async(body)

    super_calls_on_the_broker(
        broker, monkeypatch, module, RebalanceListener, start, split_by(protocol)
    )


# --------------------------------------------------------------------------- 2. None-tested consumers


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_none_tested_global_consumer_becomes_the_view_on_aiokafka(
    broker: Broker, protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The revocation's None-tested, awaited commit of the module's consumer runs on the view
    whenever it has processed offsets to commit, and that commit alone keeps every partition
    exactly once; each member's global is the consumer it created."""
    name = "none_tested_global_aiokafka"
    source = migrated_none_tested_global("aiokafka")

    def start(module: Any, m: Member, topic: str, group: str) -> Member:
        module.AIOKafkaConsumer = aiokafka_factory(protocol, lambda c: setattr(m, "consumer", c))
        return m.start_async(
            lambda stopping: module.main(broker.bootstrap, topic, group, m.handle, stopping)
        )

    program = GuardedProgram(name, source, start, lambda module, listener: module.processed)
    modules, members = guarded_commit_on_the_broker(
        broker, tmp_path, monkeypatch, program, AIOKAFKA, split_by(protocol)
    )
    # each member's global is the consumer it created: one per member, not shared
    for label, m in members.items():
        assert modules[label].consumer is m.consumer, label
    assert modules["A"].consumer is not modules["B"].consumer


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_none_tested_injected_consumer_becomes_the_view_on_aiokafka(
    broker: Broker, protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with the consumer injected as ``self.consumer``: the injection goes, the test
    and the awaited commit are of the view (named ``consumer``: the parameter is free)."""
    name = "none_tested_injected_aiokafka"
    source = migrated_none_tested_injected("aiokafka")

    def start(module: Any, m: Member, topic: str, group: str) -> Member:
        async def body(stopping: asyncio.Event) -> None:
            m.consumer = aiokafka_consumer(broker, group, protocol)
            await module.consume(m.consumer, topic, m.handle, stopping)

        return m.start_async(body)

    program = GuardedProgram(name, source, start, lambda module, listener: listener.processed)
    guarded_commit_on_the_broker(
        broker, tmp_path, monkeypatch, program, AIOKAFKA, split_by(protocol)
    )


# --------------------------------------------------------------------------- 3. parameter_listeners


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_listener_handed_to_the_subscribing_function_on_aiokafka(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The caller's listener is the one registered, its callbacks get the view, and its save
    on revocation and hand-over on assignment keep every partition exactly once with nothing
    committed to Kafka."""
    name = "parameter_listener_aiokafka"
    source = migrated_parameter_listener("aiokafka")
    module: Any = load(source, tmp_path, name)
    module.AIOKafkaConsumer = aiokafka_factory(protocol)  # what connect_kafka_consumer() creates

    def start(m: Member, make_worker: Callable[[], Any]) -> Member:
        async def body(stopping: asyncio.Event) -> None:
            # aiokafka's consumer needs the member's event loop: the worker is made in it
            worker = make_worker()
            await worker.run(m.handle, stopping)

        return m.start_async(body)

    stored_offsets_on_the_broker(
        broker, module, RebalanceListener, TopicPartition, start, split_by(protocol)
    )
