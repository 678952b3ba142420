"""Migration shapes proven by running the MIGRATED program on Apache Kafka with the real client.

The codemod tests show what ``rebalance-guard migrate`` writes for a shape; these run it. Each
case takes a small user program of that shape (``tests/integration/migrated_programs/``),
migrates it with the codemod's API (``migrate_source``, as tests/codemods do), checks it
migrated (no manual site left but the ones the shape reports by design), imports the migrated
module from a temporary directory and drives it on the test broker:

1. ``listener_bases``: a mixin listener ``SubscribeCommand(AbstractCommand,
   ConsumerRebalanceListener)`` registering ``listener=self`` (kafka-python, aiokafka);
2. ``optional_listeners``: ``listener = None`` bound to the one creation under an ``if`` and
   registered with ``listener=listener``; without the hook ``set_rebalance_listener(c, None)``
   must drop a listener registered before (kafka-python);
3. ``direct_callback_calls`` with a kept injected consumer: the listener keeps
   ``self.consumer`` for its own polling and calls ``self.on_partitions_revoked(...)`` on
   shutdown, migrated to pass ``consumer=self.consumer`` (aiokafka and kafka-python; the
   kafka-python codemod case is here too);
4. ``assign_at_times`` on confluent's ``AIOConsumer``: the raw recipe and its migrated twin
   start at the same offsets.

For 1-3 a producer writes numbered messages throughout; member A processes, member B joins
mid-stream, later one of them leaves. What a user cares about is asserted: the callbacks run
with the view (a rebalance_guard view object, never the client), each listener's own idea of
its partitions is the consumer's assignment once the group is stable, every partition's
offsets are processed in order exactly once across every handover (the revocation's commit
landed: the next owner continues right after the last processed offset), the leaver's final
commit is the group's committed offset, and nothing raised (program threads, callbacks, the
client). kafka-python runs eager and cooperative (kafka-python 3); aiokafka has only eager.
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import asyncio
import functools
import importlib.util
import inspect
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import KafkaError, Producer, TopicPartition
from rebalance_codemods.api import migrate_source
from rebalance_guard._view import ExpiringView
from rebalance_lint import check_source

from tests.integration.broker import Broker

PROGRAMS = Path(__file__).parent / "migrated_programs"
PARTITIONS = 4
DEADLINE_S = 90.0
CALLBACKS = ("on_partitions_revoked", "on_partitions_assigned", "on_partitions_lost")
MIGRATION_CODES = ("KRB201", "KRB202", "KRB203")
AIOKAFKA_COOPERATIVE = (
    "aiokafka 0.14 implements only the eager protocol: no cooperative-sticky assignor and no "
    "incremental callbacks (aio-libs/aiokafka#1126)"
)


# --------------------------------------------------------------------------- migration


def migrated_source(name: str, manual: list[str] | None = None) -> str:
    """``migrated_programs/NAME.py`` migrated: the manual notes are exactly ``manual`` (none
    by default), nothing KRB2xx is left, and migrating again changes nothing."""
    before = (PROGRAMS / f"{name}.py").read_bytes()
    result = migrate_source(before, f"{name}.py")
    assert result.status == "ok", result
    assert [m.reason for m in result.manual] == (manual or []), result.manual
    assert result.new_source is not None and result.new_source != before
    after = result.new_source
    left = [f for f in check_source(after, f"{name}.py").findings if f.code in MIGRATION_CODES]
    assert left == [], left
    assert migrate_source(after, f"{name}.py").new_source is None, "not idempotent"
    return after.decode()


def load(source: str, tmp_path: Path, name: str) -> ModuleType:
    """Import ``source`` as a module of its own (the way the user's program would run)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    module_name = f"migrated_{name}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and typing look modules up by name
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- observation


@dataclass
class Call:
    """One call of a listener callback: by the client (through rebalance_guard) or direct."""

    listener: Any
    name: str
    partitions: frozenset[int]
    consumer: Any

    @property
    def through_view(self) -> bool:
        return isinstance(self.consumer, ExpiringView)


@dataclass
class Run:
    """Everything one broker scenario records, from every thread."""

    calls: list[Call] = field(default_factory=list)
    callback_errors: list[BaseException] = field(default_factory=list)
    #: (member, partition, offset, value) in processing order, all members together
    journal: list[tuple[str, int, int, int]] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)

    def observe(self, cls: type) -> None:
        """Record every call of the callbacks ``cls`` defines (after migration each takes
        ``(partitions, consumer)``; a direct call passes the consumer by keyword)."""
        for name in CALLBACKS:
            original = vars(cls).get(name)
            if original is None:
                continue
            if inspect.iscoroutinefunction(original):

                async def wrapper(
                    self: Any,
                    partitions: Any,
                    consumer: Any,
                    _f: Any = original,
                    _n: str = name,
                    _run: Run = self,
                ) -> Any:
                    _run._record(self, _n, partitions, consumer)
                    try:
                        return await _f(self, partitions, consumer)
                    except BaseException as exc:
                        _run.callback_errors.append(exc)
                        raise

            else:

                def wrapper(  # type: ignore[misc]
                    self: Any,
                    partitions: Any,
                    consumer: Any,
                    _f: Any = original,
                    _n: str = name,
                    _run: Run = self,
                ) -> Any:
                    _run._record(self, _n, partitions, consumer)
                    try:
                        return _f(self, partitions, consumer)
                    except BaseException as exc:
                        _run.callback_errors.append(exc)
                        raise

            setattr(cls, name, functools.wraps(original)(wrapper))

    def _record(self, listener: Any, name: str, partitions: Any, consumer: Any) -> None:
        parts = frozenset(tp.partition for tp in partitions)
        self.calls.append(Call(listener, name, parts, consumer))

    def check(self) -> None:
        """Fail now with what went wrong in a member or a callback."""
        for member in self.members:
            if member.error is not None:
                raise AssertionError(f"member {member.name} raised") from member.error
        if self.callback_errors:
            raise AssertionError("a callback raised") from self.callback_errors[0]

    def until(self, condition: Callable[[], bool], what: str, timeout: float = DEADLINE_S) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.check()
            if condition():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(0.05)

    def processed(self, member: str | None = None) -> list[int]:
        return [v for m, _, _, v in list(self.journal) if member is None or m == member]

    def of(self, listener: Any) -> list[Call]:
        return [c for c in list(self.calls) if c.listener is listener]


