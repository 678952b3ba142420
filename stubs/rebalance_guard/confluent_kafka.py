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

Importing this module does not import confluent-kafka (code importing it only inside a
function, an optional dependency, may import this module at module level): the listener
base and the view Protocol need none; :class:`Consumer` and the view class import it on first
access (module ``__getattr__``), the functions when called; without it they raise an
ImportError naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, overload

from rebalance_guard._client_facts import CONFLUENT
from rebalance_guard._lazy_client import client_needed, served_lazily
from rebalance_guard._observe import CallbackLogging

if TYPE_CHECKING:
    import confluent_kafka
    from confluent_kafka import Message, TopicPartition
    from confluent_kafka.admin._metadata import ClusterMetadata

    from rebalance_guard._confluent_common import RebalanceProtocol
    from rebalance_guard._confluent_sync import ConfluentCallback as ConfluentCallback
    from rebalance_guard._confluent_sync import ConfluentRebalanceView as ConfluentRebalanceView
    from rebalance_guard._confluent_sync import Consumer as Consumer
    from rebalance_guard._confluent_sync import _Adapter as _Adapter

__all__ = [
    "ConfluentRebalanceView",
    "Consumer",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
    "subscribe",
]

#: The names served from ``rebalance_guard._confluent_sync``, which imports confluent-kafka
#: when first used (``Consumer`` subclasses confluent's): the module imports without it
#: (``rebalance_guard._client_facts``: ``guard_imports_client``, ``guard_names_importing_client``).
_IMPORTING_THE_CLIENT = (*sorted(CONFLUENT.guard_names_importing_client), "_Adapter")
_CLIENT = "confluent-kafka"


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


def set_rebalance_listener(consumer: Consumer, listener: RebalanceListener | None) -> None:
    """Register ``listener`` on ``consumer`` (replacing any), or remove it with ``None``.

    Legal before or after ``subscribe()``, effective from the next poll. ``consumer`` must be
    a :class:`Consumer`: a plain ``confluent_kafka.Consumer`` takes callbacks only in
    ``subscribe()``, so use :func:`subscribe` for it.
    """
    with client_needed(f"{__name__}.set_rebalance_listener()", CONFLUENT.package, _CLIENT):
        from rebalance_guard._confluent_sync import set_rebalance_listener as register
    register(consumer, listener)


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
    with client_needed(f"{__name__}.subscribe()", CONFLUENT.package, _CLIENT):
        from rebalance_guard._confluent_sync import subscribe as subscribe_with
    subscribe_with(consumer, topics, listener, protocol=protocol)


if not TYPE_CHECKING:  # type checkers see the imports above, and no __getattr__ (PEP 562)

    def _implementation():
        from rebalance_guard import _confluent_sync

        return _confluent_sync

    __getattr__, __dir__ = served_lazily(
        globals(), _IMPORTING_THE_CLIENT, _implementation, CONFLUENT.package, _CLIENT
    )
