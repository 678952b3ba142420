"""The case drivers test_migrated_shapes_on_broker_6.py to _9.py share: each runs a migrated
program's handover on the test broker (A joins, B joins and leaves: ``join_share_leave``) and
makes one shape's checks, for kafka-python and aiokafka alike. What differs between the clients
is passed in: how a member is started (``start``), how a view's commit and a listener's
revocation are observed (``Observed``: plain or coroutine methods) and the assignor's split
(``split``: aiokafka's cases check it, kafka-python's leave it to the client). Which broken
source each check was shown to fail on is told by the docstring of the module whose case it is.
"""

# ruff: noqa: E501  (expected codemod output lines are compared verbatim)

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rebalance_guard.aiokafka import AIOKafkaRebalanceView
from rebalance_guard.aiokafka import RebalanceListener as AIOKafkaListener
from rebalance_guard.kafka_python import KafkaPythonRebalanceView
from rebalance_guard.kafka_python import RebalanceListener as KafkaPythonListener

from tests.integration.broker import Broker
from tests.integration.test_migrated_shapes_on_broker import (
    PARTITIONS,
    Member,
    Stream,
    committed,
    end_offsets,
    load,
    migrated_source,
    scenario,
)
from tests.integration.test_migrated_shapes_on_broker_2 import (
    assert_callbacks_through_the_view,
    assert_exactly_once_across_handovers,
    join_share_leave,
    record_registrations,
)

BASE_CALLBACKS = ("on_partitions_assigned", "on_partitions_revoked")
#: the check of the leaver's partitions once A and B share the topic (the assignor's split)
Split = Callable[[set[int]], None]


def any_split(leaver_owned: set[int]) -> None:
    """kafka-python's cases: whichever split the client's assignor made."""


def owned_by_registered(listeners: dict[int, Any], m: Member) -> Callable[[], set[int] | None]:
    """The member's partitions as the listener registered on its consumer tracks them (None
    before it is registered)."""

    def tracked() -> set[int] | None:
        listener = listeners.get(id(m.consumer))
        return None if listener is None else {tp.partition for tp in set(listener.owned)}

    return tracked


# --------------------------------------------------------------------------- the migrated sources
# The kafka-python and aiokafka twins of each program migrate to the same lines but for the
# coroutine callbacks (``async def``, ``await``), their annotation (``AbstractSet[...]``,
# rebalance_guard.aiokafka's signature; kafka-python's keep ``set``) and how the consumer is
# created and started; each function checks its program's lines verbatim for either client.


def _callback_text(client: str) -> tuple[str, str, str]:
    """``(async, await, the partitions' annotation)`` of the client's migrated callbacks."""
    if client == "aiokafka":
        return "async ", "await ", "AbstractSet[TopicPartition]"
    assert client == "kafka_python", client
    return "", "", "set[TopicPartition]"


def _consumer_created(client: str) -> str:
    """The program's line(s) creating its consumer, as each client's twin writes them."""
    if client == "aiokafka":
        return (
            "    consumer = AIOKafkaConsumer(\n"
            "        bootstrap_servers=servers, group_id=group_id, enable_auto_commit=False\n"
            "    )\n"
        )
    return "    consumer = KafkaConsumer(bootstrap_servers=servers, group_id=group_id, enable_auto_commit=False)\n"


#: the line starting the consumer after its subscription (aiokafka's only)
_STARTED = {"aiokafka": "    await consumer.start()\n", "kafka_python": ""}