class Member:
    """One group member: the user's program running in a thread of its own (its own event
    loop for an asyncio program), stopped by setting the event the program polls."""

    def __init__(self, run: Run, name: str) -> None:
        self.run, self.name = run, name
        self.consumer: Any = None
        #: what the program's listener believes it owns (partition numbers)
        self.tracked: Callable[[], set[int] | None] = lambda: None
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._async_stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        run.members.append(self)

    def handle(self, record: Any) -> None:
        self.run.journal.append((self.name, record.partition, record.offset, int(record.value)))

    def start(self, body: Callable[[threading.Event], None]) -> Member:
        self._spawn(lambda: body(self._stop))
        return self

    def start_async(self, body: Callable[[asyncio.Event], Awaitable[None]]) -> Member:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._async_stop = asyncio.Event()
            await body(self._async_stop)

        self._spawn(lambda: asyncio.run(main()))
        return self

    def _spawn(self, target: Callable[[], None]) -> None:
        def guarded() -> None:
            try:
                target()
            except BaseException as exc:
                self.error = exc

        self._thread = threading.Thread(target=guarded, name=f"member-{self.name}", daemon=True)
        self._thread.start()

    def assignment(self) -> set[int] | None:
        try:
            return {tp.partition for tp in self.consumer.assignment()}
        except (RuntimeError, AttributeError):  # not created yet, or read mid-update
            return None

    def stable(self) -> bool:
        """Its listener's idea of its partitions is its consumer's (non-empty) assignment."""
        owned = self.assignment()
        return bool(owned) and self.tracked() == owned

    def stop(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            return
        self._stop.set()
        if self._loop is not None and self._async_stop is not None:
            with suppress(RuntimeError):  # the loop ended: the program stopped itself
                self._loop.call_soon_threadsafe(self._async_stop.set)
        self._thread.join(timeout=60)
        assert not self._thread.is_alive(), f"member {self.name} did not stop within 60 s"


class Stream:
    """Writes numbered messages (``n`` to partition ``n % PARTITIONS``) until stopped."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.sent = 0
        self._args = (bootstrap, topic)
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="stream", daemon=True)

    def _run(self) -> None:
        bootstrap, topic = self._args
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        try:
            while not self._stop.is_set():
                producer.produce(topic, str(self.sent).encode(), partition=self.sent % PARTITIONS)
                self.sent += 1
                producer.poll(0)
                time.sleep(0.005)
            assert producer.flush(30) == 0, "the stream's producer could not deliver"
        except BaseException as exc:
            self._error = exc

    def __enter__(self) -> Stream:
        self._thread.start()
        return self

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(timeout=60)
        if self._error is not None:
            raise self._error
        return self.sent

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


@contextmanager
def scenario() -> Iterator[Run]:
    run = Run()
    try:
        yield run
    finally:
        for member in run.members:
            member.stop()


def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """The group's committed offsets, read without joining the group."""
    reader = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return {tp.partition: tp.offset for tp in reader.committed(parts, timeout=10)}
    finally:
        reader.close()


def split(members: list[Member]) -> bool:
    """Every member stable, their assignments disjoint and covering the topic."""
    owned = [m.assignment() for m in members]
    if not all(m.stable() for m in members) or any(o is None for o in owned):
        return False
    flat = [p for o in owned for p in o or ()]
    return sorted(flat) == list(range(PARTITIONS))


def assert_processed_once_in_order(run: Run, sent: int) -> list[tuple[int, int, str, str]]:
    """Every message processed exactly once, and each partition's offsets processed in order
    with no gap or repeat whoever owned it. Returns the handovers: (partition, first offset
    of the new owner, old owner, new owner)."""
    values = run.processed()
    twice = sorted(v for v, n in Counter(values).items() if n > 1)
    assert not twice, f"{len(twice)} messages processed twice: {twice[:20]}"
    assert sorted(values) == list(range(sent)), f"{sent - len(set(values))} messages missing"
    handovers = []
    for p in range(PARTITIONS):
        rows = [(m, o) for m, q, o, _ in run.journal if q == p]
        offsets = [o for _, o in rows]
        assert offsets == list(range(len(offsets))), f"partition {p} out of order: {rows}"
        for (old, _), (new, offset) in pairwise(rows):
            if old != new:
                handovers.append((p, offset, old, new))
    return handovers


def kafka_python_resets_retained_positions() -> bool:
    """kafka-python 2.x's ``assign_from_subscribed`` gives every partition of a new assignment
    a fresh state (position from the committed offset); kafka-python 3 keeps the state of the
    partitions a member keeps."""
    import kafka

    return str(kafka.__version__).startswith("2.")


def drop_restart_at_committed(
    run: Run, member: str, partitions: set[int], committed_at: dict[int, int]
) -> None:
    """Remove from ``run.journal`` ``member``'s second processing of ``partitions`` after an
    eager rebalance restarted each at its committed offset: per partition, a repeat must start
    exactly at ``committed_at[p]``, be ``member``'s, and continue in order up to where it had
    been (anything else stays and fails the exactly-once check)."""
    keep: list[tuple[str, int, int, int]] = []
    reached: dict[int, int] = {}
    expected: dict[int, int] = {}  # partition -> next repeated offset while replaying
    for row in run.journal:
        who, p, offset, _ = row
        if p in partitions and who == member and offset < reached.get(p, 0):
            if expected.get(p, committed_at.get(p)) == offset:
                expected[p] = offset + 1
                continue  # the restart's replay
        else:
            expected.pop(p, None)
        reached[p] = max(reached.get(p, 0), offset + 1)
        keep.append(row)
    run.journal[:] = keep


def first_with_partitions(calls: list[Call]) -> tuple[str, frozenset[int]]:
    """The first callback given partitions (an eager join may revoke nothing first)."""
    call = next(c for c in calls if c.partitions)
    return call.name, call.partitions


def end_offsets(run: Run) -> dict[int, int]:
    ends = dict.fromkeys(range(PARTITIONS), 0)
    for _, p, o, _ in run.journal:
        ends[p] = max(ends[p], o + 1)
    return ends


def protocols(client: str) -> list[Any]:
    """eager and cooperative, the latter skipped with the reason where the client lacks it."""
    if client == "aiokafka":
        return [
            "eager",
            pytest.param("cooperative", marks=pytest.mark.skip(reason=AIOKAFKA_COOPERATIVE)),
        ]
    from tests.integration.kafka_python_support import COOPERATIVE_REASON, KP3

    cooperative = pytest.param(
        "cooperative", marks=pytest.mark.skipif(not KP3, reason=COOPERATIVE_REASON)
    )
    return ["eager", cooperative]


def kafka_python_consumer(broker: Broker, group: str, protocol: str) -> Any:
    from tests.integration.kafka_python_support import make_consumer

    return make_consumer(broker.bootstrap, group, protocol)


def aiokafka_consumer(broker: Broker, group: str) -> Any:
    from tests.integration.aiokafka_support import make_consumer

    return make_consumer(broker.bootstrap, group)


CLIENTS = ("kafka_python", "aiokafka")


def _cases(clients: tuple[str, ...] = CLIENTS) -> list[Any]:
    cases = []
    for client in clients:
        marks = [pytest.mark.kafka_python] if client == "kafka_python" else []
        for protocol in protocols(client):
            value, extra = (
                (protocol, [])
                if isinstance(protocol, str)
                else (protocol.values[0], list(protocol.marks))
            )
            cases.append(
                pytest.param(client, value, id=f"{client}-{value}", marks=[*marks, *extra])
            )
    return cases


# --------------------------------------------------------------------------- 1. listener_bases


@pytest.mark.parametrize(("client", "protocol"), _cases())
def test_listener_bases_mixin_command_on_the_broker(
    broker: Broker, client: str, protocol: str, tmp_path: Path
) -> None:
    """A command that is its own listener: A processes, B joins mid-stream and takes some
    partitions over right after A's last processed offset (A's revocation committed through
    the view), B leaves (its close revokes and commits) and A continues after B's last."""
    name = f"subscribe_command_{client}"
    source = migrated_source(name)
    assert "class SubscribeCommand(AbstractCommand, RebalanceListener):" in source
    assert "set_rebalance_listener(self.consumer, self)" in source
    module = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.SubscribeCommand)
        commands: dict[str, Any] = {}

        def member(label: str) -> Member:
            m = Member(run, label)
            m.tracked = lambda: (
                {tp.partition for tp in set(commands[label].owned)} if label in commands else None
            )
            if client == "kafka_python":
                m.consumer = kafka_python_consumer(broker, group, protocol)
                commands[label] = module.SubscribeCommand(m.consumer, m.handle)
                return m.start(lambda stopping: commands[label].execute([topic], stopping))

            async def body(stopping: asyncio.Event) -> None:
                m.consumer = aiokafka_consumer(broker, group)
                commands[label] = module.SubscribeCommand(m.consumer, m.handle)
                await commands[label].execute([topic], stopping)

            return m.start_async(body)

        a = member("A")
        run.until(lambda: len(run.processed("A")) >= 60, "A to process a first stretch")
        b = member("B")
        run.until(
            lambda: split([a, b]) and len(run.processed("B")) >= 20, "A and B to share the topic"
        )
        sent = stream.stop()
        run.until(lambda: len(set(run.processed())) >= sent, f"all {sent} messages processed")
        b_owned = b.assignment() or set()
        b.stop()
        ends = end_offsets(run)
        at_leave = committed(broker.bootstrap, group, topic)
        run.until(
            lambda: a.stable() and a.assignment() == set(range(PARTITIONS)),
            "A to own every partition again",
        )
        time.sleep(1.0)  # let A poll: anything it would process twice arrives now
        a.stop()
        run.check()

    # B's close revoked its partitions and its commit of them landed
    assert b_owned, "the leaver owned partitions"
    assert {p: at_leave[p] for p in b_owned} == {p: ends[p] for p in b_owned}
    handovers = assert_processed_once_in_order(run, sent)
    assert any(old == "A" and new == "B" for _, _, old, new in handovers), handovers
    assert sent > 100  # the stream ran throughout the rebalances
    a_calls, b_calls = run.of(commands["A"]), run.of(commands["B"])
    assert first_with_partitions(a_calls) == (
        "on_partitions_assigned",
        frozenset(range(PARTITIONS)),
    )
    assert any(c.name == "on_partitions_revoked" and c.partitions for c in a_calls), a_calls
    assert any(c.name == "on_partitions_revoked" and c.partitions for c in b_calls), b_calls
    assert all(c.through_view for c in run.calls), [type(c.consumer) for c in run.calls]
    for label in ("A", "B"):  # the command base still answers its client
        sent_messages = [r["message"] for r in commands[label].sent]
        assert {"Subscription started!", "assigned", "revoked"} <= set(sent_messages)


