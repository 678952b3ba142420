"""Three more migration shapes proven by running the MIGRATED program on Apache Kafka (the
sequel of test_migrated_shapes_on_broker.py to _4.py, whose migration, observation, stream
and handover helpers these reuse). Each case migrates a user program of the shape
(``migrated_programs/``) with the real codemod (no manual site, no KRB2xx left, idempotent),
checks the migrated lines that matter, imports the result and drives it on the test broker
with the real client (confluent ``Consumer``; eager, cooperative-sticky and KIP-848's
``consumer`` protocol, the migrated code passing no ``protocol=``):

1. ``owner_helper_methods``: an owner whose callbacks reach the consumer only through its own
   helper methods (``_on_revoke`` -> ``self._flush()`` -> ``self._commit()``, a synchronous
   commit on ``self.consumer``; ``_on_assign`` -> ``self._note_starts()``, ``committed()`` on
   ``self.consumer``); migrated, the helpers take the view by keyword (``consumer=None``,
   called on ``(self.consumer if consumer is None else consumer)``) and the poll loop's calls
   keep the stored consumer. A quiet topic's batch is written but committed only by the next
   flush, so the revocation's flush is what commits the leaver's last writes: each
   partition's offsets exactly once across the handovers, the leaver's last commit the
   group's offset, the revocation's commit made through its callback's view; and each
   member's first write of a partition after an assignment is at the offset the view's
   ``committed()`` reported in it;
2. ``owner_bases``: an owner declared ``class Worker(metaclass=SingletonMeta)`` (becomes
   ``class Worker(RebalanceListener, metaclass=SingletonMeta)``) and an abstract
   ``TypedConsumer(ABC, Generic[T])`` (becomes ``(ABC, Generic[T], RebalanceListener)``) whose
   subclass ``NumberConsumer(TypedConsumer[int])`` runs. The loop commits every 40 messages,
   the revocation what was processed of the revoked partitions since, on the view. The
   migrated singleton is still one per process (each member loads the program on its own, as
   its own process would): ``Worker()`` is the worker whose callbacks ran, its counters are
   theirs; the generic base still has its parameter, is abstract and subscriptable, and the
   subclass decodes the values; the revocation's commit keeps every partition exactly once;
3. assign in a ``try`` body: ``on_assign`` setting each partition's ``offset`` from the
   program's position store and calling ``consumer.assign(partitions)`` inside a ``try``
   whose handler logs; migrated to seeks on the view in place. Nothing is committed to Kafka,
   so only those seeks make a partition start at the stored position: after every assignment
   a member's first message of each partition is exactly at the position stored when it was
   assigned (mid-partition starts seen), nothing processed twice, the handler never ran.

Member threads are named ``member-A``/``member-B``, which is how the test's wrappers know
which member a call ran in.

Each check was shown able to fail by breaking the migrated source before it is loaded (the
text replaced in ``load``'s argument by a throwaway pytest plugin, nothing committed;
2026-11-27), every protocol failing unless said:

- case 1, the revocation's ``self._flush(consumer=consumer)`` dropped: the leaver's-commit
  check failed (e.g. 67 against 117: the quiet topic's last writes were never committed);
  ``_commit`` committing only when handed no view (``if consumer is None:``): the same check
  failed (e.g. 111 against 116); the revocation calling ``self._flush()`` (the stored
  consumer, not the view): exactly-once still held (a commit on the raw consumer inside a
  confluent callback works) but the handed-the-view check failed (no ``_flush`` got the
  revocation's view); the assignment calling ``self._note_starts(partitions)``: the same
  check failed for ``_note_starts``; the noted start one past ``committed()``'s answer: the
  start check failed by one (94 against 95);
- case 2, the revocation's ``consumer.commit(...)`` dropped (both programs): the
  leaver's-commit check failed (e.g. 160 against 171; 84 against 117); ``metaclass=`` dropped
  from the migrated class line: the metaclass check failed (``type``, not ``SingletonMeta``);
  ``RebalanceListener`` dropped from either class line: the listener-instance check failed
  (the callbacks still ran: the adapter takes any object with the methods); ``decode``
  returning ``str``: the member raised in the decoded-value check;
- case 3, the migrated seek loop dropped: the start check failed (a member restarted at 0
  instead of the stored position, e.g. 85); seeking one before the position: it failed by
  one (91 against 92); a ``raise KafkaException(...)`` after the seeks in the ``try`` body:
  the handler-never-ran check failed (its ``log.error`` records).
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import functools
import inspect
import logging
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rebalance_guard.confluent_kafka import RebalanceListener

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import config
from tests.integration.test_migrated_shapes_on_broker import (
    PARTITIONS,
    Member,
    Run,
    Stream,
    committed,
    end_offsets,
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
)
from tests.integration.test_migrated_shapes_on_broker_4 import _member_name

# --------------------------------------------------------------------------- 1. owner_helper_methods


@dataclass
class KeywordCall:
    """One call of an owner's helper: the view it was given by keyword (None: the poll
    loop's call, on the stored consumer), its arguments, and what it left behind."""

    member: str
    owner: Any
    name: str
    consumer: Any
    args: tuple[Any, ...]
    #: the journal's length when it was called
    since: int
    #: ``owner.starts`` after it ran
    starts: dict[int, int]