def migrated_super_callbacks(client: str) -> str:
    """``super_callbacks_{client}`` migrated, the lines that matter checked."""
    source = migrated_source(f"super_callbacks_{client}")
    async_, await_, partitions = _callback_text(client)
    code = source.partition('"""\n')[2]  # after the module docstring
    if client == "aiokafka":
        assert (
            "from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener\n"
            in source
        )
        assert "ConsumerRebalanceListener" not in code
    assert "class CommittingListener(RebalanceListener):\n" in source
    assert (
        f"    {async_}def on_partitions_assigned(self, assigned: {partitions}, consumer: RebalanceConsumer) -> None:\n"
        "        self.owned |= set(assigned)\n"
        '        log.info("partitions assigned %s", sorted(assigned))\n'
        "        super().on_partitions_assigned(assigned, consumer)\n"
    ) in source
    assert (
        f"    {async_}def on_partitions_revoked(self, revoked: {partitions}, consumer: RebalanceConsumer) -> None:\n"
    ) in source
    assert f"        if offsets:\n            {await_}consumer.commit(offsets)\n" in source
    assert (
        '        log.info("partitions revoked %s", sorted(revoked))\n'
        "        super().on_partitions_revoked(revoked, consumer)\n"
    ) in source
    assert "    def __init__(self, processed: dict[TopicPartition, int]) -> None:\n" in source
    # the injection went: the commit is on the view (aiokafka's docstring names self.consumer)
    assert "self.consumer" not in (code if client == "aiokafka" else source)
    assert (
        "    set_rebalance_listener(consumer, CommittingListener(processed))\n"
        "    consumer.subscribe([topic])\n" + _STARTED[client]
    ) in source
    return source


def _assert_guarded_revocation(source: str, client: str, view: str) -> None:
    """The None-tested programs' migrated listener: its revocation takes the view as ``view``
    and both the None test and the commit are of it."""
    async_, await_, partitions = _callback_text(client)
    assert "class Listener(RebalanceListener):\n" in source
    assert (
        f"    {async_}def on_partitions_revoked(self, revoked: {partitions}, {view}: RebalanceConsumer) -> None:\n"
    ) in source
    assert (
        f"        if pending and {view} is not None:\n"
        f"            {await_}{view}.commit(pending)\n"
        "        self.owned -= set(revoked)\n"
    ) in source


def migrated_none_tested_global(client: str) -> str:
    """``none_tested_global_{client}`` migrated, the lines that matter checked."""
    source = migrated_source(f"none_tested_global_{client}")
    async_, _, partitions = _callback_text(client)
    _assert_guarded_revocation(source, client, "rebalance_consumer")
    assert (
        f"    {async_}def on_partitions_assigned(self, assigned: {partitions}, consumer: RebalanceConsumer) -> None:\n"
    ) in source
    assert "\nconsumer = None\n" in source  # the module's global stays, set by main()
    assert (
        "    global consumer\n"
        + _consumer_created(client)
        + "    set_rebalance_listener(consumer, Listener())\n"
        "    consumer.subscribe([topic])\n" + _STARTED[client]
    ) in source
    return source


def migrated_none_tested_injected(client: str) -> str:
    """``none_tested_injected_{client}`` migrated, the lines that matter checked."""
    source = migrated_source(f"none_tested_injected_{client}")
    _assert_guarded_revocation(source, client, "consumer")
    assert "self.consumer" not in source.partition('"""\n')[2]  # the injection went
    assert (
        "    set_rebalance_listener(consumer, Listener(processed))\n    consumer.subscribe([topic])\n"
    ) in source
    return source


def migrated_parameter_listener(client: str) -> str:
    """``parameter_listener_{client}`` migrated, the lines that matter checked."""
    source = migrated_source(f"parameter_listener_{client}")
    async_, _, partitions = _callback_text(client)
    assert "class StoredOffsets(RebalanceListener):\n" in source
    assert (
        f"    {async_}def on_partitions_revoked(self, revoked: {partitions}, consumer: RebalanceConsumer) -> None:\n"
        "        self.worker.save(revoked)\n"
    ) in source
    assert (
        f"    {async_}def on_partitions_assigned(self, assigned: {partitions}, consumer: RebalanceConsumer) -> None:\n"
        "        self.worker.take(assigned)\n"
    ) in source
    if client == "aiokafka":
        # the worker's methods the callbacks hand their partitions to are widened with them
        assert "    def save(self, partitions: AbstractSet[TopicPartition]) -> None:\n" in source
        assert "    def take(self, partitions: AbstractSet[TopicPartition]) -> None:\n" in source
    assert (
        _consumer_created(client) + "    set_rebalance_listener(consumer, rebalance_listener)\n"
        "    consumer.subscribe([topic])\n"
        "    return consumer\n"
    ) in source
    assert (
        "        self.consumer = connect_kafka_consumer(servers, topic, group_id, StoredOffsets(self))\n"
        in source
    )
    return source