# --------------------------------------------------------------------------- 2. optional_listeners


class Spy:
    """A listener registered before the program's own registration, which must drop it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        self.calls.append("revoked")

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        self.calls.append("assigned")


@pytest.mark.kafka_python
@pytest.mark.parametrize("protocol", protocols("kafka_python"))
def test_optional_listener_bound_or_none_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """A follows its partitions (the listener created and registered); B passes no hook, so
    ``set_rebalance_listener(consumer, None)`` drops the listener B had registered before.
    B joins mid-stream and continues right after A's last offsets (A's revocation commit);
    then A leaves (its close revokes and commits) and B continues after A's last again."""
    from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

    name = "optional_tracker_kafka_python"
    source = migrated_source(name)
    assert (
        "        listener = OwnedPartitions(on_owned)\n    set_rebalance_listener(consumer, listener)\n    consumer.subscribe([topic])\n"
        in source
    )
    module = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    spy_class = type("SpyListener", (Spy, RebalanceListener), {})
    spy = spy_class()
    seen: list[frozenset[Any]] = []

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.OwnedPartitions)
        a = Member(run, "A")
        a.consumer = kafka_python_consumer(broker, group, protocol)
        a.tracked = lambda: {tp.partition for tp in seen[-1]} if seen else None
        a.start(lambda stopping: module.consume(a.consumer, topic, a.handle, stopping, seen.append))
        run.until(lambda: len(run.processed("A")) >= 60, "A to process a first stretch")

        b = Member(run, "B")
        b.consumer = kafka_python_consumer(broker, group, protocol)
        set_rebalance_listener(b.consumer, spy)  # registered earlier; the program drops it
        b.tracked = b.assignment
        b.start(lambda stopping: module.consume(b.consumer, topic, b.handle, stopping))
        run.until(
            lambda: split([a, b]) and len(run.processed("B")) >= 20, "A and B to share the topic"
        )
        sent = stream.stop()
        run.until(lambda: len(set(run.processed())) >= sent, f"all {sent} messages processed")
        a_owned = a.assignment() or set()
        a.stop()
        ends = end_offsets(run)
        at_leave = committed(broker.bootstrap, group, topic)
        run.until(lambda: b.assignment() == set(range(PARTITIONS)), "B to own every partition")
        time.sleep(1.0)  # let B poll: anything it would process twice arrives now
        b.stop()
        run.check()

    assert a_owned, "the leaver owned partitions"
    assert {p: at_leave[p] for p in a_owned} == {p: ends[p] for p in a_owned}
    if kafka_python_resets_retained_positions():
        # B has no listener, so nothing commits what it processed: kafka-python 2.x restarts
        # every partition of a new assignment at the group's committed offset (the raw
        # program does the same); what B repeats must be exactly that restart, nothing else
        drop_restart_at_committed(run, "B", set(range(PARTITIONS)) - a_owned, at_leave)
    handovers = assert_processed_once_in_order(run, sent)
    assert any(old == "A" and new == "B" for _, _, old, new in handovers), handovers
    assert sent > 100  # the stream ran throughout the rebalances
    assert spy.calls == [], "set_rebalance_listener(consumer, None) left the earlier listener"
    assert {type(c.listener) for c in run.calls} == {module.OwnedPartitions}  # A's only
    assert first_with_partitions(run.calls) == (
        "on_partitions_assigned",
        frozenset(range(PARTITIONS)),
    )
    assert any(c.name == "on_partitions_revoked" and c.partitions for c in run.calls)
    assert all(c.through_view for c in run.calls), [type(c.consumer) for c in run.calls]