def observe_keyword_helpers(run: Run, cls: type, names: tuple[str, ...]) -> list[KeywordCall]:
    """Record every call of the helpers ``names`` of ``cls`` (migrated, each takes the view
    as the keyword ``consumer``, None by default)."""
    calls: list[KeywordCall] = []
    for name in names:
        original = vars(cls)[name]

        def wrapper(
            self: Any, *args: Any, consumer: Any = None, _f: Any = original, _n: str = name
        ) -> Any:
            since = len(run.journal)
            result = _f(self, *args, consumer=consumer)
            calls.append(
                KeywordCall(_member_name(), self, _n, consumer, args, since, dict(self.starts))
            )
            return result

        setattr(cls, name, functools.wraps(original)(wrapper))
    return calls


@pytest.mark.parametrize("protocol", confluent_cases())
def test_owner_helpers_commit_through_the_view_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The revocation's flush commits, through its callback's view, what the leaver wrote; the
    assignment's ``committed()`` through the view is where each partition continues."""
    name = "owner_helper_methods_confluent"
    source = migrated_source(name)
    assert "class BatchSink(RebalanceListener):\n" in source
    assert "        subscribe(self.consumer, [self.topic], self)\n" in source
    assert (
        "    def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "        self.owned |= {p.partition for p in partitions}\n"
        "        self._note_starts(partitions, consumer=consumer)\n"
    ) in source
    assert (
        "    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "        self._flush(consumer=consumer)\n"
    ) in source
    assert (
        "    def _note_starts(self, partitions: list[TopicPartition], *, consumer: RebalanceConsumer | None = None) -> None:\n"
        "        for tp in (self.consumer if consumer is None else consumer).committed(partitions, timeout=10):\n"
    ) in source
    assert (
        "    def _flush(self, *, consumer: RebalanceConsumer | None = None) -> None:\n"
        "        self._write()\n"
        "        if self.written:\n"
        "            self._commit([TopicPartition(self.topic, p, o) for p, o in self.written.items()], consumer=consumer)\n"
    ) in source
    assert (
        "    def _commit(self, offsets: list[TopicPartition], *, consumer: RebalanceConsumer | None = None) -> None:\n"
    ) in source
    assert (
        "                (self.consumer if consumer is None else consumer).commit(offsets=offsets, asynchronous=False)\n"
    ) in source
    assert "    def _write(self) -> None:\n" in source  # no consumer: it uses none
    # the poll loop's calls keep the stored consumer
    assert "                    self._write()  # the topic is quiet" in source
    assert (
        "                if len(self.batch) >= BATCH_SIZE:\n                    self._flush()\n"
        in source
    )
    module: Any = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what BatchSink() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.BatchSink)
        helpers = observe_keyword_helpers(
            run, module.BatchSink, ("_note_starts", "_flush", "_commit")
        )

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            program = m.program = module.BatchSink(conf, topic)
            program.label = label
            m.consumer = program.consumer
            m.tracked = lambda: set(program.owned)
            return m.start(lambda stopping: program.run(m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)  # type: ignore[attr-defined]
    # each callback handed its own view to its helper (and _flush on to _commit, when there
    # was something to commit); the poll loop's calls passed none
    for c in run.calls:
        helper = "_note_starts" if c.name == "on_partitions_assigned" else "_flush"
        given = [h for h in helpers if h.consumer is c.consumer]
        assert [h.name for h in given if h.name != "_commit"] == [helper], (c, given)
        assert all(h.owner is c.listener and h.member == c.listener.label for h in given)
    callback_views = {id(c.consumer) for c in run.calls}
    assert all(id(h.consumer) in callback_views for h in helpers if h.consumer is not None)
    assert any(h.consumer is None and h.name == "_commit" for h in helpers), "no loop commit"
    # the leaver's close committed its last writes through the revocation's view
    leaver = done.b.program  # type: ignore[attr-defined]
    last = [h for h in helpers if h.name == "_commit" and h.owner is leaver][-1]
    assert last.consumer is not None, last
    assert {tp.partition: tp.offset for tp in last.args[0]} == {
        p: done.ends[p] for p in done.leaver_owned
    }
    # after each assignment, a member's first write of a partition is where the view's
    # committed() said (the beginning where nothing was committed)
    checked = []
    for h in helpers:
        if h.name != "_note_starts" or h.consumer is None:
            continue
        for tp in h.args[0]:
            p, start = tp.partition, max(h.starts[tp.partition], 0)
            first = next(((o, m) for m, q, o, _ in run.journal[h.since :] if q == p), None)
            if first is None or first[1] != h.member:
                continue  # nothing new reached the partition before it moved on
            assert first[0] == start, (h.member, p, start, first)
            checked.append((h.member, start))
    assert any(start > 0 for _, start in checked), checked  # a start after a commit seen
    assert {who for who, _ in checked} == {"A", "B"}, checked


# --------------------------------------------------------------------------- 2. owner_bases

OWNER_BASES = {
    "owner_metaclass_confluent": "class Worker(RebalanceListener, metaclass=SingletonMeta):\n",
    "owner_generic_confluent": "class TypedConsumer(ABC, Generic[T], RebalanceListener):\n",
}


@pytest.mark.parametrize("protocol", confluent_cases())
@pytest.mark.parametrize("name", list(OWNER_BASES))
def test_owner_with_a_metaclass_or_generic_base_on_the_broker(
    broker: Broker, name: str, protocol: str, tmp_path: Path
) -> None:
    """The owner keeps its metaclass (one worker per process: ``Worker()`` is the worker whose
    callbacks ran) or its generic base (abstract, subscriptable, the subclass decoding), and
    its revocation's commit on the view keeps every partition exactly once."""
    source = migrated_source(name)
    assert OWNER_BASES[name] in source
    assert "        subscribe(self.consumer, [self.topic], self)\n" in source
    assert (
        "    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        in source
    )
    assert (
        "        if offsets:\n            consumer.commit(offsets=offsets, asynchronous=False)\n"
        in source
    )
    metaclass = name == "owner_metaclass_confluent"
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)
    modules: dict[str, Any] = {}

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:

        def member(label: str) -> Member:
            # each member imports the program on its own, as its own process would
            (tmp_path / label).mkdir()
            module: Any = load(source, tmp_path / label, name)
            modules[label] = module
            module.Consumer = SampledConsumer  # what the owner creates
            m = ConfluentMember(run, label)
            if metaclass:
                run.observe(module.Worker)
                program = m.program = module.Worker(conf, topic)
                handle: Callable[..., None] = m.handle
            else:
                run.observe(module.TypedConsumer)
                program = m.program = module.NumberConsumer(conf, topic)

                def decoded(p: int, offset: int, value: int) -> None:
                    assert type(value) is int, value  # decoded by the subclass
                    run.journal.append((label, p, offset, value))

                handle = decoded

            m.consumer = program.consumer
            m.tracked = lambda: set(program.owned)
            return m.start(lambda stopping: program.run(handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)  # type: ignore[attr-defined]
    for m in (done.a, done.b):
        module, program = modules[m.name], m.program  # type: ignore[attr-defined]
        assert isinstance(program, module.RebalanceListener)
        assert module.RebalanceListener is RebalanceListener
        calls = run.of(program)
        revoked = [c for c in calls if c.name == "on_partitions_revoked"]
        if metaclass:
            assert type(module.Worker) is module.SingletonMeta
            assert module.Worker() is program  # the one worker of its process
            assert module.Worker({"group.id": "other"}, "other") is program
            # the process's worker is the one whose callbacks ran and which processed
            assert module.report() == {
                "processed": len(run.processed(m.name)),
                "revocations": len(revoked),
            }, (m.name, calls)
        else:
            t = module.T
            assert module.TypedConsumer.__parameters__ == (t,)
            assert typing.get_args(module.NumberConsumer.__orig_bases__[0]) == (int,)
            assert module.TypedConsumer[str].__origin__ is module.TypedConsumer
            assert inspect.isabstract(module.TypedConsumer)
            assert not inspect.isabstract(module.NumberConsumer)
            assert program.processed == len(run.processed(m.name))
            assert {type(c.listener) for c in calls} == {module.NumberConsumer}
        assert any(c.partitions for c in revoked), (m.name, calls)


# --------------------------------------------------------------------------- 3. assign in a try body


class ErrorLog(logging.Handler):
    """What the program logged at ERROR and above (its ``except`` handler)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize("protocol", confluent_cases())
def test_assign_in_a_try_body_starts_where_the_callback_chose_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The assign inside the ``try`` body became seeks on the view there: the program commits
    nothing to Kafka, yet after every assignment each partition starts exactly at the
    position stored when it was assigned, nothing is processed twice, and the handler never
    ran."""
    name = "assign_in_try_confluent"
    source = migrated_source(name)
    assert "class Replayer(RebalanceListener):\n" in source
    assert (
        "    def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "        self.owned |= {p.partition for p in partitions}\n"
        "        try:\n"
        "            for p in partitions:\n"
        "                p.offset = POSITIONS.get((p.topic, p.partition), OFFSET_BEGINNING)\n"
        "            for partition in partitions:\n"
        "                consumer.seek(partition)\n"
        '            log.info("assigned %s", sorted((p.partition, p.offset) for p in partitions))\n'
        "        except KafkaException as e:\n"
        '            log.error("could not start at the stored positions: %s", e)\n'
    ) in source
    assert "consumer.assign(" not in source
    assert "        subscribe(self.consumer, [self.topic], self)\n" in source
    module: Any = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what Replayer() creates
    errors = ErrorLog()
    module.log.addHandler(errors)
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)
    #: (member, partition, the stored position when assigned, the journal's length then)
    starts: list[tuple[str, int, int, int]] = []

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        _note_stored_positions(module, run, starts)
        run.observe(module.Replayer)

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            program = m.program = module.Replayer(conf, topic)
            m.consumer = program.consumer
            m.tracked = lambda: set(program.owned)
            return m.start(lambda stopping: program.run(m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")
        at_end = committed(broker.bootstrap, group, topic)

    assert errors.records == [], [r.getMessage() for r in errors.records]
    assert {p: o for p, o in at_end.items() if o >= 0} == {}, "the program commits nothing"
    # the leaver's last positions (every partition's, at the end) are where processing got to
    done.at_leave = {p: module.POSITIONS[(topic, p)] for p in range(PARTITIONS)}
    assert done.at_leave == end_offsets(run)
    checked = assert_first_reads_at(run, starts)
    assert any(pos > 0 for _, pos in checked), (checked, starts)  # a mid-partition start seen
    assert {who for who, _ in checked} == {"A", "B"}, checked
    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)  # type: ignore[attr-defined]


def _note_stored_positions(module: Any, run: Run, starts: list[tuple[str, int, int, int]]) -> None:
    """Wrap ``Replayer.on_partitions_assigned``: note each partition's stored position (0,
    the beginning, without one) and where the journal stood, then run it as migrated."""
    original = module.Replayer.on_partitions_assigned

    @functools.wraps(original)
    def noting(self: Any, partitions: Any, consumer: Any) -> Any:
        for tp in partitions:
            position = module.POSITIONS.get((tp.topic, tp.partition), 0)
            starts.append((_member_name(), tp.partition, position, len(run.journal)))
        return original(self, partitions, consumer)

    module.Replayer.on_partitions_assigned = noting
