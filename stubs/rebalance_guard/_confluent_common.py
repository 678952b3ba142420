"""What confluent-kafka's two consumer APIs share: the sync ``Consumer`` and ``AIOConsumer``.

``rebalance_guard.confluent_kafka`` and ``rebalance_guard.confluent_kafka_aio`` adapt the
same librdkafka consumer, one called directly, one through asyncio; the staging of seeks and
pauses in ``on_partitions_assigned``, the listener binding and the protocol guess are the
same logic and live here. Importing this module imports confluent_kafka (their client): only
the implementation modules (``_confluent_sync``, ``_confluent_aio``) import it, on first use.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Literal

from confluent_kafka import OFFSET_INVALID, KafkaError, KafkaException, TopicPartition

from rebalance_guard._view import ExpiringView, takes_view

Key = tuple[str, int]
#: A bound listener method ``(partitions, view)``; an ``async def`` one returns an awaitable.
Handler = Callable[[list[TopicPartition], Any], object]
EVENTS = ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")


def key(partition: TopicPartition) -> Key:
    return (partition.topic, partition.partition)


def copies(partitions: list[TopicPartition]) -> list[TopicPartition]:
    """The partitions without offsets, for librdkafka calls that fill them in."""
    return [TopicPartition(p.topic, p.partition) for p in partitions]


def as_given(partitions: list[TopicPartition]) -> list[TopicPartition]:
    """The partitions of an assignment as librdkafka gave them, before the callback runs.

    What the adapter assigns where the callback staged no seek: raw confluent-kafka hands the
    callback copies and, when the callback did not assign, assigns librdkafka's own list, so
    a callback changing ``p.offset`` (or the list itself) changes nothing; only the view's
    seeks move a start offset (tests/integration/test_confluent_kafka_partition_offsets.py)."""
    return [_as_given(p) for p in partitions]


def _as_given(partition: TopicPartition) -> TopicPartition:
    extra: dict[str, Any] = {}  # confluent's constructor takes no None for these
    if partition.metadata is not None:
        extra["metadata"] = partition.metadata
    if partition.leader_epoch is not None:
        extra["leader_epoch"] = partition.leader_epoch
    return TopicPartition(partition.topic, partition.partition, partition.offset, **extra)


#: How long a view waits for librdkafka's committed offsets in an assignment callback.
FETCH_TIMEOUT_S = 10.0
#: ... and in a revocation (revoked or lost): librdkafka answers no offset fetch from the
#: revocation its own ``close()`` runs (the group waits for that callback to return; every
#: other call the view makes there answers at once: tests/integration/
#: test_confluent_kafka_bare_commit_in_close.py), and no callback can tell that revocation
#: from a rebalance's, where the answer takes milliseconds. Unanswered, the view goes on as
#: raw confluent does: no start offset committed, the position unknown.
REVOCATION_FETCH_TIMEOUT_S = 1.0


class StagingView(ExpiringView):
    """A view that stages seeks and (un)pauses of the incoming partitions of an assignment.

    librdkafka refuses them before the partitions are assigned, so the adapter applies them
    with the assignment when the callback ends (:meth:`_assignment_with_offsets`,
    :meth:`_staged_pauses`); meanwhile ``assignment()`` and ``position()`` show them.
    """

    __slots__ = ("_incoming", "_paused", "_reset", "_seeks")

    def __init__(
        self,
        target: Any,
        callback: str,
        incoming: list[TopicPartition] | None = None,
        reset: str | None = None,
    ) -> None:
        super().__init__(target, callback)
        self._incoming = {key(p) for p in incoming or ()}
        self._seeks: dict[Key, TopicPartition] = {}
        self._paused: dict[Key, None] = {}  # ordered set
        self._reset = reset  # where a partition without a committed offset starts (reset_of)

    def _fetch_timeout(self) -> float:
        """How long to wait for committed offsets here (:data:`REVOCATION_FETCH_TIMEOUT_S`)."""
        if self._callback.rpartition(".")[2] == "on_partitions_assigned":  # "Listener.<event>"
            return FETCH_TIMEOUT_S
        return REVOCATION_FETCH_TIMEOUT_S

    def _stage_seek(self, partition: TopicPartition) -> bool:
        """Record a seek on an incoming partition (True), or leave it to the consumer."""
        if key(partition) not in self._incoming:
            return False
        self._seeks[key(partition)] = partition
        return True

    def _staged_positions(self, positions: list[TopicPartition]) -> list[TopicPartition]:
        """Positions as the callback sees them: staged seeks applied; a lost partition has
        none (``_STATE``, as kafka-python's ``IllegalStateError`` and Java's
        ``IllegalStateException`` for a partition not assigned)."""
        for partition in positions:
            sought = self._seeks.get(key(partition))
            if sought is not None:
                partition.offset = sought.offset
            elif self._is_gone(partition):
                raise KafkaException(KafkaError(KafkaError._STATE, self._gone_message(partition)))
        return positions

    def _unknown(self, positions: list[TopicPartition]) -> list[TopicPartition]:
        """Partitions librdkafka knows no position of (``OFFSET_INVALID``: nothing fetched
        since they were assigned), which Java answers: see :meth:`_fill`."""
        return [p for p in positions if p.offset == OFFSET_INVALID and key(p) not in self._seeks]

    def _to_reset(
        self, unknown: list[TopicPartition], committed: list[TopicPartition]
    ) -> list[TopicPartition]:
        """The unknown partitions without a committed offset whose reset offset is wanted
        (none when the reset policy is not known)."""
        if self._reset not in ("earliest", "latest"):
            return []
        known = {key(p) for p in committed if p.error is None and p.offset >= 0}
        return [TopicPartition(p.topic, p.partition) for p in unknown if key(p) not in known]

    @staticmethod
    def _starts(
        unknown: list[TopicPartition], watermarks: Mapping[Key, tuple[int, int]]
    ) -> list[TopicPartition]:
        """After :meth:`_fill`: the partitions answered by their reset start (no committed
        offset), as offsets to commit."""
        return [
            TopicPartition(p.topic, p.partition, p.offset)
            for p in unknown
            if key(p) in watermarks and p.offset >= 0
        ]

    def _fill(
        self,
        unknown: list[TopicPartition],
        committed: list[TopicPartition],
        watermarks: Mapping[Key, tuple[int, int]],
    ) -> None:
        """Answer as Java's ``position()`` does: the committed offset, else where
        ``auto.offset.reset`` starts (the low or the high watermark). What cannot be known
        stays ``OFFSET_INVALID``."""
        known = {key(p): p.offset for p in committed if p.error is None and p.offset >= 0}
        for partition in unknown:
            offset = known.get(key(partition))
            marks = watermarks.get(key(partition))
            if offset is None and marks is not None:
                offset = marks[0] if self._reset == "earliest" else marks[1]
            if offset is not None and offset >= 0:
                partition.offset = offset

    def _nothing_left(self, message: Any, offsets: Any, assigned: list[TopicPartition]) -> bool:
        """A bare commit in a loss of everything (:meth:`_lost_everything`): nothing to
        commit. Callers test ``self._gone`` first, so no view asks librdkafka for its
        assignment unless something was lost."""
        return message is None and offsets is None and self._lost_everything(assigned)

    def _with_incoming(self, current: list[TopicPartition]) -> list[TopicPartition]:
        current = self._not_gone(current)
        owned = {key(p) for p in current}
        return current + [TopicPartition(*k) for k in sorted(self._incoming - owned)]

    def _hold(self, partitions: list[TopicPartition], *, pause: bool) -> list[TopicPartition]:
        """Record (un)pauses of incoming partitions; return the others for the consumer."""
        others = []
        for partition in partitions:
            k = key(partition)
            if k not in self._incoming:
                others.append(partition)
            elif pause:
                self._paused[k] = None
            else:
                self._paused.pop(k, None)
        return others

    def _assignment_with_offsets(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """What the adapter assigns after the callback: the staged seeks as start offsets."""
        seeks = self._seeks
        return [seeks.get(key(p), p) for p in partitions] if seeks else partitions

    def _staged_pauses(self) -> list[TopicPartition]:
        return [TopicPartition(*k) for k in self._paused]


class ClosingRevocation:
    """The revocation the adapter runs itself before ``close()``; later callbacks tell nothing.

    Under an incremental protocol, librdkafka's ``close()`` with an assignment callback
    still pending (``join-state wait-assign-call``: the member was assigned, the
    application has not polled since) treats that pending ``incremental_assign()`` as an
    unassign of everything, leaves the group, and only then runs the revocation: the
    listener finds nothing assigned, its bare ``commit()`` commits nothing and an explicit
    one fails with ``UNKNOWN_MEMBER_ID``, so the next owner repeats what this member
    processed since its last commit (reproduced with raw confluent-kafka 2.16 callbacks on
    Apache Kafka 4.4, no rebalance_guard). Java revokes before it leaves
    (``onLeavePrepare``). So the adapters revoke the whole assignment through the listener
    before calling ``close()``. The callbacks librdkafka runs during the close then tell the
    listener nothing (each partition is revoked once: Java calls revoked or lost, not both)
    and make no librdkafka call themselves: confluent's binding (un)assigns by
    default when a callback did not, on the thread serving ``close()``. A call of the
    adapter's own there can wait forever: ``assignment()`` from a revocation inside
    ``close()`` hung, and an ``AIOConsumer``'s ``incremental_unassign()`` (made on another
    executor thread while ``close()`` serves the callback) deadlocked once in 121 closes.

    Everything the listener was told it owns is in the assignment revoked before ``close()``
    (each assignment callback adds its partitions before it returns). What ``close()``
    revokes beyond that is a pending assignment the listener was never told of: it is told
    nothing of it (Java's ``close()`` delivers no pending assignment). Telling it ran the
    listener's bare ``commit()`` inside ``close()``, where librdkafka answered ``_DESTROY``
    (an AIOConsumer under KIP-848 in CI, 2026-11-26; every time in
    tests/integration/test_confluent_kafka_close.py's pending-assignment test).
    """

    __slots__ = ("started",)

    def __init__(self) -> None:
        self.started = False

    def start(self, owned: list[TopicPartition]) -> list[TopicPartition]:
        """Begin closing with ``owned`` assigned: the partitions to revoke now."""
        self.started = True
        return owned


def nothing_to_commit(exc: KafkaException, bare: bool) -> bool:
    """librdkafka's ``_NO_OFFSET`` for a bare synchronous commit: Java's no-op commitSync()."""
    return bare and bool(exc.args) and exc.args[0].code() == KafkaError._NO_OFFSET


def is_state_error(exc: KafkaException) -> bool:
    error = exc.args[0] if exc.args else None
    return isinstance(error, KafkaError) and error.code() == KafkaError._STATE


def bind(listener: object, module: str, *, awaitable: bool) -> dict[str, tuple[Handler, str]]:
    """Each event's handler ``(partitions, view)`` and its label, decided once at registration.

    ``module`` is the public module whose ``RebalanceListener`` the listener derives from: a
    listener that keeps that base's default ``on_partitions_lost`` gets the revoked handler.
    ``awaitable``: the adapter awaits what the handlers return, so ``async def`` methods are
    allowed.
    """
    name = type(listener).__name__
    base = listener_base(listener, module)
    handlers: dict[str, tuple[Handler, str]] = {}
    for event in EVENTS:
        method = getattr(listener, event, None)
        label = f"{name}.{event}"
        if event == "on_partitions_lost" and (
            method is None
            or (base is not None and getattr(type(listener), event, None) is getattr(base, event))
        ):
            handlers[event] = (handlers["on_partitions_revoked"][0], label)
            continue
        if not callable(method):
            raise TypeError(
                f"listener {name} has no {event}() method: subclass {module}.RebalanceListener"
            )
        if not awaitable and inspect.iscoroutinefunction(method):
            raise TypeError(
                f"{label} is async def, but confluent-kafka calls rebalance callbacks "
                f"synchronously from poll() and cannot await them: make it a plain def "
                f"(or use confluent_kafka.aio.AIOConsumer with rebalance_guard.confluent_kafka_aio)"
            )
        handlers[event] = (method if takes_view(method) else _without_view(method), label)
    return handlers


def listener_base(listener: object, module: str) -> type | None:
    """``module``'s ``RebalanceListener`` among the listener's classes, None if not derived
    from it. Found by name: the implementation modules do not import the public ones, which
    import them on first use (the package graph runs one way)."""
    return next(
        (
            cls
            for cls in type(listener).__mro__
            if cls.__module__ == module and cls.__qualname__ == "RebalanceListener"
        ),
        None,
    )


def _without_view(method: Callable[[list[TopicPartition]], object]) -> Handler:
    """A legacy one-argument method ``(partitions)`` called as a handler."""

    def handler(partitions: list[TopicPartition], view: object) -> object:
        return method(partitions)

    return handler


#: The rebalance protocols librdkafka speaks, by what a user configures: ``eager`` (range,
#: roundrobin: librdkafka's default), ``cooperative`` (cooperative-sticky, KIP-429) and
#: ``consumer`` (KIP-848, ``group.protocol=consumer``; GA in confluent-kafka 2.12).
PROTOCOLS = ("eager", "cooperative", "consumer")
RebalanceProtocol = Literal["eager", "cooperative", "consumer"]


def reset_of(config: Mapping[str, Any]) -> str | None:
    """Where a partition without a committed offset starts: "earliest", "latest" (librdkafka's
    default) or None (``error``: no position to answer)."""
    value = str(config.get("auto.offset.reset", "latest")).strip().lower()
    if value in ("smallest", "earliest", "beginning"):
        return "earliest"
    return "latest" if value in ("largest", "latest", "end") else None


def protocol_of(config: Mapping[str, Any]) -> RebalanceProtocol:
    """The rebalance protocol a consumer configuration selects (see :data:`PROTOCOLS`)."""
    if str(config.get("group.protocol", "classic")).strip().lower() == "consumer":
        return "consumer"
    strategy = str(config.get("partition.assignment.strategy", ""))
    return "cooperative" if "cooperative" in strategy else "eager"


def checked_protocol(protocol: str | None) -> str | None:
    """``protocol`` if it is one of :data:`PROTOCOLS` (or None: not known), else ValueError."""
    if protocol is not None and protocol not in PROTOCOLS:
        raise ValueError(
            f"protocol={protocol!r}: expected one of {', '.join(map(repr, PROTOCOLS))} "
            f"(what the consumer's configuration selects: group.protocol=consumer, or "
            f"partition.assignment.strategy cooperative-sticky, or eager otherwise)"
        )
    return protocol


class ProtocolGuess:
    """Which (un)assign call the rebalance protocol takes: known, or guessed and learned.

    Known when the adapter saw the configuration (the drop-in consumers) or was told
    (``protocol=``): then the right call is made first and librdkafka logs nothing.
    Unknown (a plain consumer created elsewhere): eager is assumed (librdkafka's default);
    confluent-kafka does not expose ``rd_kafka_rebalance_protocol()``, so under an incremental
    protocol the first ``assign()`` fails with ``_STATE`` (:func:`is_state_error`), librdkafka
    logs one ``application *assign() call failed`` warning, and the other call is used from
    then on.
    """

    __slots__ = ("cooperative", "name")

    def __init__(self, protocol: str | None = None) -> None:
        self.name = checked_protocol(protocol)  # None: not known
        self.cooperative = protocol not in (None, "eager")

    def calls(
        self, consumer: Any, partitions: list[TopicPartition], add: bool
    ) -> tuple[Callable[[], Any], Callable[[], Any]]:
        """The call to try first, and the one to make (and learn) after a ``_STATE`` refusal."""
        return (
            partial(_protocol_call, consumer, partitions, add, self.cooperative),
            partial(self._learn, consumer, partitions, add),
        )

    def _learn(self, consumer: Any, partitions: list[TopicPartition], add: bool) -> Any:
        self.cooperative = not self.cooperative
        self.name = "cooperative" if self.cooperative else "eager"  # or consumer: alike here
        return _protocol_call(consumer, partitions, add, self.cooperative)


def _protocol_call(
    consumer: Any, partitions: list[TopicPartition], add: bool, cooperative: bool
) -> Any:
    """The consumer's (un)assign call for the protocol (a coroutine on an AIOConsumer)."""
    if cooperative:
        return (consumer.incremental_assign if add else consumer.incremental_unassign)(partitions)
    return consumer.assign(partitions) if add else consumer.unassign()