# --------------------------------------------------------------------------- 3. kept consumer


#: The kept consumer is used only by the processor's own polling and shutdown, which no callback
#: reaches: nothing is left to do by hand (shapes/injected_consumer.py, since f6e1aee; before,
#: "... is also used at line 24; kept (the callbacks now use the view), remove it by hand").
KEPT_NOTES: list[str] = []


def test_kafka_python_kept_injected_consumer_is_passed_by_the_direct_call() -> None:
    """The codemod case on synchronous kafka-python (tests/codemods/test_direct_callback_calls.py
    has it for aiokafka): the shutdown call passes the kept consumer, the callbacks use the
    view, the kept attribute stays for the processor's own polling (no note: KEPT_NOTES)."""
    source = (PROGRAMS / "kept_consumer_kafka_python.py").read_bytes()
    result = migrate_source(source, "processor.py")
    assert result.status == "ok" and result.new_source is not None, result
    after = result.new_source.decode()
    assert "class Processor(RebalanceListener):\n" in after
    assert (
        "            self.on_partitions_revoked(set(self.owned), consumer=self.consumer)\n" in after
    )
    assert (
        "    def on_partitions_revoked(self, revoked: Any, consumer: RebalanceConsumer) -> None:\n        self.owned -= set(revoked)\n        consumer.commit()\n"
        in after
    )
    assert (
        "    def on_partitions_assigned(self, assigned: Any, consumer: RebalanceConsumer) -> None:\n"
        in after
    )
    assert (
        "                for records in self.consumer.poll(timeout_ms=100).values():\n" in after
    )  # kept
    assert "    set_rebalance_listener(kafka, processor)\n    kafka.subscribe([topic])\n" in after
    assert (
        "from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener\n"
        in after
    )
    assert [m.reason for m in result.manual] == KEPT_NOTES
    assert migrate_source(result.new_source, "processor.py").new_source is None  # idempotent


