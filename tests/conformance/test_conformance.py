"""KIP-1306 conformance: one set of cases, every client x protocol, on the real broker.

Mirrors KIP-1306's own tests (see /work/shared/CONFORMANCE.md). To keep CI time down, each
matrix cell runs two recorded scenarios once (module-scoped fixtures) and the cases assert
on the recordings:

* hand-off: member A joins, B joins, C joins while numbered messages are produced; A's first
  ``on_partitions_assigned`` exercises every permitted operation, seeks, commits and
  pauses; A commits with a BARE ``commit()`` on revoke, B with explicit offsets, C's first
  assigned callback raises. Afterwards every message is processed exactly once.
* subscription change (KIP-70): one member subscribed to two topics re-subscribes to one.

The lost lifecycle (a member stalls past its session, then polls) is in ``test_lost.py``.

Drivers (``driver_<client>.py``) adapt the clients; scripts run in the callbacks.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from rebalance_guard import RebalanceViewExpiredError

from tests.conformance.conftest import TARGETS, load_target
from tests.conformance.driver import (
    INCREMENTAL,
    TP,
    Member,
    NotOffered,
    Ops,
    produce,
    wait_until,
)
from tests.integration.broker import Broker

PARTITIONS = 4
PER_ROUND = 40  # messages produced before each join: 10 per partition
SEEK_OFFSET = 5  # A seeks partition 2 here in its first assigned callback

#: Every permitted operation, by the name the drivers' Ops use.
OPERATIONS = (
    "commit", "commit_offsets", "commit_async", "committed", "position", "seek",
    "seek_to_beginning", "seek_to_end", "assignment", "pause", "resume", "paused",
    "beginning_offsets", "end_offsets", "offsets_for_times", "partitions_for_topic",
    "group_metadata",
)  # fmt: skip


@dataclass
class Raised:
    """An operation that raised a client error (not a view refusal)."""

    error: BaseException


class CallbackBoom(RuntimeError):
    """Raised on purpose by member C's first on_partitions_assigned."""


@dataclass
class Entry:
    """What a script saw in one callback."""

    kind: str
    partitions: set[TP]
    during: set[TP]  # assignment() inside the callback
    positions: dict[TP, int | None] = field(default_factory=dict)
    committed: dict[TP, int | None] = field(default_factory=dict)
    consumed_before: set[TP] = field(default_factory=set)  # read since last assigned


async def probe_every_operation(ops: Ops, topic: str, owned: set[TP]) -> dict[str, Any]:
    """Call each permitted operation once; the result, or NotOffered with its reason."""
    tp = sorted(owned)[0]
    calls: dict[str, Any] = {
        "assignment": lambda: ops.assignment(),
        "partitions_for_topic": lambda: ops.partitions_for_topic(topic),
        "beginning_offsets": lambda: ops.beginning_offsets([tp]),
        "end_offsets": lambda: ops.end_offsets([tp]),
        "offsets_for_times": lambda: ops.offsets_for_times({tp: 0}),
        "group_metadata": lambda: ops.group_metadata(),
        "seek_to_end": lambda: ops.seek_to_end([tp]),
        "seek_to_beginning": lambda: ops.seek_to_beginning([tp]),
        "seek": lambda: ops.seek(tp, 0),
        "position": lambda: ops.position(tp),
        "commit_offsets": lambda: ops.commit_offsets({tp: 0}),
        "committed": lambda: ops.committed(tp),
        "commit": lambda: ops.commit(),
        "commit_async": lambda: ops.commit_async(),
        "pause": lambda: ops.pause([tp]),
        "paused": lambda: ops.paused(),
        "resume": lambda: ops.resume([tp]),
    }
    results: dict[str, Any] = {}
    for name, call in calls.items():
        try:
            results[name] = await call()
        except NotOffered as reason:
            results[name] = reason
        except Exception as exc:  # reported by the case, with the operation's name
            results[name] = Raised(exc)
    return results


def _consumer_error(exc: BaseException) -> bool:
    """True for a client error (e.g. nothing to commit yet), False for a view refusal."""
    return not isinstance(exc, (AttributeError, TypeError, RebalanceViewExpiredError))


@dataclass
class Handoff:
    topic: str
    members: dict[str, Member]
    logs: dict[str, list[Entry]]
    probe: dict[str, Any]
    expired_ops: list[Ops]
    first_assigned: set[TP]
    seek_entry: dict[str, Any]
    p3_records_while_paused: int
    expected: set[int]
    processed: list[int]
    p3_revoked_from_a: bool
    p3_flowed_before_resume: bool
    moved_to_b: set[TP]
    c_errors: list[BaseException]
    protocol: str
    closing_at: float  # time.monotonic() when the members were told to close


