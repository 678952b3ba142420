"""confluent-kafka's ``AIOConsumer`` adapter: what :mod:`rebalance_guard.confluent_kafka_aio`
imports on first use (its module docstring says how it maps onto ``AIOConsumer``, and why).

Importing this module imports confluent_kafka; the public module imports without it and
serves this module's classes through its module ``__getattr__`` (``AIOConsumer`` must
subclass confluent's), its functions importing this module when called. The public names
keep the public module as theirs (``__module__``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

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
from rebalance_guard._view import AsyncView, awaited, forward_coroutine

try:
    from confluent_kafka.aio import AIOConsumer as _PlainAIOConsumer
except ImportError as exc:  # pragma: no cover - confluent-kafka < 2.12 has no asyncio consumer
    raise ImportError(
        "rebalance_guard.confluent_kafka_aio adapts confluent_kafka.aio.AIOConsumer, which this "
        "confluent-kafka does not have: upgrade it (pip install 'confluent-kafka>=2.12')"
    ) from exc

T = TypeVar("T")

#: The public module: where these classes are documented, and whose listeners they run.
PUBLIC = "rebalance_guard.confluent_kafka_aio"


class AIOConfluentRebalanceView(StagingView, AsyncView):
    """The runtime :class:`RebalanceConsumer` over an ``AIOConsumer``, until expiry.

    Each method checks the view is live when called and returns a coroutine; seeks and
    pauses on the incoming partitions of an assignment are staged for the adapter.
    """

    __slots__ = ()
    __module__ = PUBLIC

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
            self._target.committed(copies(unknown), self._fetch_timeout()), []
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

    def __init__(self, listener: object, protocol: str | None, reset: str | None = None) -> None:
        self._protocol = ProtocolGuess(protocol)  # None: guessed until librdkafka says
        self._reset = reset  # auto.offset.reset (reset_of), None: not known
        self._handlers: dict[str, tuple[Handler, str]] = {}
        self._batch = False  # a consume() is running: its callbacks' errors wait (see _deferred)
        self._closing = ClosingRevocation()
        self._pending: Exception | None = None
        self.set_listener(listener)

    def set_listener(self, listener: object) -> None:
        """Run ``listener`` (a :class:`~rebalance_guard.confluent_kafka_aio.RebalanceListener`)
        from the next callback."""
        self._handlers = bind(listener, PUBLIC, awaitable=True)

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
        given = as_given(partitions)
        view = AIOConfluentRebalanceView(consumer, label, incoming=given, reset=self._reset)
        try:
            with awaited(view, partitions, listener=handler, protocol=self._protocol.name):
                await _settle(handler(partitions, view))
        finally:
            await self._change(consumer, view._assignment_with_offsets(given), add=True)
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

    __module__ = PUBLIC

    def __init__(self, consumer_conf: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        self.rebalance_protocol: RebalanceProtocol = protocol_of(consumer_conf)
        self.offset_reset = reset_of(consumer_conf)
        super().__init__(consumer_conf, *args, **kwargs)


def set_rebalance_listener(
    consumer: _PlainAIOConsumer,
    listener: object | None,
    *,
    protocol: RebalanceProtocol | None = None,
    idle: object,
) -> None:
    """:func:`rebalance_guard.confluent_kafka_aio.set_rebalance_listener` (documented there)."""
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
            adapter.set_listener(idle)
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
