"""KIP-1306 lost lifecycle on the real broker: a member stalls past its session, then polls.

Members L and M share a topic. L processes messages it never commits, then its polling thread
stalls (a blocking ``time.sleep``, as a stuck handler would) for longer than both
``max.poll.interval.ms`` and ``session.timeout.ms``. The group moves on without it (L leaves
on its own poll timer, or the broker expires its session) and M takes every partition. When L
polls again its partitions are gone: the client must call ``on_partitions_lost`` (not
``on_partitions_revoked``) for them, and nothing L does in that callback may commit its stale
progress over partitions another member now owns. L then rejoins and is assigned again.

How each client gets there (all observed on tansu): kafka-python 3 and confluent-kafka
(librdkafka's MAXPOLL) leave the group from their background thread when the poll timer
expires and call their own lost callback at the next poll; kafka-python 2 and aiokafka (whose
loop is blocked, so the broker expires the session) call ``on_partitions_revoked`` on a member
without a generation, which rebalance_guard dispatches to ``on_partitions_lost`` as Java does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from rebalance_guard import RebalanceViewExpiredError

from tests.conformance.conftest import TARGETS, load_target
from tests.conformance.driver import TP, Member, Ops, produce, wait_until
from tests.integration.broker import GROUP_TIMEOUTS, Broker

PARTITIONS = 4
#: Longer than max_poll_interval (10 s) and session timeout (6 s), with room to notice.
STALL_S = GROUP_TIMEOUTS["max_poll_interval_ms"] / 1000 + 4


@dataclass
class LostEntry:
    kind: str
    partitions: set[TP]
    during: set[TP]  # the view's assignment() inside the callback
    position: object = None  # what position() of a lost partition answered, or raised
    bare_commit: BaseException | None = None  # what a bare commit() raised (None: returned)
    explicit_commit: BaseException | None = None  # commit of L's consumed positions
    committed_after: dict[TP, int | None] = field(default_factory=dict)
    expired_ops: Ops | None = None


@dataclass
class Lost:
    client: str
    protocol: str
    owned_before_stall: set[TP]
    consumed_before_stall: dict[TP, int]  # L's next offsets, never committed
    entries: list[LostEntry]
    m_owned_most: set[TP]  # the most M owned between the stall's start and L's lost
    l_assigned_after: set[TP]


async def _attempt(call: Any) -> BaseException | None:
    try:
        await call
    except Exception as exc:
        return exc
    return None


def run_lost(broker: Broker, driver: Any, protocol: str) -> Lost:
    topic = broker.create_topic(partitions=PARTITIONS)
    group = broker.group()
    everything = {(topic, p) for p in range(PARTITIONS)}
    entries: list[LostEntry] = []
    members: dict[str, Member] = {}

    async def script_l(kind: str, partitions: set[TP], ops: Ops) -> None:
        entry = LostEntry(kind, set(partitions), await ops.assignment())
        entries.append(entry)
        if kind != "lost":
            return
        consumed = members["L"].next_offsets
        try:
            entry.position = await ops.position(min(partitions))
        except Exception as exc:
            entry.position = exc
        entry.bare_commit = await _attempt(ops.commit())
        offsets = {tp: consumed[tp] for tp in partitions if tp in consumed}
        entry.explicit_commit = await _attempt(ops.commit_offsets(offsets))
        for tp in sorted(partitions):
            try:
                entry.committed_after[tp] = await ops.committed(tp)
            except Exception:  # asked of the broker; an error there is no commit either
                entry.committed_after[tp] = None
        entry.expired_ops = ops

    all_members: list[Member] = []
    try:
        produce(broker.bootstrap, topic, range(40), PARTITIONS)
        lm = members["L"] = driver.member(broker.bootstrap, group, [topic], protocol, script_l, "L")
        all_members.append(lm)
        wait_until(lambda: len(lm.records) >= 40, "L to process", all_members, 90)
        mm = members["M"] = driver.member(
            broker.bootstrap, group, [topic], protocol, _no_script, "M"
        )
        all_members.append(mm)

        def shared() -> bool:
            owned = [m.assignment() for m in all_members]
            return all(owned) and owned[0] | owned[1] == everything and not owned[0] & owned[1]

        wait_until(shared, "L and M to share", all_members, 90)
        owned = lm.assignment()
        produce(broker.bootstrap, topic, range(40, 80), PARTITIONS)
        wanted = {v for v in range(40, 80) if (topic, v % PARTITIONS) in owned}
        wait_until(lambda: wanted <= {r.value for r in lm.records}, "L to process its share",
                   all_members)  # fmt: skip
        consumed = {tp: lm.next_offsets[tp] for tp in owned}
        entries.clear()  # from here on: the stall and what follows

        def stall() -> None:
            """Past both timeouts, and on until M owns everything (the group moved on: a
            client hiccup, e.g. a SyncGroup kafka-python 2 cancels under load, can delay
            that), so L's partitions are another member's when L polls again."""
            time.sleep(STALL_S)
            deadline = time.monotonic() + 60
            while _most_owned(mm, stall_started, time.monotonic()) != everything and (
                time.monotonic() < deadline
            ):
                time.sleep(0.1)

        stall_started = time.monotonic()
        lm.call(stall, timeout=STALL_S + 120)  # L's polling thread: nothing polls meanwhile
        wait_until(lambda: any(e.kind == "lost" for e in entries) or any(
            e.kind == "revoked" and e.partitions for e in entries
        ), "L's lost callback", all_members, 60)  # fmt: skip
        wait_until(lambda: any(e.kind == "assigned" and e.partitions for e in entries),
                   "L to be assigned again", all_members, 90)  # fmt: skip
        l_after = next(e.partitions for e in entries if e.kind == "assigned" and e.partitions)
        lost_at = next((e.at for e in lm.events if e.kind == "lost"), time.monotonic())
    finally:
        for member in all_members:
            member.close()
    m_most = _most_owned(mm, stall_started, lost_at)
    return Lost(driver.name, protocol, owned, consumed, list(entries), m_most, l_after)


def _most_owned(member: Member, since: float, until: float) -> set[TP]:
    """The largest set ``member`` owned at one time within [since, until]."""
    owned: set[TP] = set()
    most: set[TP] = set()
    for event in member.events:
        if event.at > until:
            break
        if event.kind == "assigned":
            owned |= event.partitions
        else:
            owned -= event.partitions
        if event.at >= since and len(owned) > len(most):
            most = set(owned)
    return most


async def _no_script(kind: str, partitions: set[TP], ops: Ops) -> None:
    return None


@pytest.fixture(scope="module", params=TARGETS)
def lost(request: pytest.FixtureRequest, broker: Broker) -> Lost:
    driver, protocol = load_target(request.param, broker)
    return run_lost(broker, driver, protocol)


def _lost_entry(lost: Lost) -> LostEntry:
    found = [e for e in lost.entries if e.kind == "lost"]
    assert found, f"no on_partitions_lost after the stall: {lost.entries}"
    return found[0]


def test_the_group_moved_on_without_the_stalled_member(lost: Lost) -> None:
    assert lost.m_owned_most >= lost.owned_before_stall, (
        "M never took over L's partitions during the stall",
        lost.m_owned_most,
    )


def test_a_stalled_member_gets_lost_not_revoked(lost: Lost) -> None:
    entry = _lost_entry(lost)
    assert entry.partitions == lost.owned_before_stall, entry
    before = lost.entries[: lost.entries.index(entry)]
    revoked = [e for e in before if e.kind == "revoked" and e.partitions]
    assert not revoked, f"revoked before lost: {revoked}"


def test_lost_partitions_are_gone_during_the_callback(lost: Lost) -> None:
    """KIP-1306 (DESIGN rule 7): during on_partitions_lost the partitions are already gone.

    Every client (and Java's ConsumerCoordinator, which calls ``invokePartitionsLost`` before
    ``assignFromSubscribed(emptySet())``) still lists them while the callback runs; the view
    hides them: not in ``assignment()``, and ``position()`` has no answer for them.
    """
    entry = _lost_entry(lost)
    assert not entry.during & entry.partitions, entry
    assert isinstance(entry.position, Exception), entry.position  # not assigned: raises
    assert not isinstance(entry.position, (AttributeError, TypeError)), entry.position


def test_commits_in_lost_commit_nothing(lost: Lost) -> None:
    """A bare commit() commits nothing (nothing is assigned any more) and returns; an
    explicit commit of the lost partitions reaches the client, which refuses it."""
    entry = _lost_entry(lost)
    assert entry.bare_commit is None, (
        f"bare commit() in on_partitions_lost raised {entry.bare_commit!r}"
    )
    error = entry.explicit_commit
    assert error is not None, "commit(offsets) in on_partitions_lost succeeded"
    assert not isinstance(error, (AttributeError, TypeError, RebalanceViewExpiredError)), (
        f"commit(offsets) was refused by the view instead of failing in the client: {error!r}"
    )
    for tp, consumed in lost.consumed_before_stall.items():
        committed = entry.committed_after[tp]
        assert committed is None or committed < consumed, (tp, committed, consumed)


def test_the_lost_view_expires(lost: Lost) -> None:
    ops = _lost_entry(lost).expired_ops
    assert ops is not None
    coroutine = ops.assignment()
    try:
        with pytest.raises(RebalanceViewExpiredError):
            _run(coroutine)
    finally:
        coroutine.close()


def test_a_lost_member_rejoins_and_is_assigned_again(lost: Lost) -> None:
    entry = _lost_entry(lost)
    after = lost.entries[lost.entries.index(entry) + 1 :]
    assert any(e.kind == "assigned" and e.partitions for e in after), lost.entries
    assert lost.l_assigned_after


def _run(coroutine: Any) -> Any:
    import asyncio

    async def wait() -> Any:
        return await coroutine

    return asyncio.run(wait())