# --------------------------------------------------------------------------- super() calls


def super_calls_on_the_broker(
    broker: Broker,
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    base: type,
    start: Callable[[Member, str, str], Member],
    split: Split = any_split,
) -> None:
    """The ``super()`` case: A joins, B joins and leaves, each running the migrated program's
    ``CommittingListener`` (started by ``start(member, topic, group)``); ``base`` is the
    client's rebalance_guard ``RebalanceListener``, whose callbacks are wrapped to see what
    ``super()`` hands them. Checks the split, exactly-once, the view, and that each callback
    the client made reached the base's once, with its partitions and its view."""
    #: the base's callbacks as super() reached them: (listener, name, partitions, view)
    base_calls: list[tuple[Any, str, frozenset[int], Any]] = []
    for callback in BASE_CALLBACKS:
        original = getattr(base, callback)

        def reached_base(
            self: Any, partitions: Any, consumer: Any, /, _f: Any = original, _n: str = callback
        ) -> Any:
            base_calls.append((self, _n, frozenset(tp.partition for tp in partitions), consumer))
            return _f(self, partitions, consumer)

        monkeypatch.setattr(base, callback, functools.wraps(original)(reached_base))
    topic, group = broker.create_topic(PARTITIONS), broker.group()

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.CommittingListener)
        listeners = record_registrations(module, "set_rebalance_listener")

        def member(label: str) -> Member:
            m = Member(run, label)
            m.tracked = owned_by_registered(listeners, m)
            return start(m, topic, group)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")
    split(done.leaver_owned)

    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, listeners[id(done.a.consumer)])
    assert {type(c.listener) for c in run.calls} == {module.CommittingListener}
    # each callback the client made reached the base's once, with its partitions and its view
    made = Counter((id(c.listener), c.name, c.partitions, id(c.consumer)) for c in run.calls)
    reached = Counter((id(li), n, p, id(v)) for li, n, p, v in base_calls)
    assert reached == made, (base_calls, run.calls)
    assert {n for _, n, _, _ in base_calls} == set(BASE_CALLBACKS)


# --------------------------------------------------------------------------- None-tested consumers

#: ``note(view, {partition: offset})`` once a commit through a view has returned
NoteCommit = Callable[[Any, dict[int, int]], None]
#: ``note(listener, revoked, view)`` as a revocation begins
NoteRevocation = Callable[[Any, Any, Any], None]


@dataclass(frozen=True)
class Observed:
    """How a client's view commits and listener revocations are observed: ``listener`` is its
    rebalance_guard ``RebalanceListener`` (the migrated program's base), ``view`` its rebalance
    view class, ``commit(original, note)`` the view's ``commit`` noting each commit,
    ``revoke(original, note)`` a listener's ``on_partitions_revoked`` noting each revocation."""

    listener: type
    view: Any
    commit: Callable[[Any, NoteCommit], Any]
    revoke: Callable[[Any, NoteRevocation], Any]


def _kafka_python_commit(view_commit: Any, note: NoteCommit) -> Any:
    @functools.wraps(view_commit)
    def noting_commit(self: Any, offsets: Any = None, *args: Any, **kwargs: Any) -> Any:
        result = view_commit(self, offsets, *args, **kwargs)
        note(self, {tp.partition: o.offset for tp, o in (offsets or {}).items()})
        return result

    return noting_commit


def _kafka_python_revoke(revoke: Any, note: NoteRevocation) -> Any:
    @functools.wraps(revoke)
    def noting_revoke(self: Any, revoked: Any, view: Any) -> Any:
        note(self, revoked, view)
        return revoke(self, revoked, view)

    return noting_revoke


def _partition_offsets(offsets: Any) -> dict[int, int]:
    """aiokafka's commit argument (offsets as ints or ``OffsetAndMetadata``) by partition."""
    return {
        tp.partition: (o if isinstance(o, int) else o.offset) for tp, o in (offsets or {}).items()
    }


