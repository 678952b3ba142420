"""KIP-1306 rebalance listeners for confluent-kafka.

Callbacks receive ``(partitions, consumer)`` where ``consumer`` is a restricted
:class:`RebalanceConsumer` view, valid only while the callback runs, instead of the full
``confluent_kafka.Consumer`` that confluent passes to ``on_assign(consumer, partitions)``.

How it maps onto confluent-kafka (2.x, librdkafka underneath), and why:

* Registration: the closest honest equivalent of ``setRebalanceListener``. confluent's C
  consumer accepts rebalance callbacks only as arguments of ``subscribe()``; it has no setter,
  no ``__dict__`` and no weak references, so nothing can attach a listener to an existing
  plain ``confluent_kafka.Consumer``, and re-subscribing to change callbacks would itself
  trigger a rebalance. Two ways in, one mechanism:

  - :class:`Consumer` is a drop-in subclass whose ``subscribe()`` always installs this
    module's callbacks; they look the listener up each time librdkafka calls them (inside
    ``poll()``/``consume()``/``close()``). On it :func:`set_rebalance_listener` is the full
    KIP-1306 contract: before or after ``subscribe()``, replace, or remove with ``None``,
    effective from the next poll. ``subscribe(topics)`` keeps the registered listener; an
    explicit ``on_assign=``/``on_revoke=``/``on_lost=`` replaces it and runs exactly as
    confluent runs it (last registration wins, as in Java).
  - :func:`subscribe` subscribes any existing consumer (a plain ``Consumer``, a
    ``DeserializingConsumer``) with a listener, for code that cannot change where its
    consumer is created. The listener is then fixed for that subscription, like Java's
    ``subscribe(topics, listener)``; :func:`set_rebalance_listener` on a plain consumer raises
    ``TypeError`` saying so instead of silently doing nothing.

* Seek and pause in ``on_partitions_assigned``. librdkafka has not assigned the partitions
  yet when ``on_assign`` runs, so a raw ``seek()`` there fails (``_UNKNOWN_PARTITION``), a
  ``seek()`` right after ``assign()`` fails too (``_STATE``) and a ``pause()`` before
  ``assign()`` is silently lost. The view records seeks and pauses on the incoming
  partitions; when the callback ends (also when it raises) the adapter assigns them itself,
  with the recorded offsets, and then pauses. ``assignment()`` and ``position()`` on the
  view already show the incoming partitions and recorded offsets, as in Java.

* Protocols. What librdkafka does under each, and what the adapter does:

  - eager (``range``, ``roundrobin``; librdkafka's default): every rebalance revokes the
    whole assignment and assigns the whole new one; the callbacks must call ``assign()`` and
    ``unassign()``, and the adapter does, after each callback;
  - cooperative (``partition.assignment.strategy=cooperative-sticky``, KIP-429): callbacks
    get only the partitions that move; ``assign()`` there is refused with ``_STATE``, and
    the adapter calls ``incremental_assign()``/``incremental_unassign()``;
  - consumer (``group.protocol=consumer``, KIP-848, GA since confluent-kafka 2.12; earlier
    versions ship it as early access): the broker assigns; callbacks get only what moves,
    ``assign()``/``unassign()`` are refused, and librdkafka rejects
    ``partition.assignment.strategy``, ``session.timeout.ms`` and ``heartbeat.interval.ms``
    at construction (the broker sets them). The adapter calls the incremental methods, so a
    seek staged in ``on_partitions_assigned`` becomes the start offset of
    ``incremental_assign()``. ``on_partitions_lost`` runs when the broker fences the member.

  confluent-kafka does not expose which protocol runs (no ``rd_kafka_rebalance_protocol()``,
  confluent-kafka-python#1317), so the adapter reads it from the configuration:
  :class:`Consumer` sees its own, :func:`subscribe` takes ``protocol=`` for a consumer
  created elsewhere. Only a plain consumer subscribed without ``protocol=`` is guessed
  eager; under an incremental protocol its first ``assign()`` is refused with ``_STATE``,
  librdkafka logs one warning per consumer (``application *assign() call failed: Changes to
  the current assignment must be made using incremental_assign() ...``), and the adapter
  uses the incremental calls from then on. Pass ``protocol=`` to keep that line out of logs.

* Pause on revoked partitions is cleared. librdkafka keeps a partition's pause flag across
  ``unassign()``, so a partition paused before an eager rebalance would come back paused.
  After the revocation the adapter resumes the revoked partitions (KIP-1306, Java behaviour).

* ``commit()`` on the view is synchronous by default (``asynchronous=False``), unlike
  confluent's: an asynchronous commit in ``on_partitions_revoked`` can land after the
  partition moved. ``commit(asynchronous=True)`` is confluent's commit_async. A bare
  ``commit()`` with nothing new to commit returns ``[]`` instead of raising ``_NO_OFFSET``.

* Revoked partitions during ``on_partitions_revoked``: librdkafka calls the revocation
  before it unassigns (eager and cooperative), so they are in ``assignment()``,
  ``position()`` works and a bare ``commit()`` commits their consumed (stored) offsets; the
  adapter unassigns them after the callback. The conformance suite checks both protocols.
  librdkafka knows no position for a partition nothing was consumed from since it was
  assigned (``OFFSET_INVALID``), in ``on_partitions_assigned`` too; Java's ``position()``
  answers where consumption starts, and so does the view: the committed offset, else the
  low or high watermark by ``auto.offset.reset`` (one broker round trip, only for such
  partitions; a consumer subscribed with :func:`subscribe` does not show its reset policy,
  so there only the committed offset is added). A bare ``commit()`` has nothing to commit
  for such a partition (found by the Java oracle, docs/oracle-deviations.md).

* Exceptions from a callback propagate out of confluent's callback, so ``poll()`` (or
  ``consume()``, ``close()``) raises them, as confluent does; the adapter has assigned or
  unassigned first, so the rebalance completes and later callbacks run.

* ``on_partitions_lost`` (confluent's ``on_lost``: the member was fenced or its session
  expired) defaults to ``on_partitions_revoked``.
  librdkafka still lists the lost partitions during the callback; the view does not
  (KIP-1306: they are already gone): ``assignment()`` leaves them out, ``position()``
  raises ``KafkaException`` (``_STATE``: not assigned, as kafka-python's view and Java's
  ``IllegalStateException``) and a bare ``commit()`` returns ``[]``, committing
  nothing (librdkafka loses the whole assignment at once and would try the lost
  partitions' stored offsets, and fail).

* ``close()`` of a :class:`Consumer` first runs ``on_partitions_revoked`` with the whole
  assignment, while the member is still in the group, as Java does before it leaves; then
  librdkafka's close runs, and its own revocation only unassigns (the listener hears of
  each partition once, and nothing of an assignment still pending when ``close()`` began:
  Java delivers none). librdkafka's order cannot be relied on: closing while an
  assignment callback is pending (right after a cooperative rebalance) it turns that
  assignment into an unassignment and leaves the group before the revocation runs, so a
  commit there has nothing left to commit or fails with ``UNKNOWN_MEMBER_ID``
  (``ClosingRevocation``). A plain consumer subscribed with :func:`subscribe` keeps
  librdkafka's order: close it after ``unsubscribe()`` has been polled through, or use
  :class:`Consumer`. During the close ``committed()`` times out: librdkafka no longer
  answers offset fetches once the consumer is closing (raw confluent alike).

* Slow callbacks: every callback is timed, and one taking longer than the listener's
  ``callback_logging.slow_after`` (:class:`rebalance_guard.CallbackLogging`, one second by
  default) logs one WARNING on the ``rebalance_guard`` logger naming the callback, the client,
  the number of partitions, the duration, the protocol and what the group goes through
  meanwhile; every callback also logs one record at ``callback_logging.level`` (DEBUG) with
  what it did through the view. librdkafka warns about no slow callback of its own; past
  ``max.poll.interval.ms`` it leaves the group and the partitions are lost.

Listener methods must be plain ``def``: confluent calls callbacks synchronously from the
polling thread and cannot await. Legacy one-argument methods ``(self, partitions)`` are
called without the view. confluent's own ``on_assign``/``on_revoke``/``on_lost`` callbacks
keep working unchanged, also through :class:`Consumer`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

import confluent_kafka
from confluent_kafka import KafkaException, TopicPartition

from rebalance_guard._confluent_common import (
    ClosingRevocation,
    Handler,
    Key,
    ProtocolGuess,
    RebalanceProtocol,
    StagingView,
    bind,
    checked_protocol,
    copies,
    is_state_error,
    key,
    nothing_to_commit,
    protocol_of,
    reset_of,
)
from rebalance_guard._observe import CallbackLogging
from rebalance_guard._view import forward, live

if TYPE_CHECKING:
    from confluent_kafka import Message
    from confluent_kafka.admin._metadata import ClusterMetadata

__all__ = [
    "ConfluentRebalanceView",
    "Consumer",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
    "subscribe",
]

T = TypeVar("T")

#: confluent's rebalance callback signature: ``on_assign(consumer, partitions)``.
ConfluentCallback = Callable[[confluent_kafka.Consumer, list[TopicPartition]], None]


class RebalanceConsumer(Protocol):
    """What a rebalance callback may do with the consumer (KIP-1306), in confluent's names.

    confluent has no ``seek_to_beginning``/``seek_to_end``, ``paused()`` or lag: seek to
    ``OFFSET_BEGINNING``/``OFFSET_END``; ``get_watermark_offsets`` gives the beginning and end
    offsets. ``memberid`` and ``consumer_group_metadata`` are the group metadata.
    """

    @overload
    def commit(self, *, asynchronous: Literal[False] = False) -> list[TopicPartition]: ...
    @overload
    def commit(
        self, *, message: Message[Any, Any], asynchronous: Literal[False] = False
    ) -> list[TopicPartition]: ...
    @overload
    def commit(
        self, *, offsets: list[TopicPartition], asynchronous: Literal[False] = False
    ) -> list[TopicPartition]: ...
    @overload
    def commit(
        self,
        *,
        message: Message[Any, Any] | None = None,
        offsets: list[TopicPartition] | None = None,
        asynchronous: Literal[True],
    ) -> None: ...
    def committed(
        self, partitions: list[TopicPartition], timeout: float = -1
    ) -> list[TopicPartition]: ...
    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]: ...
    def seek(self, partition: TopicPartition) -> None: ...
    def assignment(self) -> list[TopicPartition]: ...
    def pause(self, partitions: list[TopicPartition]) -> None: ...
    def resume(self, partitions: list[TopicPartition]) -> None: ...
    def get_watermark_offsets(
        self, partition: TopicPartition, timeout: float = -1, cached: bool = False
    ) -> tuple[int, int]: ...
    def offsets_for_times(
        self, partitions: list[TopicPartition], timeout: float = -1
    ) -> list[TopicPartition]: ...
    def list_topics(self, topic: str | None = None, timeout: float = -1) -> ClusterMetadata: ...
    def consumer_group_metadata(self) -> object: ...
    def memberid(self) -> str: ...


class RebalanceListener:
    """KIP-1306 listener: each method gets the partitions and a view valid during the call.

    ``on_partitions_lost`` defaults to ``on_partitions_revoked``; override it to skip commits
    for partitions that are already owned elsewhere.
    """

    #: How the callbacks are logged: when one is slow, and the level of its record.
    callback_logging: CallbackLogging = CallbackLogging()

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer, /
    ) -> None:
        return None

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer, /
    ) -> None:
        return None

    def on_partitions_lost(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer, /
    ) -> None:
        self.on_partitions_revoked(partitions, consumer)


class ConfluentRebalanceView(StagingView):
    """The runtime :class:`RebalanceConsumer`: confluent's permitted methods, until expiry.

    In ``on_partitions_assigned`` seeks and pauses on the incoming partitions are recorded
    for the adapter to apply with the assignment (librdkafka refuses them before it).
    """

    __slots__ = ()

    committed = forward("committed")
    get_watermark_offsets = forward("get_watermark_offsets")
    offsets_for_times = forward("offsets_for_times")
    list_topics = forward("list_topics")
    consumer_group_metadata = forward("consumer_group_metadata")
    memberid = forward("memberid")

    def commit(
        self,
        *,
        message: Any = None,
        offsets: list[TopicPartition] | None = None,
        asynchronous: bool = False,
    ) -> list[TopicPartition] | None:
        """confluent's commit, synchronous unless ``asynchronous=True`` is asked for.

        A bare synchronous ``commit()`` with nothing consumed since the last commit returns
        ``[]`` (Java's ``commitSync()`` is a no-op then) where librdkafka raises
        ``_NO_OFFSET``: a revocation often has nothing new to commit. It also commits, as
        Java's does, where consumption of a partition nothing was consumed from would start
        (:meth:`position`), when that is known and nothing is committed for it yet.
        """
        self._check("commit")
        if self._gone and self._nothing_left(message, offsets, self._target.assignment()):
            return None if asynchronous else []
        bare = message is None and offsets is None and not asynchronous
        try:
            result: list[TopicPartition] | None = self._target.commit(
                message=message, offsets=offsets, asynchronous=asynchronous
            )
        except KafkaException as exc:
            if not nothing_to_commit(exc, bare):
                raise
            result = []
        if bare and result is not None:
            result += self._commit_starts()
        return result

    def _commit_starts(self) -> list[TopicPartition]:
        """Commit the start offset of each owned partition nothing was consumed from and
        nothing is committed for (Java's ``commitSync()`` commits every position)."""
        owned = self._not_gone(self._target.assignment())
        unknown = self._unknown(self._target.position(copies(owned))) if owned else []
        starts = self._starts(unknown, self._resolve(unknown)) if unknown else []
        return list(self._target.commit(offsets=starts, asynchronous=False)) if starts else []

    def _resolve(self, unknown: list[TopicPartition]) -> dict[Key, tuple[int, int]]:
        """Fill in what librdkafka has no position for (:meth:`StagingView._fill`); the
        watermarks read for the partitions with no committed offset."""
        target = self._target
        committed: list[TopicPartition] = _answer_or(
            lambda: target.committed(copies(unknown), 10), []
        )
        marks: dict[Key, tuple[int, int]] = {}
        for partition in self._to_reset(unknown, committed):
            found = _answer_or(partial(target.get_watermark_offsets, partition, 10), None)
            if found is not None:
                marks[key(partition)] = found
        self._fill(unknown, committed, marks)
        return marks

    def seek(self, partition: TopicPartition) -> None:
        self._check("seek")
        if not self._stage_seek(partition):
            self._target.seek(partition)

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """librdkafka's positions, staged seeks applied; where librdkafka has none yet (nothing
        fetched since the assignment) the committed offset, else the ``auto.offset.reset``
        start, as Java answers (one broker round trip, only then). A lost partition raises
        ``KafkaException`` with ``_STATE``."""
        self._check("position")
        positions = self._staged_positions(self._target.position(partitions))
        unknown = self._unknown(positions)
        if unknown:
            self._resolve(unknown)
        return positions

    def assignment(self) -> list[TopicPartition]:
        self._check("assignment")
        return self._with_incoming(self._target.assignment())

    def pause(self, partitions: list[TopicPartition]) -> None:
        self._check("pause")
        self._target.pause(self._hold(partitions, pause=True))

    def resume(self, partitions: list[TopicPartition]) -> None:
        self._check("resume")
        self._target.resume(self._hold(partitions, pause=False))


def _answer_or(call: Callable[[], T], default: T) -> T:
    """``call()``, or ``default`` when librdkafka cannot answer (a timeout, a closing consumer)."""
    try:
        return call()
    except KafkaException:
        return default


def _bind(listener: RebalanceListener) -> dict[str, tuple[Handler, str]]:
    return bind(listener, RebalanceListener, __name__, awaitable=False)


class _Adapter:
    """The callbacks confluent gets; they run whatever is registered when librdkafka calls.

    Holds a bound listener, or confluent-style legacy callbacks, or nothing (then confluent's
    own default assignment happens), plus what it learned about the rebalance protocol.
    """

    __slots__ = ("_closing", "_handlers", "_legacy", "_protocol", "_reset")

    def __init__(self, protocol: str | None = None, reset: str | None = None) -> None:
        self._protocol = ProtocolGuess(protocol)  # None: guessed until librdkafka says
        self._reset = reset  # auto.offset.reset (reset_of), None: not known
        self._handlers: dict[str, tuple[Handler, str]] | None = None
        self._legacy: tuple[ConfluentCallback | None, ...] = (None, None, None)
        self._closing = ClosingRevocation()

    def set_listener(self, listener: RebalanceListener | None) -> None:
        handlers = None if listener is None else _bind(listener)
        self._handlers, self._legacy = handlers, (None, None, None)

    def set_legacy(self, *callbacks: ConfluentCallback | None) -> None:
        self._handlers, self._legacy = None, callbacks

    def callbacks(self) -> dict[str, ConfluentCallback]:
        """The keyword arguments for confluent's ``subscribe()``."""
        return {"on_assign": self.on_assign, "on_revoke": self.on_revoke, "on_lost": self.on_lost}

    def on_assign(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]
    ) -> None:
        if self._handlers is None:
            self._call_legacy(0, consumer, partitions)
            return
        if self._closing.started:  # confluent's default (un)assigns: ClosingRevocation
            return
        handler, label = self._handlers["on_partitions_assigned"]
        view = ConfluentRebalanceView(consumer, label, incoming=partitions, reset=self._reset)
        try:
            with live(view, partitions, listener=handler, protocol=self._protocol.name):
                handler(partitions, view)
        finally:
            self._change(consumer, view._assignment_with_offsets(partitions), add=True)
            if view._paused:
                consumer.pause(view._staged_pauses())

    def on_revoke(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]
    ) -> None:
        self._revoke(consumer, partitions, lost=False)

    def on_lost(self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]) -> None:
        self._revoke(consumer, partitions, lost=True)

    def _revoke(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition], lost: bool
    ) -> None:
        if self._handlers is None:
            legacy_lost = lost and self._legacy[2] is not None
            self._call_legacy(2 if legacy_lost else 1, consumer, partitions)
            return
        if self._closing.started:  # told before close(); confluent's default unassigns
            return  # (ClosingRevocation)
        try:
            self._tell_revoked(consumer, partitions, lost)  # eager may revoke nothing: told
        finally:
            self._change(consumer, partitions, add=False)
            consumer.resume(partitions)  # librdkafka would keep them paused for next time

    def _tell_revoked(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition], lost: bool
    ) -> None:
        """Run the listener's revoked (or lost) callback on ``partitions`` with a view."""
        assert self._handlers is not None
        handler, label = self._handlers["on_partitions_lost" if lost else "on_partitions_revoked"]
        view = ConfluentRebalanceView(consumer, label, reset=self._reset)
        with live(
            view._lose(partitions) if lost else view,
            partitions,
            listener=handler,
            protocol=self._protocol.name,
        ):
            handler(partitions, view)

    def before_close(self, consumer: confluent_kafka.Consumer) -> None:
        """Revoke the whole assignment through the listener while still a group member.

        librdkafka's ``close()`` may leave the group before it runs the revocation
        (:class:`ClosingRevocation`); the listener's commit must come first, as in Java.
        """
        if self._handlers is not None:
            owned = self._closing.start(consumer.assignment())
            if owned:
                self._tell_revoked(consumer, owned, lost=False)

    def _call_legacy(
        self, index: int, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]
    ) -> None:
        callback = self._legacy[index]
        if callback is not None:  # else confluent assigns or unassigns by itself afterwards
            callback(consumer, partitions)

    def _change(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition], add: bool
    ) -> None:
        """(Un)assign with the call the rebalance protocol accepts, learning which one it is."""
        guessed, other = self._protocol.calls(consumer, partitions, add)
        try:
            guessed()
        except KafkaException as exc:
            if not is_state_error(exc):
                raise
            other()


