"""KIP-1306 rebalance listeners for kafka-python (2.x and 3.x).

Callbacks receive ``(partitions, consumer)`` where ``consumer`` is a restricted
:class:`RebalanceConsumer` view that expires when the callback returns.

Why the adapter differs by major version:

* kafka-python 3 runs listener callbacks on its IO thread, where every blocking consumer
  call (``commit()``, ``committed()``, ``position()``, offset queries) raises
  ``RuntimeError: Cannot block on net.run() from the IO thread itself``. The adapter
  registers coroutine callbacks, runs the user's synchronous callback on a short-lived
  worker thread and awaits it without blocking the loop, so those calls just work.
* kafka-python 2 runs callbacks on the polling thread, where blocking calls already work;
  the adapter calls the user's callback inline.

Both majors get the same error contract: an exception from a callback never interrupts the
rebalance (kafka-python 3 would otherwise re-run a failing eager ``on_partitions_revoked``
on every poll and never rejoin; kafka-python 2 would only log it). The rebalance
completes, the other callbacks run, and the next ``poll()`` raises
``KafkaError("User rebalance callback throws an error")`` from the first exception, as
kafka-python 3 itself does for ``on_partitions_assigned``. Exceptions during ``close()``
propagate from ``close()``.

Partitions passed to a revoked or lost callback lose their pause afterwards, on both
majors (kafka-python 3 alone would keep it for partitions an eager rebalance hands back);
re-pause in ``on_partitions_assigned``, where a pause persists.

The listener is kept on ``consumer._subscription`` (where kafka-python looks for it), so
it takes effect from the next poll; ``subscribe()`` without ``listener=`` keeps it.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Literal, Protocol, overload

from rebalance_guard._view import ExpiringView, forward, live, takes_view

if TYPE_CHECKING:
    from kafka import KafkaConsumer
    from kafka.consumer.subscription_state import ConsumerRebalanceListener
    from kafka.future import Future
    from kafka.structs import (
        OffsetAndMetadata,
        OffsetAndTimestamp,
        TopicPartition,
    )

__all__ = [
    "GroupMetadata",
    "KafkaPythonRebalanceView",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
]

log = logging.getLogger(__name__)

CALLBACKS = ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")


class GroupMetadata(Protocol):
    """kafka-python 3's ``ConsumerGroupMetadata``, structurally (2.x and its stubs lack it)."""

    @property
    def group_id(self) -> str | None: ...
    @property
    def generation_id(self) -> int: ...
    @property
    def member_id(self) -> str: ...
    @property
    def group_instance_id(self) -> str | None: ...


class RebalanceConsumer(Protocol):
    """What a rebalance callback may do with the consumer (KIP-1306's permitted list)."""

    def commit(
        self,
        offsets: Mapping[TopicPartition, OffsetAndMetadata] | None = None,
        timeout_ms: int | None = None,
    ) -> None: ...

    def commit_async(
        self,
        offsets: Mapping[TopicPartition, OffsetAndMetadata] | None = None,
        callback: Callable[[Mapping[TopicPartition, OffsetAndMetadata], object], object]
        | None = None,
    ) -> Future: ...

    @overload
    def committed(
        self, partition: TopicPartition, metadata: Literal[False] = False,
        timeout_ms: int | None = None,
    ) -> int | None: ...  # fmt: skip

    @overload
    def committed(
        self, partition: TopicPartition, metadata: Literal[True], timeout_ms: int | None = None
    ) -> OffsetAndMetadata | None: ...

    @overload
    def committed(
        self, partition: TopicPartition, metadata: bool, timeout_ms: int | None = None
    ) -> int | OffsetAndMetadata | None: ...

    def position(self, partition: TopicPartition, timeout_ms: int | None = None) -> int | None: ...

    def seek(self, partition: TopicPartition, offset: int) -> None: ...

    def seek_to_beginning(self, *partitions: TopicPartition) -> None: ...

    def seek_to_end(self, *partitions: TopicPartition) -> None: ...

    def assignment(self) -> set[TopicPartition]: ...

    def pause(self, *partitions: TopicPartition) -> None: ...

    def resume(self, *partitions: TopicPartition) -> None: ...

    def paused(self) -> set[TopicPartition]: ...

    def beginning_offsets(
        self, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]: ...

    def end_offsets(
        self, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]: ...

    def offsets_for_times(
        self, timestamps: Mapping[TopicPartition, int], timeout_ms: int | None = None
    ) -> dict[TopicPartition, OffsetAndTimestamp | None]: ...

    def partitions_for_topic(self, topic: str) -> set[int]: ...

    def topics(self) -> set[str]: ...

    def highwater(self, partition: TopicPartition) -> int | None: ...

    def group_metadata(self) -> GroupMetadata:
        """kafka-python >= 3 only: on 2.x the view raises AttributeError saying so."""
        ...