def _aiokafka_commit(view_commit: Any, note: NoteCommit) -> Any:
    """The commit noted once its coroutine is awaited to its end."""

    @functools.wraps(view_commit)
    def noting_commit(self: Any, offsets: Any = None) -> Coroutine[Any, Any, Any]:
        pending = view_commit(self, offsets)

        async def landed() -> Any:
            result = await pending
            note(self, _partition_offsets(offsets))
            return result

        return landed()

    return noting_commit


def _aiokafka_revoke(revoke: Any, note: NoteRevocation) -> Any:
    @functools.wraps(revoke)
    async def noting_revoke(self: Any, revoked: Any, view: Any) -> Any:
        note(self, revoked, view)
        return await revoke(self, revoked, view)

    return noting_revoke


KAFKA_PYTHON = Observed(
    KafkaPythonListener, KafkaPythonRebalanceView, _kafka_python_commit, _kafka_python_revoke
)
AIOKAFKA = Observed(AIOKafkaListener, AIOKafkaRebalanceView, _aiokafka_commit, _aiokafka_revoke)


@dataclass(frozen=True)
class GuardedProgram:
    """A None-tested program: its name, its migrated source, how a member is started
    (``start(module, member, topic, group)``) and the processed offsets a revocation commits
    from (``processed(module, listener)``)."""

    name: str
    source: str
    start: Callable[[Any, Member, str, str], Member]
    processed: Callable[[Any, Any], dict[Any, int]]


def guarded_commit_on_the_broker(
    broker: Broker,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    program: GuardedProgram,
    client: Observed,
    split: Split = any_split,
) -> tuple[dict[str, Any], dict[str, Member]]:
    """A joins, B joins and leaves, each member loading the migrated program on its own (as
    its own process would) and started by ``program.start``; checks the split, the view, the
    guarded commits (``program.processed``: the program's processed offsets a revocation
    commits from), exactly-once and the leaver's commit. Returns each member's module and the
    members, by label."""
    name, source, processed = program.name, program.source, program.processed
    #: every commit made through a view (aiokafka: awaited to its end): (view, {partition: offset})
    commits: list[tuple[Any, dict[int, int]]] = []
    noting_commit = client.commit(client.view.commit, lambda v, o: commits.append((v, o)))
    monkeypatch.setattr(client.view, "commit", noting_commit)
    #: every revocation: (listener, view, {partition: processed offset} when it began)
    revocations: list[tuple[Any, Any, dict[int, int]]] = []
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    modules: dict[str, Any] = {}
    members: dict[str, Member] = {}
    listeners: dict[str, dict[int, Any]] = {}

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:

        def member(label: str) -> Member:
            (tmp_path / label).mkdir()
            module: Any = load(source, tmp_path / label, name)
            modules[label] = module
            assert module.RebalanceListener is client.listener
            m = members[label] = Member(run, label)
            run.observe(module.Listener)

            def noted(listener: Any, revoked: Any, view: Any) -> None:
                offsets = processed(module, listener)
                held = {tp.partition: offsets[tp] for tp in revoked if tp in offsets}
                revocations.append((listener, view, held))

            module.Listener.on_partitions_revoked = client.revoke(
                module.Listener.on_partitions_revoked, noted
            )
            registered = listeners[label] = record_registrations(module, "set_rebalance_listener")
            m.tracked = owned_by_registered(registered, m)
            return program.start(module, m, topic, group)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")
    split(done.leaver_owned)

    listener = {label: listeners[label][id(m.consumer)] for label, m in members.items()}
    assert_exactly_once_across_handovers(run, done)
    assert_callbacks_through_the_view(run, listener["A"])
    assert {type(c.listener) for c in run.calls} == {modules["A"].Listener, modules["B"].Listener}
    # every revocation the client made went through the wrapper above, with the same view
    revoked_calls = [c for c in run.calls if c.name == "on_partitions_revoked"]
    assert len(revoked_calls) == len(revocations)
    assert {id(c.consumer) for c in revoked_calls} == {id(v) for _, v, _ in revocations}
    # the guarded commit ran through the view on every revocation with processed offsets of
    # its partitions, committing exactly those, once; none on any other
    by_view: dict[int, list[dict[int, int]]] = {}
    for view, offsets in commits:
        by_view.setdefault(id(view), []).append(offsets)
    views = {id(v) for _, v, _ in revocations}
    assert set(by_view) <= views, "a commit through a view that is not a revocation's"
    for li, view, held in revocations:
        assert by_view.get(id(view), []) == ([held] if held else []), (li, held, commits)
    for label in ("A", "B"):
        assert any(held for li, _, held in revocations if li is listener[label]), label
    # the leaver's last commit (its close's revocation; aiokafka: its stop()'s) is the group's
    # offset of its partitions
    leaver_views = [id(v) for li, v, _ in revocations if li is listener["B"]]
    last = [o for v, o in commits if id(v) in leaver_views][-1]
    assert set(last) == done.leaver_owned, (last, done.leaver_owned)
    assert last == {p: done.at_leave[p] for p in last}
    return modules, members


