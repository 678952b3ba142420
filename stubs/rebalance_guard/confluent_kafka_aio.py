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
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

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
from rebalance_guard._errors import NotAwaitedError
from rebalance_guard._observe import CallbackLogging
from rebalance_guard._view import AsyncView, awaited, forward_coroutine

try:
    from confluent_kafka.aio import AIOConsumer as _PlainAIOConsumer
except ImportError as exc:  # pragma: no cover - confluent-kafka < 2.12 has no asyncio consumer
    raise ImportError(
        "rebalance_guard.confluent_kafka_aio adapts confluent_kafka.aio.AIOConsumer, which this "
        "confluent-kafka does not have: upgrade it (pip install 'confluent-kafka>=2.12')"
    ) from exc

if TYPE_CHECKING:
    from confluent_kafka import Message
    from confluent_kafka.admin._metadata import ClusterMetadata

T = TypeVar("T")

__all__ = [
    "AIOConfluentRebalanceView",
    "AIOConsumer",
    "NotAwaitedError",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
    "subscribe",
]


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


class AIOConfluentRebalanceView(StagingView, AsyncView):
    """The runtime :class:`RebalanceConsumer` over an ``AIOConsumer``, until expiry.

    Each method checks the view is live when called and returns a coroutine; seeks and
    pauses on the incoming partitions of an assignment are staged for the adapter.
    """

    __slots__ = ()

    committed = forward_coroutine("committed")
    get_watermark_offsets = forward_coroutine("get_watermark_offsets")
    offsets_for_times = forward_coroutine("offsets_for_times")
    list_topics = forward_coroutine("list_topics")
    consumer_group_metadata = forward_coroutine("consumer_group_metadata")

    def commit(
        self,
        *,
        message: Any = None,
        offsets: list[TopicPartition] | None = None,
        asynchronous: bool = False,
    ) -> Any:
        """confluent's commit, synchronous unless ``asynchronous=True`` is asked for."""
        self._check("commit")
        return self._track("commit", self._commit(message, offsets, asynchronous))

    async def _commit(
        self, message: Any, offsets: list[TopicPartition] | None, asynchronous: bool
    ) -> list[TopicPartition] | None:
        if self._gone and self._nothing_left(message, offsets, await self._target.assignment()):
            return None if asynchronous else []
        bare = message is None and offsets is None and not asynchronous
        try:
            result: list[TopicPartition] | None = await self._target.commit(
                message=message, offsets=offsets, asynchronous=asynchronous
            )
        except KafkaException as exc:
            if not nothing_to_commit(exc, bare):
                raise
            result = []
        if bare and result is not None:
            result += await self._commit_starts()
        return result

    async def _commit_starts(self) -> list[TopicPartition]:
        """As the sync view's: the start offsets of untouched, uncommitted partitions."""
        owned = self._not_gone(await self._target.assignment())
        unknown = self._unknown(await self._target.position(copies(owned))) if owned else []
        starts = self._starts(unknown, await self._resolve(unknown)) if unknown else []
        if not starts:
            return []
        return list(await self._target.commit(offsets=starts, asynchronous=False))

    async def _resolve(self, unknown: list[TopicPartition]) -> dict[Key, tuple[int, int]]:
        """As the sync view's: fill in unknown positions, return the watermarks read."""
        committed: list[TopicPartition] = await _answer_or(
            self._target.committed(copies(unknown), 10), []
        )
        marks: dict[Key, tuple[int, int]] = {}
        for partition in self._to_reset(unknown, committed):
            found = await _answer_or(self._target.get_watermark_offsets(partition, 10), None)
            if found is not None:
                marks[key(partition)] = found
        self._fill(unknown, committed, marks)
        return marks

    def seek(self, partition: TopicPartition) -> Any:
        self._check("seek")
        return self._track("seek", self._seek(partition))

    async def _seek(self, partition: TopicPartition) -> None:
        if not self._stage_seek(partition):
            await self._target.seek(partition)

    def position(self, partitions: list[TopicPartition]) -> Any:
        self._check("position")
        return self._track("position", self._position(partitions))

    async def _position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """As the sync view's ``position()``: librdkafka's, else the committed offset, else the
        ``auto.offset.reset`` start; a lost partition raises ``_STATE``."""
        positions = self._staged_positions(await self._target.position(partitions))
        unknown = self._unknown(positions)
        if unknown:
            await self._resolve(unknown)
        return positions

    def assignment(self) -> Any:
        self._check("assignment")
        return self._track("assignment", self._assignment())

    async def _assignment(self) -> list[TopicPartition]:
        return self._with_incoming(await self._target.assignment())

    def pause(self, partitions: list[TopicPartition]) -> Any:
        self._check("pause")
        return self._track("pause", self._forward_held("pause", partitions, pause=True))

    def resume(self, partitions: list[TopicPartition]) -> Any:
        self._check("resume")
        return self._track("resume", self._forward_held("resume", partitions, pause=False))

    async def _forward_held(self, name: str, partitions: list[TopicPartition], pause: bool) -> None:
        others = self._hold(partitions, pause=pause)
        if others:
            await getattr(self._target, name)(others)