def _balanced(members: list[Member], everything: set[TP]) -> bool:
    owned = [m.assignment() for m in members]
    flat = [tp for tps in owned for tp in tps]
    return all(owned) and len(flat) == len(set(flat)) and set(flat) == everything


def _all_processed(members: list[Member]) -> list[int]:
    return [r.value for m in members for r in m.records]


def _close_all(members: list[Member]) -> None:
    errors: list[BaseException] = []

    def close(member: Member) -> None:
        try:
            member.close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=close, args=(m,)) for m in members]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]


def run_handoff(broker: Broker, driver: Any, protocol: str) -> Handoff:
    topic = broker.create_topic(partitions=PARTITIONS)
    group = broker.group()
    everything = {(topic, p) for p in range(PARTITIONS)}
    p2, p3 = (topic, 2), (topic, 3)
    logs: dict[str, list[Entry]] = {"A": [], "B": [], "C": []}
    probe: dict[str, Any] = {}
    expired: list[Ops] = []
    seek_entry: dict[str, Any] = {}
    members: dict[str, Member] = {}

    async def record(name: str, kind: str, partitions: set[TP], ops: Ops) -> Entry:
        entry = Entry(kind, set(partitions), await ops.assignment())
        logs[name].append(entry)
        if kind == "revoked":
            entry.positions = {tp: await ops.position(tp) for tp in sorted(partitions)}
        return entry

    assigned_at: dict[TP, int] = {}  # index into A's records when each was last assigned

    async def script_a(kind: str, partitions: set[TP], ops: Ops) -> None:
        entry = await record("A", kind, partitions, ops)
        records = members["A"].records
        if kind == "assigned":
            assigned_at.update((tp, len(records)) for tp in partitions)
        if kind == "assigned" and not probe:
            probe.update(await probe_every_operation(ops, topic, partitions))
            await ops.seek_to_beginning(sorted(partitions))
            await ops.seek(p2, SEEK_OFFSET)
            await ops.commit_offsets({p2: SEEK_OFFSET})
            seek_entry["position"] = await ops.position(p2)
            seek_entry["committed"] = await ops.committed(p2)
            await ops.pause([p3])
            expired.append(ops)
        elif kind == "revoked":
            entry.consumed_before = {
                r.tp for i, r in enumerate(records)
                if r.tp in partitions and i >= assigned_at.get(r.tp, 0)
            }  # fmt: skip
            await ops.commit()  # BARE: KIP-1306's own example
            if not members["A"].closing:  # librdkafka answers no offset fetch while closing
                entry.committed = {tp: await ops.committed(tp) for tp in sorted(partitions)}

    async def script_b(kind: str, partitions: set[TP], ops: Ops) -> None:
        entry = await record("B", kind, partitions, ops)
        if kind == "revoked":
            done = members["B"].next_offsets
            offsets = {tp: done[tp] for tp in partitions if tp in done}
            if offsets:
                await ops.commit_offsets(offsets)
            if not members["B"].closing:
                entry.committed = {tp: await ops.committed(tp) for tp in sorted(offsets)}

    async def script_c(kind: str, partitions: set[TP], ops: Ops) -> None:
        await record("C", kind, partitions, ops)
        if kind == "assigned" and sum(e.kind == "assigned" for e in logs["C"]) == 1:
            raise CallbackBoom("raised on purpose in C's first on_partitions_assigned")

    skipped = {v for v in range(PER_ROUND) if v % PARTITIONS == 2 and v // PARTITIONS < SEEK_OFFSET}
    p3_values = {v for v in range(4 * PER_ROUND) if v % PARTITIONS == 3}
    all_members: list[Member] = []
    try:
        produce(broker.bootstrap, topic, range(PER_ROUND), PARTITIONS)
        a = members["A"] = driver.member(broker.bootstrap, group, [topic], protocol, script_a, "A")
        all_members.append(a)
        first = set(range(PER_ROUND)) - skipped - p3_values
        wait_until(lambda: set(_all_processed(all_members)) >= first, "A to process", all_members)
        time.sleep(1.0)  # p3 stays paused: nothing of it may arrive
        p3_records = sum(r.tp == p3 for r in a.records)

        produce(broker.bootstrap, topic, range(PER_ROUND, 2 * PER_ROUND), PARTITIONS)
        b = members["B"] = driver.member(broker.bootstrap, group, [topic], protocol, script_b, "B")
        all_members.append(b)
        wait_until(lambda: _balanced([a, b], everything), "A and B to share", all_members, 90)
        p3_revoked = any(p3 in e.partitions for e in logs["A"] if e.kind == "revoked")
        expected = set(range(2 * PER_ROUND)) - skipped
        if not p3_revoked:
            expected -= p3_values
        wait_until(lambda: set(_all_processed(all_members)) >= expected, "A, B to process",
                   all_members)  # fmt: skip
        p3_flowed = any(r.tp == p3 for m in all_members for r in m.records)

        produce(broker.bootstrap, topic, range(2 * PER_ROUND, 3 * PER_ROUND), PARTITIONS)
        c = members["C"] = driver.member(broker.bootstrap, group, [topic], protocol, script_c, "C")
        all_members.append(c)
        wait_until(lambda: _balanced([a, b, c], everything), "A, B, C to share", all_members, 90)
        wait_until(lambda: bool(c.poll_errors), "C's poll() to raise", all_members)
        for member in all_members:
            member.resume({p3} & member.assignment())
        produce(broker.bootstrap, topic, range(3 * PER_ROUND, 4 * PER_ROUND), PARTITIONS)
        expected = set(range(4 * PER_ROUND)) - skipped
        wait_until(lambda: set(_all_processed(all_members)) >= expected, "every message",
                   all_members)  # fmt: skip
        time.sleep(1.0)  # anything delivered twice arrives now
    finally:
        closing_at = time.monotonic()
        _close_all(all_members)
    # B's first assignment with partitions: a cooperative first round may assign it nothing
    moved = next((e.partitions for e in logs["B"] if e.kind == "assigned" and e.partitions), set())
    return Handoff(
        topic=topic, members=members, logs=logs, probe=probe, expired_ops=expired,
        first_assigned=next(e.partitions for e in logs["A"] if e.kind == "assigned"),
        seek_entry=seek_entry, p3_records_while_paused=p3_records, expected=expected,
        processed=_all_processed(all_members), p3_revoked_from_a=p3_revoked,
        p3_flowed_before_resume=p3_flowed, moved_to_b=moved, c_errors=list(c.poll_errors),
        protocol=protocol, closing_at=closing_at,
    )  # fmt: skip


@pytest.fixture(scope="module", params=TARGETS)
def handoff(request: pytest.FixtureRequest, broker: Broker) -> Handoff:
    driver, protocol = load_target(request.param, broker)
    return run_handoff(broker, driver, protocol)


# -- delegation and expiry ---------------------------------------------------------------


def test_every_permitted_operation_reaches_the_consumer(handoff: Handoff) -> None:
    probe, topic = handoff.probe, handoff.topic
    assert set(probe) == set(OPERATIONS) - {"seek"} | {"seek"}
    refused = {
        name: result for name, result in probe.items()
        if isinstance(result, Raised) and not _consumer_error(result.error)
    }  # fmt: skip
    assert not refused, refused
    raised = {name: r for name, r in probe.items() if isinstance(r, Raised)}
    # A client error is acceptable only where there is nothing to commit yet (a bare commit
    # before any record was consumed): the call reached the consumer.
    assert set(raised) <= {"commit", "commit_async"}, raised
    assert probe["assignment"] == handoff.first_assigned
    assert probe["partitions_for_topic"] == set(range(PARTITIONS))
    tp = sorted(handoff.first_assigned)[0]
    assert probe["beginning_offsets"] == {tp: 0}
    assert 0 < probe["end_offsets"][tp] <= PER_ROUND // PARTITIONS
    assert probe["offsets_for_times"] == {tp: 0}
    assert probe["position"] == 0  # after seek(tp, 0)
    assert probe["committed"] == 0  # after commit_offsets({tp: 0})
    if not isinstance(probe["paused"], NotOffered):
        assert tp in probe["paused"]
    if not isinstance(probe["group_metadata"], NotOffered):
        assert probe["group_metadata"] is not None
    assert topic


def test_the_view_refuses_every_operation_after_the_callback(handoff: Handoff) -> None:
    (ops,) = handoff.expired_ops
    tp = sorted(handoff.first_assigned)[0]
    for name in ("assignment", "position", "committed", "paused", "commit"):
        call = getattr(ops, name)
        coroutine = call(tp) if name in ("position", "committed") else call()
        try:
            with pytest.raises((RebalanceViewExpiredError, NotOffered)) as info:
                _run(coroutine)
        finally:
            coroutine.close()
        if info.type is RebalanceViewExpiredError:
            assert f"{name}()" in str(info.value), str(info.value)


def _run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(_await(coroutine))


async def _await(coroutine: Any) -> Any:
    return await coroutine


# -- lifecycle and assignment ------------------------------------------------------------


def test_lifecycle_revoke_before_assign_and_deltas(handoff: Handoff) -> None:
    a, b = handoff.members["A"], handoff.members["B"]
    first = next(e for e in a.events if e.partitions)  # eager may revoke nothing first
    assert first.kind == "assigned", a.events
    assert set(first.partitions) == {(handoff.topic, p) for p in range(PARTITIONS)}
    assert handoff.moved_to_b, "B was never assigned anything"
    b_assigned = next(e for e in b.events if e.kind == "assigned" and e.partitions)
    for tp in b_assigned.partitions:  # hand-off: the old owner lets go first
        revoked = [e for e in a.events if e.kind == "revoked" and tp in e.partitions]
        assert revoked and revoked[0].at <= b_assigned.at, (tp, a.events, b.events)
    for member in handoff.members.values():
        kinds = [e.kind for e in member.events]
        assert "lost" not in kinds, (member.name, kinds)
    if handoff.protocol in INCREMENTAL:  # only deltas: nothing revoked is also re-assigned
        for member in handoff.members.values():
            owned: set[TP] = set()
            for event in member.events:
                if event.kind == "assigned":
                    assert not owned & event.partitions, (member.name, member.events)
                    owned |= event.partitions
                else:
                    assert event.partitions <= owned, (member.name, member.events)
                    owned -= event.partitions
    else:  # eager: every revocation takes everything the member owned
        for member in handoff.members.values():
            owned = set()
            for event in member.events:
                if event.kind == "assigned":
                    owned = set(event.partitions)
                elif event.partitions:
                    assert event.partitions == owned, (member.name, member.events)
                    owned = set()


def test_assignment_inside_each_callback(handoff: Handoff) -> None:
    for name, entries in handoff.logs.items():
        for entry in entries:
            # lost never happens here (asserted above); its case is test_lost.py
            assert entry.partitions <= entry.during, (name, entry)


def test_pause_set_in_assigned_persists_and_pause_on_revoked_is_cleared(
    handoff: Handoff,
) -> None:
    assert handoff.p3_records_while_paused == 0, "the pause set in assigned did not persist"
    # p3 flows again without any resume exactly when A's pause went with a revocation
    assert handoff.p3_flowed_before_resume == handoff.p3_revoked_from_a


# -- errors ------------------------------------------------------------------------------


def test_callback_exception_reaches_poll_and_the_rebalance_completes(handoff: Handoff) -> None:
    def chain(exc: BaseException | None) -> list[BaseException]:
        found = []
        while exc is not None:
            found.append(exc)
            exc = exc.__cause__ or exc.__context__
        return found

    assert any(isinstance(link, CallbackBoom) for exc in handoff.c_errors for link in chain(exc)), (
        handoff.c_errors
    )
    c = handoff.members["C"]
    assert any(e.kind == "assigned" and e.partitions for e in c.events)  # it still owns some
    assert handoff.members["C"].records, "C never processed after its callback raised"


# -- seek and commit ---------------------------------------------------------------------


def test_seek_and_commit_inside_assigned(handoff: Handoff) -> None:
    assert handoff.seek_entry == {"position": SEEK_OFFSET, "committed": SEEK_OFFSET}
    p2 = (handoff.topic, 2)
    offsets = sorted(r.offset for m in handoff.members.values() for r in m.records if r.tp == p2)
    assert offsets[0] == SEEK_OFFSET, offsets[:10]


def test_close_revokes_everything_still_assigned(handoff: Handoff) -> None:
    """Java's close() revokes before leaving (onLeavePrepare), so a listener that commits on
    revoke also commits a leaving member's progress. kafka-python 3 and librdkafka do it
    themselves; aiokafka's stop() and kafka-python 2's close() do not, rebalance_guard does
    for them. (A's revocations run its BARE commit: next test.)"""
    for member in handoff.members.values():
        owned: set[TP] = set()
        for event in member.events:  # a rebalance may still finish while members close
            if event.kind == "assigned":
                owned |= event.partitions
            else:
                assert event.kind == "revoked", (member.name, event)
                owned -= event.partitions
        last = member.events[-1]
        assert last.at >= handoff.closing_at and last.partitions, (member.name, member.events)
        assert not owned, f"{member.name} closed still owning {sorted(owned)}: {member.events}"


def test_bare_commit_on_revoke_commits_the_revoked_positions(handoff: Handoff) -> None:
    revocations = [e for e in handoff.logs["A"] if e.kind == "revoked" and e.partitions]
    assert revocations, "A was never asked to revoke anything"
    for entry in revocations:
        # librdkafka has no position for a partition not read from since it was assigned
        consumed = entry.partitions & entry.consumed_before
        assert all(entry.positions[tp] is not None for tp in consumed), entry.positions
        if entry.committed:  # not queried during close()
            for tp, position in entry.positions.items():
                if position is not None:
                    assert entry.committed[tp] == position, entry
    assert any(entry.committed for entry in revocations), "no revocation outside close()"


def test_explicit_commit_on_revoke_and_every_message_once(handoff: Handoff) -> None:
    for entry in handoff.logs["B"]:
        if entry.kind == "revoked":
            assert all(value is not None for value in entry.committed.values()), entry
    counts: dict[int, int] = {}
    for value in handoff.processed:
        counts[value] = counts.get(value, 0) + 1
    duplicated = sorted(v for v, n in counts.items() if n > 1)
    assert not duplicated, f"{len(duplicated)} processed twice: {duplicated[:20]}"
    assert set(counts) == handoff.expected, sorted(handoff.expected - set(counts))[:20]


# -- subscription change (KIP-70) --------------------------------------------------------


@dataclass
class Shrink:
    client: str
    kept: set[TP]
    removed: set[TP]
    right_after_subscribe: set[TP]
    entries: list[Entry]
    final: set[TP]
    consumed: dict[TP, int]


def run_shrink(broker: Broker, driver: Any, protocol: str) -> Shrink:
    kept_topic = broker.create_topic(partitions=2)
    removed_topic = broker.create_topic(partitions=2)
    kept = {(kept_topic, p) for p in range(2)}
    removed = {(removed_topic, p) for p in range(2)}
    entries: list[Entry] = []
    closing = threading.Event()

    async def script(kind: str, partitions: set[TP], ops: Ops) -> None:
        entry = Entry(kind, set(partitions), await ops.assignment())
        entries.append(entry)
        if kind == "revoked" and not closing.is_set():
            entry.positions = {tp: await ops.position(tp) for tp in sorted(partitions)}
            await ops.commit()
            entry.committed = {tp: await ops.committed(tp) for tp in sorted(partitions)}

    for topic in (kept_topic, removed_topic):
        produce(broker.bootstrap, topic, range(10), 2)
    member = driver.member(
        broker.bootstrap, broker.group(), [kept_topic, removed_topic], protocol, script, "D"
    )
    try:
        wait_until(lambda: len(member.records) >= 20, "D to process both topics", [member])
        consumed = dict(member.next_offsets)
        right_after = member.subscribe([kept_topic])
        wait_until(
            lambda: any(e.kind == "revoked" and e.partitions & removed for e in entries),
            "the revocation of the removed topic", [member], 90,
        )  # fmt: skip
        wait_until(lambda: member.assignment() == kept, "only the kept topic", [member], 90)
        final = member.assignment()
    finally:
        closing.set()
        member.close()
    return Shrink(driver.name, kept, removed, set(right_after), entries, final, consumed)


@pytest.fixture(scope="module", params=TARGETS)
def shrink(request: pytest.FixtureRequest, broker: Broker) -> Shrink:
    driver, protocol = load_target(request.param, broker)
    return run_shrink(broker, driver, protocol)


#: Clients whose consumer (outside any callback, not the view) drops the removed topics'
#: partitions from ``assignment()`` at ``subscribe()`` instead of at the next poll.
DROPS_AT_SUBSCRIBE = {
    "aiokafka": "aiokafka's subscribe() replaces its subscription object at once, so the "
    "consumer's own assignment() is empty until the rebalance; the view inside the "
    "revocation still shows the removed partitions (asserted below)"
}


def test_subscribing_to_fewer_topics_revokes_them_on_the_next_poll(shrink: Shrink) -> None:
    if shrink.client not in DROPS_AT_SUBSCRIBE:
        assert shrink.right_after_subscribe >= shrink.removed, "dropped before the next poll"
    revocation = next(
        e for e in shrink.entries if e.kind == "revoked" and e.partitions & shrink.removed
    )
    assert revocation.partitions >= shrink.removed
    assert revocation.during >= revocation.partitions
    for tp in shrink.removed:  # the bare commit covered the removed topic's partitions
        assert revocation.positions[tp] == shrink.consumed[tp], revocation
        assert revocation.committed[tp] == shrink.consumed[tp], revocation
    assert shrink.final == shrink.kept