# --------------------------------------------------------------------------- parameter_listeners


def stored_offsets_on_the_broker(
    broker: Broker,
    module: Any,
    base: type,
    topic_partition: Callable[[str, int], Any],
    start: Callable[[Member, Callable[[], Any]], Member],
    split: Split = any_split,
) -> None:
    """The ``parameter_listeners`` case: A joins, B joins and leaves, each running a
    ``module.Worker`` whose ``StoredOffsets`` listener it creates and hands to the subscribing
    function (started by ``start(member, make_worker)``: ``make_worker()`` creates the
    member's worker, its consumer the member's); ``base`` is the client's rebalance_guard
    ``RebalanceListener``, ``topic_partition`` its ``TopicPartition``. Checks the split, that
    nothing is committed to Kafka, the leaver's last save, exactly-once, the store at every
    end, that the caller's listener is the one registered, and the view."""
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    workers: dict[str, Any] = {}
    #: every save: (worker, {partition: the position stored})
    saves: list[tuple[Any, dict[int, int]]] = []
    save = module.Worker.save

    @functools.wraps(save)
    def noting_save(self: Any, partitions: Any) -> None:
        save(self, partitions)
        saves.append((self, {tp.partition: module.STORE.get(tp, -1) for tp in partitions}))

    module.Worker.save = noting_save
    #: the listener each worker created (the caller's), by the worker's id
    created: dict[int, Any] = {}
    init = module.StoredOffsets.__init__

    @functools.wraps(init)
    def noting_init(self: Any, worker: Any) -> None:
        init(self, worker)
        created.setdefault(id(worker), self)  # the first: Worker() creates it

    module.StoredOffsets.__init__ = noting_init

    with scenario() as run, Stream(broker.bootstrap, topic) as stream:
        run.observe(module.StoredOffsets)
        listeners = record_registrations(module, "set_rebalance_listener")

        def member(label: str) -> Member:
            m = Member(run, label)
            m.tracked = lambda: (
                {tp.partition for tp in set(workers[label].owned)} if label in workers else None
            )

            def make_worker() -> Any:
                worker = workers[label] = module.Worker(broker.bootstrap, topic, group)
                m.consumer = worker.consumer
                return worker

            return start(m, make_worker)

        done = join_share_leave(run, stream, broker, group, topic, member, leaver="B")
        at_end = committed(broker.bootstrap, group, topic)
    split(done.leaver_owned)

    assert {p: o for p, o in at_end.items() if o >= 0} == {}, "the program commits nothing"
    # the leaver's close (aiokafka: its stop()) saved its partitions where processing had got to
    leaver_saves = [s for w, s in saves if w is workers["B"]]
    assert leaver_saves, saves
    done.at_leave = leaver_saves[-1]
    assert_exactly_once_across_handovers(run, done)
    # the store holds every partition's end (A's close, or stop(), saved them all)
    stored = {tp.partition: o for tp, o in module.STORE.items() if tp.topic == topic}
    assert stored == end_offsets(run)
    assert set(module.STORE) == {topic_partition(topic, p) for p in range(PARTITIONS)}
    # the listener the caller created is the one registered on its worker's consumer
    for label, worker in workers.items():
        listener = listeners[id(worker.consumer)]
        assert listener is created[id(worker)] and listener.worker is worker, label
        assert isinstance(listener, base)
    assert_callbacks_through_the_view(run, listeners[id(done.a.consumer)])
    assert {type(c.listener) for c in run.calls} == {module.StoredOffsets}