async def _answer_or(call: Awaitable[T], default: T) -> T:
    """What ``call`` answers, or ``default`` when librdkafka cannot (a timeout, closing)."""
    try:
        return await call
    except KafkaException:
        return default


async def _settle(result: object) -> None:
    """Await what a listener method returned (a coroutine from ``async def``)."""
    if inspect.isawaitable(result):
        await result


class _Adapter:
    """The ``async def`` callbacks AIOConsumer gets; they run the registered listener."""

    __slots__ = ("_batch", "_closing", "_handlers", "_pending", "_protocol", "_reset")

    def __init__(
        self, listener: RebalanceListener, protocol: str | None, reset: str | None = None
    ) -> None:
        self._protocol = ProtocolGuess(protocol)  # None: guessed until librdkafka says
        self._reset = reset  # auto.offset.reset (reset_of), None: not known
        self._handlers: dict[str, tuple[Handler, str]] = {}
        self._batch = False  # a consume() is running: its callbacks' errors wait (see _deferred)
        self._closing = ClosingRevocation()
        self._pending: Exception | None = None
        self.set_listener(listener)

    def set_listener(self, listener: RebalanceListener) -> None:
        self._handlers = bind(listener, RebalanceListener, __name__, awaitable=True)

    def callbacks(self) -> dict[str, Callable[..., Awaitable[None]]]:
        """The keyword arguments for ``AIOConsumer.subscribe()``."""
        return {"on_assign": self.on_assign, "on_revoke": self.on_revoke, "on_lost": self.on_lost}

    async def _deferred(self, callback: Awaitable[None]) -> None:
        """Run a callback; during ``consume()`` keep its exception for the next call.

        confluent-kafka drops the messages a ``consume()`` batch already fetched when a
        callback raises through it, and its ``close()`` then hangs (module docstring).
        """
        try:
            await callback
        except Exception as exc:
            if not self._batch:
                raise
            if self._pending is None:
                self._pending = exc

    def raise_pending(self) -> None:
        """Raise (once) the exception a callback raised during the last ``consume()``."""
        pending, self._pending = self._pending, None
        if pending is not None:
            raise pending

    async def on_assign(
        self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition]
    ) -> None:
        await self._deferred(self._assign(consumer, partitions))

    async def on_revoke(
        self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition]
    ) -> None:
        await self._deferred(self._revoke(consumer, partitions, "on_partitions_revoked"))

    async def on_lost(self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition]) -> None:
        await self._deferred(self._revoke(consumer, partitions, "on_partitions_lost"))

    async def _assign(self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition]) -> None:
        if self._closing.started:  # confluent's default (un)assigns: ClosingRevocation
            return
        handler, label = self._handlers["on_partitions_assigned"]
        view = AIOConfluentRebalanceView(consumer, label, incoming=partitions, reset=self._reset)
        try:
            with awaited(view, partitions, listener=handler, protocol=self._protocol.name):
                await _settle(handler(partitions, view))
        finally:
            await self._change(consumer, view._assignment_with_offsets(partitions), add=True)
            if view._paused:
                await consumer.pause(view._staged_pauses())

    async def _revoke(
        self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition], event: str
    ) -> None:
        if self._closing.started:  # told before close(); confluent's default unassigns
            return  # (ClosingRevocation)
        try:
            await self._tell_revoked(consumer, partitions, event)  # eager may revoke nothing
        finally:
            await self._change(consumer, partitions, add=False)
            await consumer.resume(partitions)  # librdkafka would keep them paused for next time

    async def _tell_revoked(
        self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition], event: str
    ) -> None:
        """Run the listener's revoked (or lost) callback on ``partitions`` with a view."""
        handler, label = self._handlers[event]
        view = AIOConfluentRebalanceView(consumer, label, reset=self._reset)
        if event == "on_partitions_lost":
            view._lose(partitions)
        with awaited(view, partitions, listener=handler, protocol=self._protocol.name):
            await _settle(handler(partitions, view))

    async def before_close(self, consumer: _PlainAIOConsumer) -> None:
        """Revoke the whole assignment through the listener while still a group member
        (``ClosingRevocation``: librdkafka's ``close()`` may leave the group first)."""
        owned = self._closing.start(await consumer.assignment())
        if owned:
            await self._tell_revoked(consumer, owned, "on_partitions_revoked")

    async def _change(
        self, consumer: _PlainAIOConsumer, partitions: list[TopicPartition], add: bool
    ) -> None:
        """(Un)assign with the call the rebalance protocol accepts, learning which one it is."""
        guessed, other = self._protocol.calls(consumer, partitions, add)
        try:
            await guessed()
        except KafkaException as exc:
            if not is_state_error(exc):
                raise
            await other()