class RebalanceListener:
    """Base for KIP-1306 listeners: override what you need; lost defaults to revoked."""

    def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: RebalanceConsumer, /
    ) -> None:
        """Partitions now owned: seek to externally stored offsets or re-pause here."""

    def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: RebalanceConsumer, /
    ) -> None:
        """Partitions about to move: commit processed offsets here (synchronously)."""

    def on_partitions_lost(
        self, partitions: set[TopicPartition], consumer: RebalanceConsumer, /
    ) -> None:
        """Partitions already owned elsewhere; defaults to :meth:`on_partitions_revoked`."""
        self.on_partitions_revoked(partitions, consumer)


def _forward_timeout(name: str) -> Any:
    """Like :func:`forward`, but omits ``timeout_ms=None``: kafka-python 2 lacks that argument.

    An explicit ``timeout_ms`` on 2.x gets kafka-python's own TypeError.
    """

    def method(self: ExpiringView, *args: Any, timeout_ms: int | None = None) -> Any:
        self._check(name)
        if timeout_ms is None:
            return getattr(self._target, name)(*args)
        return getattr(self._target, name)(*args, timeout_ms=timeout_ms)

    method.__name__ = method.__qualname__ = name
    return method


class KafkaPythonRebalanceView(ExpiringView):
    """The runtime :class:`RebalanceConsumer`: a KafkaConsumer restricted and expiring."""

    __slots__ = ()

    commit = forward("commit")
    commit_async = forward("commit_async")
    committed = forward("committed")
    position = forward("position")
    seek = forward("seek")
    seek_to_beginning = forward("seek_to_beginning")
    seek_to_end = forward("seek_to_end")
    assignment = forward("assignment")
    pause = forward("pause")
    resume = forward("resume")
    paused = forward("paused")
    partitions_for_topic = forward("partitions_for_topic")
    topics = forward("topics")
    highwater = forward("highwater")
    beginning_offsets = _forward_timeout("beginning_offsets")
    end_offsets = _forward_timeout("end_offsets")
    offsets_for_times = _forward_timeout("offsets_for_times")

    def group_metadata(self) -> Any:
        self._check("group_metadata")
        method = getattr(self._target, "group_metadata", None)
        if method is None:
            raise AttributeError("group_metadata() needs kafka-python >= 3")
        return method()


class _Dispatcher:
    """Calls one user listener's callbacks with a fresh view each, and keeps their errors."""

    def __init__(self, consumer: KafkaConsumer, listener: object, state: _ConsumerState) -> None:
        self._consumer = consumer
        self._state = state
        owner = type(listener).__name__
        self._callbacks: dict[str, tuple[Callable[..., object], bool, str]] = {}
        for name in CALLBACKS:
            callback = _resolve(listener, name)
            self._callbacks[name] = (callback, takes_view(callback), f"{owner}.{name}")

    def dispatch(self, name: str, partitions: Any) -> None:
        """Run the callback; on close() re-raise its error, otherwise keep it for poll()."""
        callback, with_view, label = self._callbacks[name]
        try:
            if not with_view:
                callback(partitions)
            else:
                with live(KafkaPythonRebalanceView(self._consumer, label)) as view:
                    callback(partitions, view)
        except Exception as exc:
            if getattr(self._consumer, "_closed", False):
                raise
            log.exception("rebalance listener %s() failed; poll() will raise it", label)
            self._state.keep(exc)
        finally:
            if name != "on_partitions_assigned":
                self._clear_pause(partitions)

    def _clear_pause(self, revoked: Any) -> None:
        """Revoked partitions lose their pause, as in Java and kafka-python 2.

        kafka-python 3 keeps the paused flag of a partition that an eager rebalance revokes
        and hands straight back, so without this a pause would silently outlive the
        revocation; re-pause in ``on_partitions_assigned`` to keep a partition paused.
        """
        stale = set(revoked) & self._consumer.paused()
        if stale:
            self._consumer.resume(*stale)


def _resolve(listener: object, name: str) -> Callable[..., object]:
    """The callable for ``name``; a lost callback not overridden falls back to revoked."""
    if name == "on_partitions_lost" and (
        not hasattr(listener, name)
        or getattr(type(listener), name, None) is RebalanceListener.on_partitions_lost
    ):
        name = "on_partitions_revoked"
    callback: Callable[..., object] | None = getattr(listener, name, None)
    if not callable(callback):
        raise TypeError(f"{type(listener).__name__} has no callable {name}()")
    if inspect.iscoroutinefunction(callback):
        raise TypeError(
            f"{type(listener).__name__}.{name}() is async: kafka-python listeners are "
            f"synchronous (rebalance_guard runs them off kafka-python 3's IO thread); use def"
        )
    return callback


class _InlineGuard:
    """kafka-python 2: callbacks already run on the polling thread; call them there."""

    def __init__(self, dispatcher: _Dispatcher) -> None:
        self.dispatcher = dispatcher

    def on_partitions_assigned(self, partitions: Any) -> None:
        self.dispatcher.dispatch("on_partitions_assigned", partitions)

    def on_partitions_revoked(self, partitions: Any) -> None:
        self.dispatcher.dispatch("on_partitions_revoked", partitions)

    def on_partitions_lost(self, partitions: Any) -> None:
        self.dispatcher.dispatch("on_partitions_lost", partitions)


