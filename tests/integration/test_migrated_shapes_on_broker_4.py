"""Three more migration shapes proven by running the MIGRATED program on Apache Kafka (the
sequel of test_migrated_shapes_on_broker.py, _2.py and _3.py, whose migration, observation,
stream and handover helpers these reuse). Each case migrates a user program of the shape
(``migrated_programs/``) with the real codemod (no manual site, no KRB2xx left, idempotent),
checks the migrated lines that matter, imports the result and drives it on the test broker
with the real client:

1. ``owner_two_roles`` (confluent ``Consumer``): ONE method of the owner registered for
   ``on_assign``, ``on_revoke`` and ``on_lost`` becomes ``on_partitions_assigned`` with
   ``on_partitions_revoked = on_partitions_assigned`` (``on_partitions_lost`` is the base
   class's, which calls the revocation). The method resets per-assignment state (an epoch,
   the pending progress, the partitions the change names toggled); the poll loop commits.
   It must run, with the view, on every assignment AND every revocation: the epoch is the
   number of callbacks the client ran, replaying each member's calls never assigns an owned
   partition nor revokes an unowned one, every handover away from a member follows a
   revocation of that partition by it; and the program's own commits keep every partition
   exactly once across the handovers, the leaver's last commit the group's offset;
2. ``factory_callbacks`` (confluent ``Consumer``): ``on_assign=self._pin_on_assign(group)``,
   the factory returning a closure setting ``partition.offset`` from the driver's position
   store, then ``assign``; migrated, a listener class holds the made closure, which seeks on
   the view. Nothing is committed to Kafka, so only those seeks can make a partition start
   at the stored position: after every assignment a member's first message of each
   partition is exactly at the position stored when it was assigned (mid-partition starts
   seen), nothing is processed twice (the model: broker_3's loop-built offsets case);
3. ``view_protocols`` (aiokafka, eager only): the helper annotated with a file-local
   ``Protocol`` (``async end_offsets``, ``seek``) gets the view. After every assignment the
   member's first message of each partition is exactly at the end offset the view reported
   in that assignment, which lies between the partition's end read by an independent client
   just before and just after the helper ran (no replay of what was already there); nothing
   is committed and nothing is processed twice. Only here is exactly-once not asserted: the
   program skips, by design, what is written while a rebalance runs.

The confluent cases run eager, cooperative-sticky and KIP-848's ``consumer`` protocol (the
migrated code passes no ``protocol=``: under the incremental protocols the adapter's
guessed-eager fallback runs). Member threads are named ``member-A``/``member-B``, which is how
the test's wrappers know which member a callback ran in.

Each check was shown able to fail by breaking the migrated source before it is loaded (the
text replaced in ``load``'s argument by a throwaway pytest plugin, nothing committed;
2026-11-27):

- case 1, the alias line dropped (every protocol): the program's partitions never matched
  its assignment (timed out waiting for A and B to share the topic); the alias replaced by a
  revocation method of its own that only updates ``owned``: the epoch check failed (3 against
  6 callbacks); the loop's commit dropped: the leaver's-commit check failed (-1001 against
  the last offset + 1); ``self.pending.clear()`` dropped: stale progress of revoked partitions
  was committed over the new owner's, the leaver's-commit check failed (e.g. 65 against 117;
  eager and cooperative, the KIP-848 run happened to pass);
- case 2, the migrated seek loop dropped (every protocol): the start check failed (a member
  restarted at 0 instead of the stored position, e.g. 98); seeking one before the position:
  it failed by one (98 against 99); one after: the seek past the end was reset to the
  beginning by ``auto.offset.reset`` and the start check failed (0 against 89);
- case 3, the seek loop dropped: the start check failed (0 against 80); seeking one before
  the end: it failed by one (66 against 67); (before the start check came first) both failed
  the processed-twice check (563 and 1 messages); the listener no longer calling the helper:
  no start was seen (the helper-ran checks come after).
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import TopicPartition
from rebalance_guard._view import ExpiringView

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import config
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
    load,
    migrated_source,
    scenario,
    split,
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


def _member_name() -> str:
    """The member whose thread runs the current callback (``member-A`` -> ``A``)."""
    return threading.current_thread().name.removeprefix("member-")


# --------------------------------------------------------------------------- 1. owner_two_roles


@pytest.mark.parametrize("protocol", confluent_cases())
def test_one_method_for_every_role_runs_on_each_change_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The one method is each role's: it runs, with the view, for every assignment and every
    revocation the client makes; the loop's commits keep every partition exactly once."""
    name = "owner_two_roles_confluent"
    source = migrated_source(name)
    assert "class Projector(RebalanceListener):\n" in source
    assert "        subscribe(self.consumer, [self.topic], self)\n" in source
    assert (
        "    def on_partitions_assigned(self, partitions: list[TopicPartition], _consumer: RebalanceConsumer) -> None:\n"
        "        self.epoch += 1\n"
    ) in source
    assert (
        "        self.pending.clear()\n\n    on_partitions_revoked = on_partitions_assigned\n"
        in source
    )
    assert "_on_assignment" not in source.split('"""', 2)[2]  # after the docstring
    module: Any = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what Projector() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    conf = config(broker, group, protocol)

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.Projector)

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            program = m.program = module.Projector(conf, topic)
            m.consumer = program.consumer
            m.tracked = lambda: set(program.owned)
            return m.start(lambda stopping: program.run(m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, done.a.program)  # type: ignore[attr-defined]
    for m in (done.a, done.b):
        program: Any = m.program  # type: ignore[attr-defined]
        calls = run.of(program)
        roles = Counter(c.name for c in calls if c.partitions)
        # the one method ran once per callback the client made, in whichever role
        assert program.epoch == len(calls) > 0, (m.name, program.epoch, calls)
        assert roles["on_partitions_assigned"] > 0 and roles["on_partitions_revoked"] > 0, roles
        owned: set[int] = set()  # the calls, replayed: each role's partitions consistent
        for c in calls:
            if c.name == "on_partitions_assigned":
                assert not owned & c.partitions, (m.name, c, calls)
                owned |= c.partitions
            else:
                assert c.partitions <= owned, (m.name, c, calls)
                owned -= c.partitions
    # every partition that left a member was revoked from it (the method ran as on_revoke)
    members = {"A": done.a, "B": done.b}
    for p, offset, old, new in assert_processed_once_in_order(run, done.sent):
        revoked = [
            c
            for c in run.of(members[old].program)  # type: ignore[attr-defined]
            if c.name == "on_partitions_revoked" and p in c.partitions
        ]
        assert revoked, (p, offset, old, new)


# --------------------------------------------------------------------------- 2. factory_callbacks


@pytest.mark.parametrize("protocol", confluent_cases())
def test_factory_made_callback_starts_at_the_stored_position_on_the_broker(
    broker: Broker, protocol: str, tmp_path: Path
) -> None:
    """The closure the factory makes is held by the listener class and seeks on the view: the
    program commits nothing to Kafka, yet after every assignment each partition starts
    exactly at the position the driver had stored, and nothing is processed twice."""
    name = "factory_callbacks_confluent"
    source = migrated_source(name)
    assert (
        "        class RebalanceCallbacks(RebalanceListener):\n"
        "            def __init__(self, on_assign: Callable[[RebalanceConsumer, list[TopicPartition]], None]) -> None:\n"
        "                self.on_assign = on_assign\n"
        "\n"
        "            def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:\n"
        "                self.on_assign(consumer, partitions)\n"
        "\n"
        "        subscribe(consumer, topics, RebalanceCallbacks(self._pin_on_assign(group)))\n"
    ) in source
    assert (
        "    def _pin_on_assign(self, group: str) -> Callable[[RebalanceConsumer, list[TopicPartition]], None]:\n"
        in source
    )
    assert (
        "        def assigned(consumer: RebalanceConsumer, partitions: list[TopicPartition]) -> None:\n"
        "            positions = self._positions[group]\n"
        "            for partition in partitions:\n"
        "                known = positions.get((partition.topic, partition.partition))\n"
        "                if known is not None:\n"
        "                    partition.offset = known\n"
        "            for partition in partitions:\n"
        "                consumer.seek(partition)\n"
    ) in source
    assert "consumer.assign(" not in source
    module: Any = load(source, tmp_path, name)
    module.Consumer = SampledConsumer  # what follow() creates
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    driver = module.Driver(config(broker, group, protocol))
    #: (member, partition, the stored position when assigned, the journal's length then)
    starts: list[tuple[str, int, int, int]] = []

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        _note_positions(module, run, starts)
        # each follow() defines its own listener class: observe each as it is registered
        listeners = record_registrations(module, "subscribe", lambda li: run.observe(type(li)))

        def member(label: str) -> Member:
            m = ConfluentMember(run, label)
            m.consumer = driver.follow(group, [topic])
            m.tracked = m.assignment  # the driver keeps no partitions of its own
            return m.start(lambda stopping: driver.consume(m.consumer, group, m.handle, stopping))

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")
        at_end = committed(broker.bootstrap, group, topic)

    assert {p: o for p, o in at_end.items() if o >= 0} == {}, "the program commits nothing"
    # the leaver's last positions (every partition's, at the end) are where processing got to
    done.at_leave = {p: driver.position(group, topic, p) for p in range(PARTITIONS)}
    assert done.at_leave == end_offsets(run)
    checked = assert_first_reads_at(run, starts)
    assert any(pos > 0 for _, pos in checked), (checked, starts)  # a mid-partition start seen
    assert {who for who, _ in checked} == {"A", "B"}, checked
    assert_exactly_once_across_handovers(run, done)
    # every callback got the view; A's first was the whole topic; both were assigned some
    assert run.calls and all(c.through_view for c in run.calls), run.calls
    a_listener, b_listener = listeners[id(done.a.consumer)], listeners[id(done.b.consumer)]
    assert first_with_partitions(run.of(a_listener)) == (
        "on_partitions_assigned",
        frozenset(range(PARTITIONS)),
    )
    assert first_with_partitions(run.of(b_listener))[0] == "on_partitions_assigned"


def _note_positions(module: Any, run: Run, starts: list[tuple[str, int, int, int]]) -> None:
    """Wrap ``Driver._pin_on_assign``: each closure it makes first notes, per partition, the
    position the driver stored (0, the beginning, without one: nothing is committed) and
    where the journal stood, then runs as made."""
    factory = module.Driver._pin_on_assign

    @functools.wraps(factory)
    def noting_factory(self: Any, group: str) -> Any:
        made = factory(self, group)

        def noting(consumer: Any, partitions: Any) -> Any:
            for tp in partitions:
                position = self.position(group, tp.topic, tp.partition)
                starts.append((_member_name(), tp.partition, position or 0, len(run.journal)))
            return made(consumer, partitions)

        return noting

    module.Driver._pin_on_assign = noting_factory


# --------------------------------------------------------------------------- 3. view_protocols


class RecordingSeeker:
    """What the helper is handed in the test: the callback's own view, with the end offsets
    it answered recorded (the helper's ``OffsetSeeker``: ``end_offsets`` and ``seek``)."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self.ends: dict[int, int] = {}

    async def end_offsets(self, partitions: list[Any]) -> dict[Any, int]:
        answer: dict[Any, int] = await self.view.end_offsets(partitions)
        self.ends.update({tp.partition: offset for tp, offset in answer.items()})
        return answer

    def seek(self, partition: Any, offset: int) -> None:
        self.view.seek(partition, offset)


@pytest.mark.parametrize(("client", "protocol"), _cases(("aiokafka",)))
def test_protocol_annotated_helper_seeks_to_the_end_on_the_broker(
    broker: Broker, client: str, protocol: str, tmp_path: Path
) -> None:
    """The helper annotated with the file's ``OffsetSeeker`` gets the view and starts every
    assigned partition at its end as of the assignment: nothing already there is replayed,
    nothing written after it is skipped, nothing is committed."""
    name = "view_protocols_aiokafka"
    source = migrated_source(name)
    assert "class SeekToEndListener(RebalanceListener):\n" in source
    assert (
        "    async def on_partitions_assigned(self, assigned: Collection[Any], consumer: RebalanceConsumer) -> None:\n"
        "        await seek_assigned_to_end(consumer, assigned)\n"
    ) in source
    assert (
        "async def seek_assigned_to_end(consumer: OffsetSeeker, assigned: Collection[Any]) -> None:\n"
        in source
    )
    assert (
        "    set_rebalance_listener(consumer, SeekToEndListener())\n"
        "    consumer.subscribe(topics=[topic])\n"
    ) in source
    assert "self._consumer" not in source and "def __init__" not in source  # injection gone
    module: Any = load(source, tmp_path, name)
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    #: (member, partition, end before, the view's end, end after, the journal's length then)
    starts: list[tuple[str, int, int, int, int, int]] = []
    handed: list[Any] = []
    reader = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})

    def high_watermarks() -> dict[int, int]:
        return {
            p: reader.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
            for p in range(PARTITIONS)
        }

    helper = module.seek_assigned_to_end

    async def recording_helper(consumer: Any, assigned: Any) -> None:
        if assigned:
            handed.append(consumer)
        since = len(run.journal)
        before = await asyncio.to_thread(high_watermarks)
        seeker = RecordingSeeker(consumer)
        await helper(seeker, assigned)
        after = await asyncio.to_thread(high_watermarks)
        for tp in assigned:
            p = tp.partition
            starts.append((_member_name(), p, before[p], seeker.ends[p], after[p], since))

    try:
        with scenario() as run, Stream(broker.bootstrap, topic) as stream:
            module.seek_assigned_to_end = recording_helper  # looked up per call
            run.observe(module.SeekToEndListener)
            listeners = record_registrations(module, "set_rebalance_listener")
            run.until(lambda: stream.sent >= 200, "the topic to hold messages before A starts")

            def member(label: str) -> Member:
                m = Member(run, label)
                m.tracked = m.assignment  # the listener keeps no partitions of its own

                async def body(stopping: asyncio.Event) -> None:
                    m.consumer = aiokafka_consumer(broker, group)
                    await module.tail(m.consumer, topic, m.handle, stopping)

                return m.start_async(body)

            a = member("A")
            run.until(lambda: len(run.processed("A")) >= 60, "A to process a first stretch")
            b = member("B")
            run.until(
                lambda: split([a, b]) and len(run.processed("B")) >= 20,
                "A and B to share the topic",
            )
            left = len(run.journal)
            a.stop()  # A leaves: B takes every partition over, at its end then
            run.until(
                lambda: (
                    b.stable()
                    and b.assignment() == set(range(PARTITIONS))
                    and {q for m_, q, _, _ in run.journal[left:] if m_ == "B"}
                    == set(range(PARTITIONS))
                ),
                "B to own and process every partition",
            )
            stream.stop()
            time.sleep(1.0)  # let B poll: anything it would replay arrives now
            b.stop()
            run.check()
        at_end = committed(broker.bootstrap, group, topic)
    finally:
        reader.close()

    assert {p: o for p, o in at_end.items() if o >= 0} == {}, "the program commits nothing"
    checked = []
    for who, p, before, seen, after, since in starts:
        assert before <= seen <= after, (who, p, before, seen, after)
        first = next(((o, m) for m, q, o, _ in run.journal[since:] if q == p), None)
        if first is None or first[1] != who:
            continue  # nothing new reached the partition before it moved on
        assert first[0] == seen, (who, p, (before, seen, after), first, starts)
        checked.append((who, seen))
    assert {who for who, _ in checked} == {"A", "B"}, (checked, starts)
    assert all(seen > 0 for _, seen in checked), checked  # each start skipped what was there
    twice = sorted(v for v, n in Counter(run.processed()).items() if n > 1)
    assert not twice, f"{len(twice)} messages processed twice: {twice[:20]}"
    # the helper ran once per assignment with partitions, and was handed the callback's view
    assigned = [c for c in run.calls if c.name == "on_partitions_assigned" and c.partitions]
    assert len(handed) == len(assigned), (handed, assigned)
    assert all(isinstance(v, ExpiringView) for v in handed), [type(v) for v in handed]
    assert {id(v) for v in handed} == {id(c.consumer) for c in assigned}
    assert_callbacks_through_the_view(run, listeners[id(a.consumer)])