class Consumer(confluent_kafka.Consumer):
    """``confluent_kafka.Consumer`` whose rebalance listener can be set at any time.

    Use :func:`set_rebalance_listener` before or after ``subscribe()``; see the module
    docstring for why confluent needs a subclass for that.
    """

    __slots__ = ("_rebalance",)

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> None:
        if config is None:
            super().__init__(**kwargs)
        else:
            super().__init__(dict(config), **kwargs)
        configured = {**(config or {}), **kwargs}
        self._rebalance = _Adapter(protocol_of(configured), reset_of(configured))

    def subscribe(
        self,
        topics: list[str],
        on_assign: ConfluentCallback | None = None,
        on_revoke: ConfluentCallback | None = None,
        on_lost: ConfluentCallback | None = None,
    ) -> None:
        """confluent's subscribe; without callbacks it keeps the registered listener."""
        if on_assign is not None or on_revoke is not None or on_lost is not None:
            self._rebalance.set_legacy(on_assign, on_revoke, on_lost)
        super().subscribe(topics, **self._rebalance.callbacks())

    def close(self) -> None:
        """confluent's close, after the listener's revocation of everything still owned.

        A callback's exception is raised after the consumer closed.
        """
        try:
            self._rebalance.before_close(self)
        finally:
            super().close()