@pytest.mark.parametrize(("client", "protocol"), _cases())
def test_kept_injected_consumer_direct_call_on_the_broker(
    broker: Broker, client: str, protocol: str, tmp_path: Path
) -> None:
    """The processor keeps the consumer for its polling; B joins mid-stream and continues
    right after A's last offsets (A's revocation through the view); A then shuts down, its
    direct ``on_partitions_revoked(..., consumer=self.consumer)`` commits with the real
    consumer, and B continues after A's last again."""
    name = f"kept_consumer_{client}"
    source = migrated_source(name, manual=KEPT_NOTES)
    await_ = "await " if client == "aiokafka" else ""
    assert (
        f"            {await_}self.on_partitions_revoked(set(self.owned), consumer=self.consumer)\n"
        in source
    )
    module = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.Processor)

        def processor_of(m: Member) -> Any:
            return next(
                (
                    c.listener
                    for c in run.calls
                    if getattr(c.listener, "consumer", None) is m.consumer
                ),
                None,
            )

        def member(label: str) -> Member:
            m = Member(run, label)
            m.tracked = lambda: (
                {tp.partition for tp in set(p.owned)} if (p := processor_of(m)) else None
            )
            if client == "kafka_python":
                m.consumer = kafka_python_consumer(broker, group, protocol)
                return m.start(lambda stopping: module.serve(m.consumer, topic, m.handle, stopping))

            async def body(stopping: asyncio.Event) -> None:
                m.consumer = aiokafka_consumer(broker, group)
                await module.serve(m.consumer, topic, m.handle, stopping)

            return m.start_async(body)

        a = member("A")
        run.until(lambda: len(run.processed("A")) >= 60, "A to process a first stretch")
        b = member("B")
        run.until(
            lambda: split([a, b]) and len(run.processed("B")) >= 20, "A and B to share the topic"
        )
        a_processor, b_processor = processor_of(a), processor_of(b)
        sent = stream.stop()
        run.until(lambda: len(set(run.processed())) >= sent, f"all {sent} messages processed")
        a_owned = a.assignment() or set()
        a.stop()
        ends = end_offsets(run)
        at_leave = committed(broker.bootstrap, group, topic)
        run.until(
            lambda: b.stable() and b.assignment() == set(range(PARTITIONS)),
            "B to own every partition",
        )
        time.sleep(1.0)  # let B poll: anything it would process twice arrives now
        b.stop()
        run.check()

    assert a_owned, "the leaver owned partitions"
    assert {p: at_leave[p] for p in a_owned} == {p: ends[p] for p in a_owned}
    handovers = assert_processed_once_in_order(run, sent)
    assert any(old == "A" and new == "B" for _, _, old, new in handovers), handovers
    assert sent > 100  # the stream ran throughout the rebalances
    a_calls = run.of(a_processor)
    # each processor's direct shutdown call: what it still owned, with the real consumer it
    # kept, just before its consumer closed (whose own revocation may come after it)
    for m, processor, owned in (
        (a, a_processor, a_owned),
        (b, b_processor, set(range(PARTITIONS))),
    ):
        calls = run.of(processor)
        direct = [c for c in calls if not c.through_view]
        assert [(c.name, c.partitions, c.consumer) for c in direct] == [
            ("on_partitions_revoked", frozenset(owned), m.consumer)
        ], calls
        assert direct[0] in calls[-2:], calls
    # every other call came from the client, through the view
    assert sum(not c.through_view for c in run.calls) == 2
    assert first_with_partitions(a_calls) == (
        "on_partitions_assigned",
        frozenset(range(PARTITIONS)),
    )
    assert any(
        c.name == "on_partitions_revoked" and c.partitions and c.through_view for c in a_calls
    )
    assert any(c.name == "on_partitions_assigned" and c.partitions for c in run.of(b_processor))


