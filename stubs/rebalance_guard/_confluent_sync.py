"""confluent-kafka's sync ``Consumer`` adapter: what :mod:`rebalance_guard.confluent_kafka`
imports on first use (its module docstring says how it maps onto confluent-kafka, and why).

Importing this module imports confluent_kafka; the public module imports without it and
serves this module's classes through its module ``__getattr__`` (``Consumer`` must subclass
confluent's), its functions importing this module when called. The public names keep the
public module as theirs (``__module__``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

import confluent_kafka
from confluent_kafka import KafkaException, TopicPartition

from rebalance_guard._confluent_common import (
    ClosingRevocation,
    Handler,
    Key,
    ProtocolGuess,
    RebalanceProtocol,
    StagingView,
    as_given,
    bind,
    checked_protocol,
    copies,
    is_state_error,
    key,
    nothing_to_commit,
    protocol_of,
    reset_of,
)
from rebalance_guard._view import forward, live

T = TypeVar("T")

#: The public module: where these classes are documented, and whose listeners they run.
PUBLIC = "rebalance_guard.confluent_kafka"

#: confluent's rebalance callback signature: ``on_assign(consumer, partitions)``.
ConfluentCallback = Callable[[confluent_kafka.Consumer, list[TopicPartition]], None]


class ConfluentRebalanceView(StagingView):
    """The runtime :class:`RebalanceConsumer`: confluent's permitted methods, until expiry.

    In ``on_partitions_assigned`` seeks and pauses on the incoming partitions are recorded
    for the adapter to apply with the assignment (librdkafka refuses them before it).
    """

    __slots__ = ()
    __module__ = PUBLIC

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
            lambda: target.committed(copies(unknown), self._fetch_timeout()), []
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

    def set_listener(self, listener: object | None) -> None:
        """Run ``listener`` (a :class:`~rebalance_guard.confluent_kafka.RebalanceListener`)
        from the next callback; ``None``: confluent's default assignment."""
        handlers = None if listener is None else bind(listener, PUBLIC, awaitable=False)
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
        given = as_given(partitions)
        view = ConfluentRebalanceView(consumer, label, incoming=given, reset=self._reset)
        try:
            with live(view, partitions, listener=handler, protocol=self._protocol.name):
                handler(partitions, view)
        finally:
            self._change(consumer, view._assignment_with_offsets(given), add=True)
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
    __module__ = PUBLIC

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


def set_rebalance_listener(consumer: Consumer, listener: object | None) -> None:
    """:func:`rebalance_guard.confluent_kafka.set_rebalance_listener` (documented there)."""
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
    listener: object,
    *,
    protocol: RebalanceProtocol | None = None,
) -> None:
    """:func:`rebalance_guard.confluent_kafka.subscribe` (documented there)."""
    checked_protocol(protocol)
    if isinstance(consumer, Consumer):
        consumer._rebalance.set_listener(listener)
        consumer.subscribe(topics)
        return
    adapter = _Adapter(protocol)
    adapter.set_listener(listener)
    consumer.subscribe(topics, **adapter.callbacks())