def set_rebalance_listener(consumer: Consumer, listener: RebalanceListener | None) -> None:
    """Register ``listener`` on ``consumer`` (replacing any), or remove it with ``None``.

    Legal before or after ``subscribe()``, effective from the next poll. ``consumer`` must be
    a :class:`Consumer`: a plain ``confluent_kafka.Consumer`` takes callbacks only in
    ``subscribe()``, so use :func:`subscribe` for it.
    """
    if not isinstance(consumer, Consumer):
        raise TypeError(
            f"set_rebalance_listener() needs a rebalance_guard.confluent_kafka.Consumer, got "
            f"{type(consumer).__module__}.{type(consumer).__name__}: confluent's C consumer "
            f"takes rebalance callbacks only in subscribe(); create the consumer with "
            f"rebalance_guard.confluent_kafka.Consumer(config), or call "
            f"rebalance_guard.confluent_kafka.subscribe(consumer, topics, listener)"
        )
    consumer._rebalance.set_listener(listener)


def subscribe(
    consumer: confluent_kafka.Consumer,
    topics: list[str],
    listener: RebalanceListener,
    *,
    protocol: RebalanceProtocol | None = None,
) -> None:
    """Subscribe any confluent consumer to ``topics`` with ``listener`` for this subscription.

    ``protocol``: the rebalance protocol the consumer's configuration selects ("eager",
    "cooperative" for cooperative-sticky, "consumer" for ``group.protocol=consumer``). A
    plain consumer does not tell; without it the adapter assumes eager and, under an
    incremental protocol, learns otherwise from one refused ``assign()``, which librdkafka
    logs as a warning. A :class:`Consumer` knows its configuration and needs none.
    """
    checked_protocol(protocol)
    if isinstance(consumer, Consumer):
        consumer._rebalance.set_listener(listener)
        consumer.subscribe(topics)
        return
    adapter = _Adapter(protocol)
    adapter.set_listener(listener)
    consumer.subscribe(topics, **adapter.callbacks())