# --------------------------------------------------------------------------- 4. assign_at_times


#: message timestamps, ms after T0: partition 0 has messages after SINCE, partition 1 none
TIMES = {0: (0, 1_000, 2_000, 3_000), 1: (0, 1_000)}
SINCE = 1_500
#: partition 0 starts at its first message at/after SINCE; partition 1 at its end, where the
#: message produced after the end then arrives
EXPECTED = {"first": {0: 2, 1: ("end", 2)}, "after_end": 2}


def _timed_topic(broker: Broker) -> tuple[str, int]:
    topic = broker.create_topic(2)
    t0 = int(time.time() * 1000) - 600_000
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for partition, times in TIMES.items():
        for at in times:
            producer.produce(
                topic, f"{partition}@{at}".encode(), partition=partition, timestamp=t0 + at
            )
    assert producer.flush(30) == 0
    return topic, t0 + SINCE


async def _starts(consumer: Any, broker: Broker, topic: str) -> dict[str, Any]:
    """Each partition's first event (an offset, or ``("end", offset)``); once both reported,
    one more message goes to partition 1, and the offset it arrives at is ``after_end``."""
    first: dict[int, Any] = {}
    after_end: int | None = None
    sent = False
    deadline = time.monotonic() + DEADLINE_S
    try:
        while after_end is None:
            assert time.monotonic() < deadline, f"no new message after the end: {first}"
            message = await consumer.poll(0.2)
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
            if not sent and 0 in first and 1 in first:
                producer = Producer({"bootstrap.servers": broker.bootstrap})
                producer.produce(topic, b"1@now", partition=1)
                assert producer.flush(30) == 0
                sent = True
    finally:
        await consumer.close()
    return {"first": first, "after_end": after_end}


