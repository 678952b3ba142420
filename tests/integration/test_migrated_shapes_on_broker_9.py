"""Chained listeners proven by running the MIGRATED program on Apache Kafka (the sequel of
test_migrated_shapes_on_broker.py to _8.py, whose migration, observation, stream and handover
helpers this reuses; the shape: tests/codemods/test_chained_listeners.py, the runtime's choice:
tests/stubs/test_chain_callback.py).

The program (``migrated_programs/chained_listener_{kafka_python,aiokafka}.py``) is a consumer
wrapper as a framework writes it: ``consume(consumer, topic, handle, stopping,
rebalance_listener)`` registers ``TrackingListener(rebalance_listener)`` with
``subscribe([topic], listener=...)``; the wrapper's callbacks keep its own bookkeeping (the
partitions the member owns, the number of changes) and then chain to the user's listener,
``self.inner.on_partitions_*(partitions)`` (awaited on aiokafka). It is migrated with the real
codemod (no manual site, no KRB2xx left, idempotent): the wrapper derives from rebalance_guard's
``RebalanceListener``, its callbacks take the view, each chained call becomes
``chain_callback(self.inner, "on_partitions_*", partitions, consumer)`` and the registration
``set_rebalance_listener(consumer, TrackingListener(rebalance_listener))`` then
``subscribe([topic])``; the migrated lines are checked verbatim. The result is imported and
driven on the test broker with the real client, chained to one of two user listeners (the
user's own code, in this module: a user listener in the program's file would be a class the
wrapper chains to, which the codemod reports as a manual site by design, REASONS of
test_chained_listeners.py):

(a) ``client``: a legacy client listener (kafka-python's ``ConsumerRebalanceListener``, aiokafka's
    ``aiokafka.abc.ConsumerRebalanceListener``) injected with the raw consumer, whose revocation
    commits the offsets the member processed of the revoked partitions on that consumer
    (awaited on aiokafka); chain_callback must call it with the partitions alone (its methods
    take one argument: anything more is a ``TypeError`` inside the wrapper's callback);
(b) ``guard``: a rebalance_guard ``RebalanceListener`` the user wrote in the new style
    (``on_partitions_revoked(self, revoked, consumer)``), committing them through the view it
    receives; chain_callback must hand it the wrapper's own view.

Auto-commit is off and neither the wrapper nor the loop commits: the user's listener's commit
on revocation, reached only through the chained call, is what keeps a handover exactly-once.
Checked for each: every callback the client made on the wrapper ran with the view, and did its
bookkeeping (its change count is the number of those callbacks); the inner listener received
exactly one call per wrapper callback, of the same name and partitions, and with nothing more
(a) or with the wrapper's view, the same object (b); A's inner listener and B's both committed on
a handover; every offset processed once, in order, across member B's join and B's leave; the
leaver's last commit (its close's revocation, chained) is the group's committed offset of its
partitions and covers all of them. kafka-python runs eager and cooperative-sticky (as broker_6
and _7: kafka-python has no KIP-848, 2.x no cooperative); aiokafka eager with its default
(round-robin) and its range assignor (as broker_8: the split checked to be that assignor's),
cooperative listed and skipped with the reason.

Each check was shown able to fail, by breaking the migrated source before it is loaded (the text
replaced in ``load``'s argument) or chain_callback's choice (``rebalance_guard.chain_callback``
replaced before the program imports it), both by a throwaway pytest plugin under /tmp, nothing
committed (2026-11-27); every case named failed, each run of the 8 in 26 to 43 s:

- chain_callback always handing the view (``method(partitions, consumer)``): every ``client``
  case failed, ``TypeError: KafkaPythonClientInner.on_partitions_revoked() takes 2 positional
  arguments but 3 were given`` (``AIOKafkaClientInner`` on aiokafka) inside the wrapper's
  callback, "a callback raised" (cooperative: the member's ``poll()`` raised ``KafkaError: User
  rebalance callback throws an error``, "member A raised"); the ``guard`` cases passed;
- chain_callback never handing it (``method(partitions)``), or its ``_is_guard_listener``
  answering False: every ``guard`` case failed, ``TypeError:
  KafkaPythonGuardInner.on_partitions_revoked() missing 1 required positional argument:
  'consumer'`` (``AIOKafkaGuardInner``), "a callback raised" / "member A raised"; the ``client``
  cases passed;
- chain_callback handing a rebalance_guard listener a forwarding object instead of the view
  (its ``commit`` forwarding to the view): the commits landed and exactly-once held, every
  ``guard`` case failed the chained-call check (the inner's view not the wrapper's: the
  Counters differ in the view's id);
- in the migrated source, the revocation's chained call written as a plain two-argument call
  (``self.inner.on_partitions_revoked(revoked, consumer)``): every ``client`` case failed with
  the ``TypeError`` above; as the un-migrated one-argument call
  (``self.inner.on_partitions_revoked(revoked)``, and the same for the assignment's): every
  ``guard`` case failed with the missing-``consumer`` ``TypeError``; the view replaced by
  ``None`` in the chained revocation: every ``guard`` case failed, ``AttributeError: 'NoneType'
  object has no attribute 'commit'``, "member A raised" (the ``client`` cases passed: their
  listener never sees the view);
- the chained revocation dropped (``pass``), or the wrapper registered without the user's
  listener (``TrackingListener(None)``): every case failed the leaver's-commit check (e.g.
  ``{2: -1001, 3: -1001}`` against ``{2: 79, 3: 79}``; aiokafka range ``{0: -1001, 1: -1001}``
  against 64); only the first member's first revocation with partitions (B's join) left
  unchained: every case failed the exactly-once check (kafka-python 128 to 143 messages
  processed twice, aiokafka 254 to 258: its eager reassignment restarts every partition at the
  group's offset);
- the chained revocation made twice, or the assignment chained as ``"on_partitions_revoked"``:
  every case failed the chained-call check (the Counters differ);
- the wrapper's bookkeeping dropped from the revocation (``self.changes += 1``): every case failed
  the bookkeeping check (``('A', 3)``: 3 against 7 callbacks; cooperative 2 against 4);
- the wrapper registered as a subclass whose callbacks call TrackingListener's with a
  forwarding object instead of the view: every case failed the callbacks-got-the-view check
  (every call's consumer a ``Fwd``).
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiokafka.abc
import kafka
import pytest
from kafka.structs import OffsetAndMetadata
from rebalance_guard import aiokafka as guard_aiokafka
from rebalance_guard import kafka_python as guard_kafka_python
from rebalance_guard._view import ExpiringView

from tests.integration.broker import Broker
from tests.integration.migrated_shapes_support import owned_by_registered
from tests.integration.test_migrated_shapes_on_broker import (
    PARTITIONS,
    Member,
    Run,
    Stream,
    kafka_python_consumer,
    load,
    migrated_source,
    protocols,
    scenario,
)
from tests.integration.test_migrated_shapes_on_broker_2 import (
    assert_callbacks_through_the_view,
    assert_exactly_once_across_handovers,
    join_share_leave,
    record_registrations,
)
from tests.integration.test_migrated_shapes_on_broker_8 import (
    PROTOCOLS as AIOKAFKA_PROTOCOLS,
)
from tests.integration.test_migrated_shapes_on_broker_8 import (
    aiokafka_consumer,
    assert_split_by,
)

INNERS = ("client", "guard")
Handle = Callable[[Any], None]

# --------------------------------------------------------------------------- the user's listeners


@dataclass
class Inner:
    """What the user's listeners saw, from every member."""

    #: every call: (listener, callback, partitions, the view it was handed or None)
    calls: list[tuple[Any, str, frozenset[int], Any]] = field(default_factory=list)
    #: every commit that returned: (listener, {partition: offset})
    commits: list[tuple[Any, dict[int, int]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self, listener: Any, name: str, partitions: Any, view: Any = None) -> None:
        with self.lock:
            self.calls.append((listener, name, frozenset(tp.partition for tp in partitions), view))

    def committed(self, listener: Any, offsets: dict[Any, Any]) -> None:
        by_partition = {
            tp.partition: (o if isinstance(o, int) else o.offset) for tp, o in offsets.items()
        }
        with self.lock:
            self.commits.append((listener, by_partition))


def pending(processed: dict[Any, int], revoked: Any) -> dict[Any, int]:
    """The processed offsets of the revoked partitions, taken out of ``processed``."""
    return {tp: processed.pop(tp) for tp in revoked if tp in processed}


class KafkaPythonClientInner(kafka.ConsumerRebalanceListener):  # type: ignore[misc]
    """(a) on kafka-python: injected with the raw consumer, one-argument callbacks."""

    def __init__(self, consumer: Any, processed: dict[Any, int], seen: Inner) -> None:
        self.consumer, self.processed, self.seen = consumer, processed, seen

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.seen.call(self, "on_partitions_revoked", revoked)
        offsets = {
            tp: OffsetAndMetadata(o, "", -1) for tp, o in pending(self.processed, revoked).items()
        }
        if offsets:
            self.consumer.commit(offsets)
            self.seen.committed(self, offsets)

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.seen.call(self, "on_partitions_assigned", assigned)


class KafkaPythonGuardInner(guard_kafka_python.RebalanceListener):
    """(b) on kafka-python: rebalance_guard's listener, committing through its view."""

    def __init__(self, consumer: Any, processed: dict[Any, int], seen: Inner) -> None:
        self.processed, self.seen = processed, seen  # the consumer it needs is the view

    def on_partitions_revoked(self, revoked: Any, consumer: Any) -> None:
        self.seen.call(self, "on_partitions_revoked", revoked, consumer)
        offsets = {
            tp: OffsetAndMetadata(o, "", -1) for tp, o in pending(self.processed, revoked).items()
        }
        if offsets:
            consumer.commit(offsets)
            self.seen.committed(self, offsets)

    def on_partitions_assigned(self, assigned: Any, consumer: Any) -> None:
        self.seen.call(self, "on_partitions_assigned", assigned, consumer)


class AIOKafkaClientInner(aiokafka.abc.ConsumerRebalanceListener):  # type: ignore[misc]
    """(a) on aiokafka: injected with the raw consumer, one-argument coroutine callbacks."""

    def __init__(self, consumer: Any, processed: dict[Any, int], seen: Inner) -> None:
        self.consumer, self.processed, self.seen = consumer, processed, seen

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self.seen.call(self, "on_partitions_revoked", revoked)
        offsets = pending(self.processed, revoked)
        if offsets:
            await self.consumer.commit(offsets)
            self.seen.committed(self, offsets)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.seen.call(self, "on_partitions_assigned", assigned)


class AIOKafkaGuardInner(guard_aiokafka.RebalanceListener):
    """(b) on aiokafka: rebalance_guard's listener, committing through its view (awaited)."""

    def __init__(self, consumer: Any, processed: dict[Any, int], seen: Inner) -> None:
        self.processed, self.seen = processed, seen

    async def on_partitions_revoked(self, revoked: Any, consumer: Any) -> None:
        self.seen.call(self, "on_partitions_revoked", revoked, consumer)
        offsets = pending(self.processed, revoked)
        if offsets:
            await consumer.commit(offsets)
            self.seen.committed(self, offsets)

    async def on_partitions_assigned(self, assigned: Any, consumer: Any) -> None:
        self.seen.call(self, "on_partitions_assigned", assigned, consumer)


INNER_CLASSES: dict[tuple[str, str], type] = {
    ("kafka_python", "client"): KafkaPythonClientInner,
    ("kafka_python", "guard"): KafkaPythonGuardInner,
    ("aiokafka", "client"): AIOKafkaClientInner,
    ("aiokafka", "guard"): AIOKafkaGuardInner,
}


# --------------------------------------------------------------------------- migration


def migrated_wrapper(client: str) -> str:
    """The program migrated, its wrapper's lines checked verbatim."""
    source = migrated_source(f"chained_listener_{client}")
    async_, await_, partitions = (
        ("async ", "await ", "AbstractSet[TopicPartition]")
        if client == "aiokafka"
        else ("", "", "set[TopicPartition]")
    )
    assert (
        "from rebalance_guard import chain_callback\n"
        f"from rebalance_guard.{client} import RebalanceConsumer, RebalanceListener, set_rebalance_listener\n"
    ) in source
    assert "class TrackingListener(RebalanceListener):\n" in source
    for callback, name, change in (
        ("on_partitions_revoked", "revoked", "-="),
        ("on_partitions_assigned", "assigned", "|="),
    ):
        assert (
            f"    {async_}def {callback}(self, {name}: {partitions}, consumer: RebalanceConsumer) -> None:\n"
            f"        self.owned {change} set({name})\n"
            "        self.changes += 1\n"
        ) in source, callback
        assert (
            "        if self.inner is not None:\n"
            f'            {await_}chain_callback(self.inner, "{callback}", {name}, consumer)\n'
        ) in source, callback
    code = source.partition('"""\n')[2]  # after the module docstring
    assert ".inner.on_partitions" not in code  # every chained call goes through chain_callback
    assert (
        "    set_rebalance_listener(consumer, TrackingListener(rebalance_listener))\n"
        "    consumer.subscribe([topic])\n"
    ) in source
    return source


# --------------------------------------------------------------------------- the cases


def _cases(protocol_list: list[Any]) -> list[Any]:
    """Each inner listener with each protocol (a skipped protocol's cases skipped alike)."""
    cases = []
    for protocol in protocol_list:
        value, marks = (
            (protocol, []) if isinstance(protocol, str) else (protocol.values[0], protocol.marks)
        )
        for inner in INNERS:
            cases.append(pytest.param(inner, value, id=f"{inner}-{value}", marks=list(marks)))
    return cases


@pytest.mark.kafka_python
@pytest.mark.parametrize(("inner", "protocol"), _cases(protocols("kafka_python")))
def test_chained_listener_on_kafka_python(
    broker: Broker, inner: str, protocol: str, tmp_path: Path
) -> None:
    """The wrapper's callbacks get the view and hand the user's listener what it takes: the
    partitions alone to kafka-python's listener, the same view to rebalance_guard's; the
    user's commit on revocation keeps every partition exactly once."""
    module: Any = load(migrated_wrapper("kafka_python"), tmp_path, "chained_listener_kafka_python")
    assert module.RebalanceListener is guard_kafka_python.RebalanceListener

    def start(
        m: Member, topic: str, group: str, user: Callable[[Any], Any], handle: Handle
    ) -> Member:
        m.consumer = kafka_python_consumer(broker, group, protocol)
        listener = user(m.consumer)
        return m.start(
            lambda stopping: module.consume(m.consumer, topic, handle, stopping, listener)
        )

    chained_on_the_broker(broker, "kafka_python", inner, module, start, kafka.TopicPartition)


@pytest.mark.parametrize(("inner", "protocol"), _cases(AIOKAFKA_PROTOCOLS))
def test_chained_listener_on_aiokafka(
    broker: Broker, inner: str, protocol: str, tmp_path: Path
) -> None:
    """The same on aiokafka: the wrapper's coroutine callbacks await chain_callback, which
    hands aiokafka's listener the partitions alone and rebalance_guard's the same view; the
    user's awaited commit on revocation keeps every partition exactly once."""
    module: Any = load(migrated_wrapper("aiokafka"), tmp_path, "chained_listener_aiokafka")
    assert module.RebalanceListener is guard_aiokafka.RebalanceListener

    def start(
        m: Member, topic: str, group: str, user: Callable[[Any], Any], handle: Handle
    ) -> Member:
        async def body(stopping: asyncio.Event) -> None:
            m.consumer = aiokafka_consumer(broker, group, protocol)
            await module.consume(m.consumer, topic, handle, stopping, user(m.consumer))

        return m.start_async(body)

    done = chained_on_the_broker(broker, "aiokafka", inner, module, start, aiokafka.TopicPartition)
    assert_split_by(protocol, done.leaver_owned)


def chained_on_the_broker(
    broker: Broker,
    client: str,
    inner: str,
    module: Any,
    start: Callable[[Member, str, str, Callable[[Any], Any], Handle], Member],
    topic_partition: Callable[[str, int], Any],
) -> Any:
    """A joins, B joins and leaves, each running ``module.consume`` (started by ``start(member,
    topic, group, the user's listener made from the consumer, handle)``) chained to its own user listener of
    kind ``inner``; checks the view, the chained calls, the commits, exactly-once and the
    leaver's commit. Returns the handover."""
    inner_class = INNER_CLASSES[client, inner]
    seen = Inner()
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    #: each member's user listener, by label
    users: dict[str, Any] = {}

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.TrackingListener)
        listeners = record_registrations(module, "set_rebalance_listener")

        def member(label: str) -> Member:
            m = Member(run, label)
            #: the next offset to process of each partition, as far as the member got
            processed: dict[Any, int] = {}

            def handle(record: Any) -> None:
                m.handle(record)
                processed[topic_partition(record.topic, record.partition)] = record.offset + 1

            def user_listener(consumer: Any) -> Any:
                users[label] = inner_class(consumer, processed, seen)
                return users[label]

            m.tracked = owned_by_registered(listeners, m)
            return start(m, topic, group, user_listener, handle)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")

    wrappers = {label: listeners[id(m.consumer)] for label, m in (("A", done.a), ("B", done.b))}
    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, wrappers["A"])
    assert {type(c.listener) for c in run.calls} == {module.TrackingListener}
    for label, wrapper in wrappers.items():
        # the member's wrapper was handed its user's listener and kept its bookkeeping
        assert type(wrapper) is module.TrackingListener, label
        assert wrapper.inner is users[label], label
        assert wrapper.changes == len(run.of(wrapper)) > 0, (label, wrapper.changes)
    assert_chained(run, seen, inner)
    # both user listeners committed on a handover, and the leaver's last commit (its close's
    # revocation) is the group's offset of every partition it owned
    for label in ("A", "B"):
        assert any(li is users[label] for li, _ in seen.commits), (label, seen.commits)
    last = [offsets for li, offsets in seen.commits if li is users["B"]][-1]
    assert set(last) == done.leaver_owned, (last, done.leaver_owned)
    assert last == {p: done.at_leave[p] for p in last}
    return done


def assert_chained(run: Run, seen: Inner, inner: str) -> None:
    """Each callback the client made on a wrapper reached the wrapper's user listener once,
    with its name and partitions, and with what chain_callback gives that listener: nothing
    more for the client's (a), the wrapper's own view for rebalance_guard's (b)."""
    made = Counter(
        (id(c.listener.inner), c.name, c.partitions, id(c.consumer) if inner == "guard" else None)
        for c in run.calls
    )
    reached = Counter(
        (id(li), name, parts, None if view is None else id(view))
        for li, name, parts, view in seen.calls
    )
    assert reached == made, (seen.calls, run.calls)
    assert {name for _, name, _, _ in seen.calls} == {
        "on_partitions_assigned",
        "on_partitions_revoked",
    }
    if inner == "guard":
        assert all(isinstance(view, ExpiringView) for _, _, _, view in seen.calls), seen.calls
    else:
        assert all(view is None for _, _, _, view in seen.calls), seen.calls