#: Where the registered adapter lives on the consumer object (AIOConsumer has a __dict__).
_ATTRIBUTE = "_rebalance_guard_adapter"


class AIOConsumer(_PlainAIOConsumer):
    """``confluent_kafka.aio.AIOConsumer`` that remembers its rebalance protocol.

    A drop-in: same arguments. ``AIOConsumer`` keeps no configuration, so a listener
    registered on a plain one cannot know the protocol (module docstring, "Protocols");
    registered on this one it does, and librdkafka logs no refused ``assign()``.
    """

    def __init__(self, consumer_conf: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        self.rebalance_protocol: RebalanceProtocol = protocol_of(consumer_conf)
        self.offset_reset = reset_of(consumer_conf)
        super().__init__(consumer_conf, *args, **kwargs)


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
    checked_protocol(protocol)
    if not isinstance(consumer, _PlainAIOConsumer):
        raise TypeError(
            f"set_rebalance_listener() needs a confluent_kafka.aio.AIOConsumer, got "
            f"{type(consumer).__module__}.{type(consumer).__name__} (for the sync "
            f"confluent_kafka.Consumer use rebalance_guard.confluent_kafka)"
        )
    executor = getattr(consumer, "executor", None)
    if isinstance(executor, ThreadPoolExecutor) and executor._max_workers < 2:
        raise ValueError(
            "this AIOConsumer's executor has 1 worker, which poll() holds while the rebalance "
            "callbacks run: the listener's calls (and the adapter's assign()) would wait for it "
            "forever; create the AIOConsumer with max_workers >= 2 (confluent's own requirement "
            "for calls from callbacks)"
        )
    adapter: _Adapter | None = consumer.__dict__.get(_ATTRIBUTE)
    if listener is None:
        if adapter is not None:  # callbacks already given to librdkafka keep running: no-ops
            adapter.set_listener(RebalanceListener())
        consumer.__dict__.pop("subscribe", None)
        return
    if adapter is None:
        known = protocol or getattr(consumer, "rebalance_protocol", None)
        reset = getattr(consumer, "offset_reset", None)
        adapter = consumer.__dict__[_ATTRIBUTE] = _Adapter(listener, known, reset)
        consumer.__dict__.update(_polling_with(consumer, adapter))
    else:
        adapter.set_listener(listener)
    consumer.__dict__["subscribe"] = _subscribe_with(consumer, adapter)


#: What a registration shadows on the consumer object (removed with the adapter).
_SHADOWED = (_ATTRIBUTE, "subscribe", "poll", "consume", "close")


def _subscribe_with(
    consumer: _PlainAIOConsumer, adapter: _Adapter
) -> Callable[..., Awaitable[None]]:
    """``consumer.subscribe`` that passes the adapter's callbacks unless given others."""
    original = type(consumer).subscribe

    async def subscribe(topics: list[str], *args: Any, **kwargs: Any) -> None:
        if args or {"on_assign", "on_revoke", "on_lost"} & kwargs.keys():
            for name in _SHADOWED:  # explicit callbacks replace the listener and its adapter
                consumer.__dict__.pop(name, None)
            await original(consumer, topics, *args, **kwargs)
            return
        await original(consumer, topics, **kwargs, **adapter.callbacks())

    subscribe.__doc__ = original.__doc__
    return subscribe


def _polling_with(consumer: _PlainAIOConsumer, adapter: _Adapter) -> dict[str, Callable[..., Any]]:
    """``poll``, ``consume`` and ``close`` that raise a callback error kept during ``consume()``
    (from the next of these calls, after its batch was delivered); ``close`` revokes through
    the listener first (:class:`ClosingRevocation`)."""
    cls = type(consumer)

    async def poll(*args: Any, **kwargs: Any) -> Any:
        adapter.raise_pending()
        return await cls.poll(consumer, *args, **kwargs)

    async def consume(*args: Any, **kwargs: Any) -> Any:
        adapter.raise_pending()
        adapter._batch = True
        try:
            return await cls.consume(consumer, *args, **kwargs)
        finally:
            adapter._batch = False

    async def close(*args: Any, **kwargs: Any) -> Any:
        try:
            await adapter.before_close(consumer)  # the listener's commit while still a member
        finally:
            result = await cls.close(consumer, *args, **kwargs)
        adapter.raise_pending()
        return result

    return {"poll": poll, "consume": consume, "close": close}


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