class _ThreadedGuard:
    """kafka-python 3: coroutine callbacks that run the user's callback on a worker thread.

    The IO loop keeps serving heartbeats and the worker's own blocking calls (commit,
    committed, position...) while the coroutine waits for the worker to finish.
    """

    def __init__(self, dispatcher: _Dispatcher, net: Any) -> None:
        self.dispatcher = dispatcher
        self._net = net

    async def on_partitions_assigned(self, partitions: Any) -> None:
        await self._offload("on_partitions_assigned", partitions)

    async def on_partitions_revoked(self, partitions: Any) -> None:
        await self._offload("on_partitions_revoked", partitions)

    async def on_partitions_lost(self, partitions: Any) -> None:
        await self._offload("on_partitions_lost", partitions)

    async def _offload(self, name: str, partitions: Any) -> None:
        from kafka.future import Future

        done = Future()
        outcome: list[BaseException] = []

        def resolve() -> None:  # runs on the IO thread, which owns the future's waiters
            if outcome:
                done.failure(outcome[0])
            else:
                done.success(None)

        def work() -> None:
            try:
                self.dispatcher.dispatch(name, partitions)
            except BaseException as exc:
                outcome.append(exc)
            finally:
                try:
                    self._net.call_soon_threadsafe(resolve)
                except Exception:  # loop already closed: nobody is waiting any more
                    log.debug("IO loop gone before %s() finished", name, exc_info=True)

        threading.Thread(target=work, name=f"rebalance-guard-{name}", daemon=True).start()
        await done


class _ConsumerState:
    """Per-consumer registration: the listener to keep across subscribe(), pending errors."""

    def __init__(self, consumer: KafkaConsumer) -> None:
        self.listener: object | None = None
        self._pending: Exception | None = None
        subscription = consumer._subscription
        coordinator = consumer._coordinator
        self._subscribe = subscription.subscribe
        self._poll = coordinator.poll
        self._subscription = subscription
        subscription.subscribe = self.subscribe
        coordinator.poll = self.poll

    def subscribe(self, topics: Any = (), pattern: Any = None, listener: Any = None) -> None:
        """subscribe() without ``listener=`` keeps the registered listener (KIP-1306)."""
        with getattr(self._subscription, "_lock", None) or nullcontext():
            self._subscribe(topics=topics, pattern=pattern, listener=listener)
            if listener is not None:
                self.listener = None  # an explicit subscribe(listener=...) wins, as before
            elif self.listener is not None:
                self._subscription.rebalance_listener = self.listener

    def poll(self, *args: Any, **kwargs: Any) -> Any:
        """The coordinator's poll (the rebalance), then any callback error it produced."""
        result = self._poll(*args, **kwargs)
        pending, self._pending = self._pending, None
        if pending is not None:
            from kafka.errors import KafkaError

            raise KafkaError("User rebalance callback throws an error") from pending
        return result

    def keep(self, exc: Exception) -> None:
        if self._pending is None:
            self._pending = exc


_STATE_ATTR = "_rebalance_guard_state"


def _state(consumer: KafkaConsumer) -> _ConsumerState:
    state: _ConsumerState | None = getattr(consumer, _STATE_ATTR, None)
    if state is None:
        state = _ConsumerState(consumer)
        setattr(consumer, _STATE_ATTR, state)
    return state


def _is_client_listener(listener: object) -> bool:
    from kafka.consumer import subscription_state as kafka_listeners

    bases = tuple(
        getattr(kafka_listeners, name)
        for name in ("ConsumerRebalanceListener", "AsyncConsumerRebalanceListener")
        if hasattr(kafka_listeners, name)
    )
    return isinstance(listener, bases)


def set_rebalance_listener(
    consumer: KafkaConsumer,
    listener: RebalanceListener | ConsumerRebalanceListener | None,
) -> None:
    """Register ``listener`` on ``consumer`` (replacing any), or remove it with ``None``.

    Legal before or after ``subscribe()``; effective from the next ``poll()``. A
    kafka-python ``ConsumerRebalanceListener`` (or 3.x ``AsyncConsumerRebalanceListener``)
    is registered unchanged: one-arg callbacks, the client's own threading. Anything else
    gets KIP-1306 two-arg callbacks with a view (one-arg methods are called as before).
    """
    from kafka import KafkaConsumer

    if not isinstance(consumer, KafkaConsumer):
        raise TypeError(f"consumer must be a kafka.KafkaConsumer, not {type(consumer).__name__}")
    state = _state(consumer)
    registered: object | None = listener
    if listener is not None and not _is_client_listener(listener):
        dispatcher = _Dispatcher(consumer, listener, state)
        net = getattr(consumer, "_net", None)
        threaded = hasattr(consumer._coordinator, "_invoke_rebalance_listener_async")
        registered = _ThreadedGuard(dispatcher, net) if threaded else _InlineGuard(dispatcher)
    state.listener = registered
    consumer._subscription.rebalance_listener = registered
