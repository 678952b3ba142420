"""KIP-1306 rebalance listeners for confluent-kafka's asyncio consumer, ``AIOConsumer``.

``confluent_kafka.aio.AIOConsumer`` calls ``on_assign(consumer, partitions)`` with the whole
``AIOConsumer``; nothing stops ``await consumer.poll()``, ``close()`` or ``subscribe()`` there,
a bare ``commit()`` is asynchronous underneath, and forgetting an ``await`` silently drops the
call. Here callbacks receive ``(partitions, consumer)`` where ``consumer`` is a restricted
:class:`RebalanceConsumer` view, valid only while the callback runs, whose methods are all
coroutines (as every ``AIOConsumer`` method is). Listener methods may be ``async def`` or
``def``, mixed in one listener; a ``def`` method may return an awaitable, which is awaited.

How it maps onto ``AIOConsumer`` (verified with confluent-kafka 2.16), and why:

* Callbacks. ``AIOConsumer.subscribe()`` wraps only callbacks passed by keyword: the wrapper
  runs them on the consumer's event loop (``run_coroutine_threadsafe``) while the ``poll()``/
  ``consume()`` that triggered them waits in an executor thread, and always awaits them (a
  plain ``def`` passed by keyword raises ``TypeError``). The adapter passes its own
  ``async def`` callbacks by keyword, and calls the listener's methods from them. The view's
  calls and the adapter's own (``assign``...) go through the ``AIOConsumer`` methods, which
  confluent admits re-entrantly from its callbacks: the consumer's executor needs at least
  two workers (confluent's own requirement for calls from callbacks; the default is 100), and
  :func:`set_rebalance_listener` refuses a one-worker pool, which would hang in ``poll()``.

* Registration: the closest honest equivalent of ``setRebalanceListener``. librdkafka takes
  rebalance callbacks only in ``subscribe()``, but ``AIOConsumer`` is a Python object, so
  :func:`set_rebalance_listener` installs the adapter on that one consumer object and
  shadows its ``subscribe``: every later ``await consumer.subscribe(topics)`` passes the
  adapter's callbacks, and they look the listener up each time librdkafka calls them. So
  register before ``subscribe()``; after a subscribe made while a listener was registered you
  may replace the listener or remove it with ``None``, effective from the next callback.
  What cannot be done is to attach callbacks to a subscription made before any registration
  (librdkafka would need a new ``subscribe()``, itself a rebalance; confluent-kafka does not
  even say whether the consumer is subscribed): such a registration takes effect at the next
  ``subscribe()``. An explicit ``subscribe(..., on_assign=...)`` replaces the registered
  listener (last registration wins, as in Java). :func:`subscribe` does both steps at once.

* Seek and pause in ``on_partitions_assigned``. librdkafka has not assigned the partitions
  yet when ``on_assign`` runs, so a raw ``seek()`` there fails; as in the sync adapter
  (:mod:`rebalance_guard.confluent_kafka`) the view stages seeks and pauses on the incoming
  partitions and the adapter assigns them with the staged offsets when the callback ends
  (also when it raises), then pauses.

* Protocols: as in the sync adapter (:mod:`rebalance_guard.confluent_kafka`, "Protocols"):
  eager callbacks get the whole assignment and the adapter calls ``assign()``/``unassign()``;
  cooperative-sticky and KIP-848's ``group.protocol=consumer`` pass only what moves, refuse
  ``assign()``, and the adapter calls ``incremental_assign()``/``incremental_unassign()``
  (staged seeks become the incremental start offsets). ``AIOConsumer`` keeps no
  configuration, so the adapter knows the protocol from this module's drop-in
  :class:`AIOConsumer` (which reads it from its configuration) or from ``protocol=`` given to
  :func:`set_rebalance_listener`/:func:`subscribe`. Given neither, it assumes eager, and under
  an incremental protocol the first ``assign()`` is refused with ``_STATE``: librdkafka logs
  one warning per consumer (``application *assign() call failed ...``) and the adapter uses
  the incremental calls from then on.
  Pauses on revoked partitions are cleared after the revocation.

* ``commit()`` on the view is synchronous by default (``asynchronous=False``): awaiting it
  returns once the broker has the offsets. ``commit(asynchronous=True)`` is confluent's
  commit_async. A bare ``commit()`` with nothing new to commit returns ``[]``.

* Revoked partitions during ``on_partitions_revoked``: librdkafka calls the revocation
  before it unassigns (eager and cooperative), so they are in ``assignment()``,
  ``position()`` works and a bare ``await consumer.commit()`` commits their consumed offsets.

* Exceptions from a callback reach the caller of ``poll()`` (or ``close()``) as confluent
  does it: its wrapper re-raises them in the executor thread, inside librdkafka's callback,
  and the binding raises them from the blocked call. Not so for ``consume()``: confluent-kafka
  2.16 then drops the messages that ``consume()`` batch had already fetched (their offsets
  count as consumed) and the consumer's ``close()`` afterwards hangs forever in
  ``rd_kafka_destroy()`` (both reproduced with plain ``AIOConsumer`` callbacks, no
  rebalance_guard). So an exception raised during ``consume()`` is kept, the batch is
  delivered, and the next ``poll()``, ``consume()`` or ``close()`` on the consumer raises it
  (the registration shadows those three on the consumer object, as it shadows
  ``subscribe``). Either way the adapter has assigned or unassigned first, so the rebalance
  completes and later callbacks run.

* A forgotten ``await``: a view method called without ``await`` returns a coroutine that
  never runs. When the callback ends the view closes such coroutines and raises
  :class:`NotAwaitedError`, which reaches the caller like any callback exception.

* ``on_partitions_lost`` (confluent's ``on_lost``) defaults to ``on_partitions_revoked``.
  As with the sync consumer, librdkafka still lists the lost partitions during the
  callback; the view does not (KIP-1306: they are already gone): ``assignment()`` leaves
  them out, ``position()`` raises ``KafkaException`` (``_STATE``) for them (a position
  librdkafka does not know yet is answered as in the sync view) and a bare ``commit()``
  returns ``[]``, committing nothing (librdkafka would try the lost partitions' stored
  offsets, and fail).

* ``close()`` (shadowed by the registration, like ``poll()``) first runs
  ``on_partitions_revoked`` with the whole assignment while the member is still in the
  group, then closes; librdkafka's own revocation during the close only unassigns. As with
  the sync consumer, librdkafka may otherwise leave the group before revoking
  (``ClosingRevocation``). ``committed()`` during the close times out (as with the sync
  consumer).

* Slow callbacks are warned about and every callback is logged as in the sync adapter
  (:mod:`rebalance_guard.confluent_kafka`, "Slow callbacks"); a slow ``async def`` callback
  holds the ``poll()`` that runs it, and past ``max.poll.interval.ms`` the member leaves.

Legacy one-argument methods ``(self, partitions)`` are called without the view.

Importing this module does not import confluent-kafka (code importing it only inside a
function, an optional dependency, may import this module at module level): the listener
base and the view Protocol need none; :class:`AIOConsumer` and the view class import it on first
access (module ``__getattr__``), the functions when called; without it they raise an
ImportError naming it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal, Protocol, overload

from rebalance_guard._client_facts import CONFLUENT_AIO
from rebalance_guard._errors import NotAwaitedError
from rebalance_guard._lazy_client import client_needed, served_lazily
from rebalance_guard._observe import CallbackLogging

if TYPE_CHECKING:
    from confluent_kafka import Message, TopicPartition
    from confluent_kafka.admin._metadata import ClusterMetadata
    from confluent_kafka.aio import AIOConsumer as _PlainAIOConsumer

    from rebalance_guard._confluent_aio import (
        AIOConfluentRebalanceView as AIOConfluentRebalanceView,
    )
    from rebalance_guard._confluent_aio import AIOConsumer as AIOConsumer
    from rebalance_guard._confluent_aio import _Adapter as _Adapter
    from rebalance_guard._confluent_common import RebalanceProtocol

__all__ = [
    "AIOConfluentRebalanceView",
    "AIOConsumer",
    "NotAwaitedError",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
    "subscribe",
]

#: The names served from ``rebalance_guard._confluent_aio``, which imports confluent-kafka
#: when first used (``AIOConsumer`` subclasses confluent's): the module imports without it
#: (``rebalance_guard._client_facts``: ``guard_imports_client``, ``guard_names_importing_client``).
_IMPORTING_THE_CLIENT = (*sorted(CONFLUENT_AIO.guard_names_importing_client), "_Adapter")
_CLIENT = "confluent-kafka"


class RebalanceConsumer(Protocol):
    """What a rebalance callback may do with the AIOConsumer (KIP-1306), in confluent's names.

    Every method is a coroutine: await it inside the callback (the view expires when the
    callback returns). As on the sync consumer: no ``seek_to_beginning``/``seek_to_end``
    (seek to ``OFFSET_BEGINNING``/``OFFSET_END``), no ``paused()``, ``get_watermark_offsets``
    for beginning and end offsets, ``consumer_group_metadata`` for the group metadata
    (``AIOConsumer`` has no ``memberid()``).
    """

    @overload
    async def commit(self, *, asynchronous: Literal[False] = False) -> list[TopicPartition]: ...
    @overload
    async def commit(
        self, *, message: Message[Any, Any], asynchronous: Literal[False] = False
    ) -> list[TopicPartition]: ...
    @overload
    async def commit(
        self, *, offsets: list[TopicPartition], asynchronous: Literal[False] = False
    ) -> list[TopicPartition]: ...
    @overload
    async def commit(
        self,
        *,
        message: Message[Any, Any] | None = None,
        offsets: list[TopicPartition] | None = None,
        asynchronous: Literal[True],
    ) -> None: ...
    async def commit(
        self,
        *,
        message: Message[Any, Any] | None = None,
        offsets: list[TopicPartition] | None = None,
        asynchronous: bool = False,
    ) -> list[TopicPartition] | None: ...
    async def committed(
        self, partitions: list[TopicPartition], timeout: float = -1
    ) -> list[TopicPartition]: ...
    async def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]: ...
    async def seek(self, partition: TopicPartition) -> None: ...
    async def assignment(self) -> list[TopicPartition]: ...
    async def pause(self, partitions: list[TopicPartition]) -> None: ...
    async def resume(self, partitions: list[TopicPartition]) -> None: ...
    async def get_watermark_offsets(
        self, partition: TopicPartition, timeout: float = -1, cached: bool = False
    ) -> tuple[int, int]: ...
    async def offsets_for_times(
        self, partitions: list[TopicPartition], timeout: float = -1
    ) -> list[TopicPartition]: ...
    async def list_topics(
        self, topic: str | None = None, timeout: float = -1
    ) -> ClusterMetadata: ...
    async def consumer_group_metadata(self) -> object: ...


#: Returned by listener methods: ``None`` from a ``def``, a coroutine from an ``async def``.
CallbackResult = Awaitable[None] | None


class RebalanceListener:
    """KIP-1306 listener: each method gets the partitions and a view valid during the call.

    Override what you need, with ``async def`` or ``def``. ``on_partitions_lost`` defaults to
    ``on_partitions_revoked``; override it to skip commits for partitions owned elsewhere.
    """

    #: How the callbacks are logged: when one is slow, and the level of its record.
    callback_logging: CallbackLogging = CallbackLogging()

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer, /
    ) -> CallbackResult:
        return None

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer, /
    ) -> CallbackResult:
        return None

    def on_partitions_lost(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer, /
    ) -> CallbackResult:
        return self.on_partitions_revoked(partitions, consumer)


def set_rebalance_listener(
    consumer: _PlainAIOConsumer,
    listener: RebalanceListener | None,
    *,
    protocol: RebalanceProtocol | None = None,
) -> None:
    """Register ``listener`` on ``consumer`` (replacing any), or remove it with ``None``.

    Register before ``consumer.subscribe()``: librdkafka takes the callbacks only there, so
    the registration makes every later ``subscribe()`` on this consumer pass them. Replacing
    or removing it after such a subscribe takes effect from the next callback. See the
    module docstring for why this is the closest honest ``setRebalanceListener``.

    ``protocol``: the rebalance protocol of the consumer's configuration ("eager",
    "cooperative", "consumer"); a :class:`AIOConsumer` of this module knows its own. Without
    either, eager is assumed and an incremental protocol is learned from one refused
    ``assign()``, which librdkafka logs as a warning.
    """
    with client_needed(f"{__name__}.set_rebalance_listener()", CONFLUENT_AIO.package, _CLIENT):
        from rebalance_guard._confluent_aio import set_rebalance_listener as register
    register(consumer, listener, protocol=protocol, idle=RebalanceListener())


async def subscribe(
    consumer: _PlainAIOConsumer,
    topics: list[str],
    listener: RebalanceListener,
    *,
    protocol: RebalanceProtocol | None = None,
) -> None:
    """Subscribe ``consumer`` to ``topics`` with ``listener``: :func:`set_rebalance_listener`
    (with ``protocol``), then ``await consumer.subscribe(topics)``."""
    set_rebalance_listener(consumer, listener, protocol=protocol)
    await consumer.subscribe(topics)


if not TYPE_CHECKING:  # type checkers see the imports above, and no __getattr__ (PEP 562)

    def _implementation():
        from rebalance_guard import _confluent_aio

        return _confluent_aio

    __getattr__, __dir__ = served_lazily(
        globals(), _IMPORTING_THE_CLIENT, _implementation, CONFLUENT_AIO.package, _CLIENT
    )