@pytest.fixture(scope="module")
def replay_programs(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, ModuleType]:
    """(the raw recipe, its migration) of migrated_programs/replay_aio.py."""
    source = migrated_source("replay_aio")
    assert (
        "from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe\n"
        in source
    )
    assert source.count("await consumer.seek(partition)") == 2
    assert "assign(" not in source
    directory = tmp_path_factory.mktemp("replay")
    raw = load((PROGRAMS / "replay_aio.py").read_text(), directory, "replay_aio_raw")
    return raw, load(source, directory, "replay_aio")


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
def test_assign_at_times_aioconsumer_raw_and_migrated_start_at_the_same_offsets(
    broker: Broker, protocol: str, replay_programs: tuple[ModuleType, ModuleType]
) -> None:
    """The raw recipe (``assign`` under eager, the inline ``incremental_assign`` form under
    the incremental protocols, where ``assign`` is refused) is the oracle; both migrated
    forms, through rebalance_guard.confluent_kafka_aio's ``subscribe()`` on a plain
    AIOConsumer, start where it does."""
    from tests.integration.confluent_kafka_support import config

    raw, migrated = replay_programs
    eof: dict[str, Any] = {"enable.partition.eof": True}  # each partition reports its end
    conf = config(broker, protocol=protocol, **eof)
    raw_open = raw.open_replay if protocol == "eager" else raw.open_incremental_replay

    async def starts(opener: Callable[..., Awaitable[Any]]) -> dict[str, Any]:
        topic, since = _timed_topic(broker)
        consumer = await opener({**conf, "group.id": broker.group()}, topic, since)
        return await _starts(consumer, broker, topic)

    async def main() -> list[dict[str, Any]]:
        return [
            await starts(raw_open),
            await starts(migrated.open_replay),
            await starts(migrated.open_incremental_replay),
        ]

    oracle, assign_form, incremental_form = asyncio.run(main())
    assert oracle == EXPECTED
    assert assign_form == oracle
    assert incremental_form == oracle
