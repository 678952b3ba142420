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

``close()`` revokes on both majors, as Java's does (``onLeavePrepare``): kafka-python 3 calls
the listener itself before leaving the group; kafka-python 2 leaves without calling it, so a
member that commits on revoke and leaves with just ``close()`` committed nothing since its
last rebalance. On 2.x the adapter calls ``on_partitions_revoked`` (``on_partitions_lost``
without a generation) with what is still assigned, before kafka-python's own close.

Partitions passed to a revoked or lost callback lose their pause afterwards, on both
majors (kafka-python 3 alone would keep it for partitions an eager rebalance hands back);
re-pause in ``on_partitions_assigned``, where a pause persists.

The listener is kept on ``consumer._subscription`` (where kafka-python looks for it), so
it takes effect from the next poll; ``subscribe()`` without ``listener=`` keeps it.

Protocols: kafka-python speaks only the classic group protocol. 3.x runs eager assignors and
cooperative-sticky (KIP-429: callbacks get only the partitions that move); 2.x runs eager
only. Neither implements KIP-848's ``group.protocol=consumer``, so there is nothing for the
adapter to do for it; the adapter follows the generation's protocol (``_protocol_now``).

Revoked partitions are still assigned during ``on_partitions_revoked`` (KIP-1306, Java):
``assignment()`` lists them, ``position()`` works and a bare ``commit()``/``commit_async()``
commits their consumed positions. Eager, lost, subscription-change and close revocations in
kafka-python already run the callback before changing the assignment. kafka-python 3's
*cooperative* join does not: it drops the revoked partitions first, so a bare ``commit()``
skipped them and their next owner re-read everything since the last commit (about 50 of 300
messages per run in a three-member join/leave scenario). The adapter keeps those partitions'
state in the assignment, marked pending revocation so nothing is fetched for them, until the
revoked callback returns.

Lost partitions (the member fell out of the group: its poll timer expired and the heartbeat
thread left, or the broker no longer knows it): kafka-python 3 calls ``on_partitions_lost``;
kafka-python 2 has no lost callback and calls ``on_partitions_revoked``, which the adapter
dispatches to ``on_partitions_lost`` when the member has no generation (Java's check). Both
majors (and Java) run the callback before they clear the assignment, so they still list the
lost partitions; the view does not (KIP-1306: they are already gone): ``assignment()`` and
``paused()`` leave them out, ``position()`` raises ``IllegalStateError`` as for any
unassigned partition, and a bare ``commit()`` commits nothing (a loss is of the whole
assignment). An explicit commit of them fails in kafka-python
(``CommitFailedError``: not part of an active group), so nothing is committed over their new
owner's progress (tests/conformance/test_lost.py).

kafka-python 3.0.12 also throws away a JoinGroup/SyncGroup result that completes while no
``poll()`` is waiting for it (a ``poll(timeout_ms)`` that expired mid-join leaves the round
trip running; the next poll replaces a finished one with a new JoinGroup). The member then
never applies that generation's assignment: no assigned callback (a joining member waited
more than 8 s for one while two partitions had no owner), and under cooperative rebalancing
it keeps fetching partitions the lost generation gave to another member, so both process
them (the 540 duplicates once seen in CI). And a round trip left running can be forgotten
altogether: kafka-python re-awaits it only while ``need_rejoin()`` holds, which a rejoin for
a metadata or subscription change stops doing once the round trip itself has sent its
JoinGroup or (as leader) assigned; the member then stays in the rebalance for good, its
revoked partitions pending revocation, not fetched. So every join that kafka-python starts
or resumes inside ``poll()`` (``ensure_active_group``) waits there for its end, bounded by
kafka-python's own JoinGroup timeout (``max(request_timeout_ms, max_poll_interval_ms +
5 s)``): ``poll()`` may return later than its timeout during a rebalance, never with a
thrown-away assignment.

Slow callbacks: every callback is timed, and one taking longer than the listener's
``callback_logging.slow_after`` (:class:`rebalance_guard.CallbackLogging`, one second by
default) logs one WARNING on the ``rebalance_guard`` logger naming the callback, the client,
the number of partitions, the duration, the protocol and what the group goes through
meanwhile; every callback also logs one record at ``callback_logging.level`` (DEBUG) with
what it did through the view. kafka-python 3 times its own listener calls too and warns
after one second ("Rebalance listener ... took ...s. Sync listeners block the consumer event
loop (including heartbeats)"); for the adapter that warning would time the worker-thread hop
and blame the event loop, which the adapter keeps free, so while a :class:`RebalanceListener`
is registered it is not logged: users see rebalance_guard's warning, once per slow callback.
A kafka-python ``ConsumerRebalanceListener`` registered unchanged is not timed by
rebalance_guard and keeps kafka-python's own warning (kafka-python 2 has none).

Async listeners (kafka-python 3's ``AsyncConsumerRebalanceListener``, with a view): derive
from :class:`AsyncRebalanceListener` and write ``async def`` callbacks; kafka-python 3 awaits
them on its IO loop (its own ``NetworkSelector``, not asyncio), where a blocking consumer
call raises. Their view, :class:`AsyncRebalanceConsumer`, offers the same methods with the
same expiry and semantics; the ones that block on the IO thread (``commit``, ``committed``,
``position``, offset and topic queries) are coroutines there, each run on a short-lived
worker thread while the loop keeps heartbeating, and a coroutine of the view the callback
never awaited is an error (``NotAwaitedError``) when it returns. ``commit_async()`` returns
kafka-python's own awaitable ``Future``, as on the client. Blocking work of your own goes
through :func:`to_thread` (``asyncio.to_thread`` needs an asyncio loop, which is not there).
A listener's callbacks are all ``def`` (:class:`RebalanceListener`) or all ``async def``
(:class:`AsyncRebalanceListener`): anything else is refused at registration (TypeError).
kafka-python 2 has no IO loop and cannot await its futures, so an
:class:`AsyncRebalanceListener` is refused there too: its polling thread already runs ``def``
callbacks, where the blocking view is safe. kafka-python's own
``AsyncConsumerRebalanceListener`` is still registered unchanged (it gets no view).
"""

from __future__ import annotations

import inspect
import logging
import math
import threading
import time
from collections.abc import Callable, Coroutine, Generator, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, Protocol, TypeVar, overload

from rebalance_guard._errors import NotAwaitedError
from rebalance_guard._observe import CallbackLogging, settings_of
from rebalance_guard._view import AsyncView, ExpiringView, awaited, forward, live, takes_view

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
    "AsyncRebalanceConsumer",
    "AsyncRebalanceListener",
    "AwaitableFuture",
    "GroupMetadata",
    "KafkaPythonRebalanceView",
    "NotAwaitedError",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
    "to_thread",
]

T = TypeVar("T")
P = ParamSpec("P")

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

    #: How the callbacks are logged: when one is slow, and the level of its record.
    callback_logging: CallbackLogging = CallbackLogging()

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


class AwaitableFuture(Protocol):
    """kafka-python 3's ``Future``, which its IO loop awaits (the stubs type checkers read are
    kafka-python 2's, whose Future is not awaitable): what the async view's ``commit_async``
    returns."""

    def __await__(self) -> Generator[Any, None, Any]: ...

    @property
    def is_done(self) -> bool: ...

    @property
    def value(self) -> Any: ...

    @property
    def exception(self) -> BaseException | None: ...

    def succeeded(self) -> bool: ...

    def failed(self) -> bool: ...

    def add_callback(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def add_errback(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...


class AsyncRebalanceConsumer(Protocol):
    """The view of an :class:`AsyncRebalanceListener`: :class:`RebalanceConsumer`'s methods,
    those that block on kafka-python 3's IO thread as coroutines (awaited off that thread)."""

    async def commit(
        self,
        offsets: Mapping[TopicPartition, OffsetAndMetadata] | None = None,
        timeout_ms: int | None = None,
    ) -> None: ...

    def commit_async(
        self,
        offsets: Mapping[TopicPartition, OffsetAndMetadata] | None = None,
        callback: Callable[[Mapping[TopicPartition, OffsetAndMetadata], object], object]
        | None = None,
    ) -> AwaitableFuture:
        """kafka-python's own Future, awaitable on its IO loop (completes with the commit)."""
        ...

    @overload
    async def committed(
        self, partition: TopicPartition, metadata: Literal[False] = False,
        timeout_ms: int | None = None,
    ) -> int | None: ...  # fmt: skip

    @overload
    async def committed(
        self, partition: TopicPartition, metadata: Literal[True], timeout_ms: int | None = None
    ) -> OffsetAndMetadata | None: ...

    @overload
    async def committed(
        self, partition: TopicPartition, metadata: bool, timeout_ms: int | None = None
    ) -> int | OffsetAndMetadata | None: ...

    async def committed(  # the one definition at runtime: a coroutine function, as tested
        self, partition: TopicPartition, metadata: bool = False, timeout_ms: int | None = None
    ) -> int | OffsetAndMetadata | None: ...

    async def position(
        self, partition: TopicPartition, timeout_ms: int | None = None
    ) -> int | None: ...

    def seek(self, partition: TopicPartition, offset: int) -> None: ...

    def seek_to_beginning(self, *partitions: TopicPartition) -> None: ...

    def seek_to_end(self, *partitions: TopicPartition) -> None: ...

    def assignment(self) -> set[TopicPartition]: ...

    def pause(self, *partitions: TopicPartition) -> None: ...

    def resume(self, *partitions: TopicPartition) -> None: ...

    def paused(self) -> set[TopicPartition]: ...

    async def beginning_offsets(
        self, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]: ...

    async def end_offsets(
        self, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]: ...

    async def offsets_for_times(
        self, timestamps: Mapping[TopicPartition, int], timeout_ms: int | None = None
    ) -> dict[TopicPartition, OffsetAndTimestamp | None]: ...

    async def partitions_for_topic(self, topic: str) -> set[int]: ...

    async def topics(self) -> set[str]: ...

    def highwater(self, partition: TopicPartition) -> int | None: ...

    def group_metadata(self) -> GroupMetadata: ...


class AsyncRebalanceListener:
    """Base for KIP-1306 listeners awaited on kafka-python 3's IO loop (its
    ``AsyncConsumerRebalanceListener`` with a view): override with ``async def``; lost
    defaults to revoked. Needs kafka-python >= 3."""

    #: How the callbacks are logged: when one is slow, and the level of its record.
    callback_logging: CallbackLogging = CallbackLogging()

    async def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer, /
    ) -> None:
        """Partitions now owned: seek to externally stored offsets or re-pause here."""

    async def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer, /
    ) -> None:
        """Partitions about to move: ``await consumer.commit(...)`` processed offsets here."""

    async def on_partitions_lost(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer, /
    ) -> None:
        """Partitions already owned elsewhere; defaults to :meth:`on_partitions_revoked`."""
        await self.on_partitions_revoked(partitions, consumer)


#: Per IO thread: the kafka-python 3 loop of the async callback running there (to_thread).
_callback_loop = threading.local()


async def to_thread(function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Run blocking work of an :class:`AsyncRebalanceListener` callback on a worker thread.

    kafka-python 3's IO loop is not asyncio's, so ``asyncio.to_thread`` cannot be awaited
    there; this can, and the loop keeps heartbeating meanwhile. Outside kafka-python 3 (the
    test harness) the function runs inline.
    """
    net = getattr(_callback_loop, "net", False)
    if net is False:
        raise RuntimeError(
            "to_thread() is for the body of an AsyncRebalanceListener callback, which "
            "kafka-python 3 awaits on its IO loop"
        )
    if net is None:
        return function(*args, **kwargs)
    result: T = await _in_thread(net, lambda: function(*args, **kwargs))
    return result


def _in_thread(net: Any, work: Callable[[], Any]) -> Any:
    """A kafka Future of ``work()`` run on a new worker thread, resolved on the IO thread
    (which owns its waiters: a Future resolved elsewhere would not wake the loop)."""
    from kafka.future import Future

    done = Future()
    outcome: list[Any] = []

    def resolve() -> None:
        if isinstance(outcome[0], BaseException):
            done.failure(outcome[0])
        else:
            done.success(outcome[1])

    def run() -> None:
        try:
            outcome[:] = [None, work()]
        except BaseException as exc:
            outcome[:] = [exc]
        finally:
            try:
                net.call_soon_threadsafe(resolve)
            except Exception:  # loop already closed: nobody is waiting any more
                log.debug("IO loop gone before %r finished", work, exc_info=True)

    threading.Thread(target=run, name="rebalance-guard-worker", daemon=True).start()
    return done


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

    committed = forward("committed")
    seek = forward("seek")
    seek_to_beginning = forward("seek_to_beginning")
    seek_to_end = forward("seek_to_end")
    pause = forward("pause")
    resume = forward("resume")
    partitions_for_topic = forward("partitions_for_topic")
    topics = forward("topics")
    highwater = forward("highwater")
    beginning_offsets = _forward_timeout("beginning_offsets")
    end_offsets = _forward_timeout("end_offsets")
    offsets_for_times = _forward_timeout("offsets_for_times")

    def commit(self, offsets: Any = None, *args: Any, **kwargs: Any) -> Any:
        self._check("commit")
        return self._target.commit(self._committing(offsets), *args, **kwargs)

    def commit_async(self, offsets: Any = None, *args: Any, **kwargs: Any) -> Any:
        self._check("commit_async")
        return self._target.commit_async(self._committing(offsets), *args, **kwargs)

    def _bare_commit_offsets(self, result: Any) -> dict[str, int | None] | None:
        """What a bare commit committed: the consumed positions (kafka-python's own choice)."""
        subscription = getattr(self._target, "_subscription", None)
        consumed = getattr(subscription, "all_consumed_offsets", None)
        if consumed is None or self._lost_everything(self._target.assignment()):
            return None if consumed is None else {}
        return {f"{tp.topic}-{tp.partition}": meta.offset for tp, meta in consumed().items()}

    def _committing(self, offsets: Any) -> Any:
        """What a commit commits: a bare one in a loss of everything commits nothing
        (:meth:`_lost_everything`; kafka-python commits an empty dict as a no-op, its
        callback and Future still run)."""
        if offsets is None and self._lost_everything(self._target.assignment()):
            return {}
        return offsets

    def assignment(self) -> Any:
        self._check("assignment")
        return set(self._not_gone(self._target.assignment()))

    def paused(self) -> Any:
        self._check("paused")
        return set(self._not_gone(self._target.paused()))

    def position(self, partition: Any, timeout_ms: int | None = None) -> Any:
        """kafka-python's position(); on 2.x asked in short slices (same answer, same timeout).

        kafka-python 2.3 ``position()`` sets a missing position from the committed offset and
        then waits in ``KafkaClient.poll`` for any network event, up to ``request_timeout_ms``
        (305 s by default) when nothing is in flight: in a revocation right after an
        assignment (kafka-python 2 disables the heartbeat while it rejoins) a position that
        was already known blocked the callback for minutes. Slices of 100 ms return as soon
        as the position is set; ``timeout_ms`` still bounds the whole call (None: no bound).
        """
        self._check("position")
        if self._is_gone(partition):
            from kafka.errors import IllegalStateError  # what kafka-python raises: unassigned

            raise IllegalStateError(self._gone_message(partition))
        consumer = self._target
        coordinator = getattr(consumer, "_coordinator", None)  # None: a test double
        if coordinator is None or hasattr(coordinator, "_invoke_rebalance_listener_async"):
            if timeout_ms is None:
                return consumer.position(partition)
            return consumer.position(partition, timeout_ms=timeout_ms)
        deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        while True:
            left = 100.0
            if deadline is not None:
                left = max(0.0, min(left, (deadline - time.monotonic()) * 1000))
            offset = consumer.position(partition, timeout_ms=int(left))
            if offset is not None or (deadline is not None and time.monotonic() >= deadline):
                return offset

    def group_metadata(self) -> Any:
        self._check("group_metadata")
        method = getattr(self._target, "group_metadata", None)
        if method is None:
            raise AttributeError("group_metadata() needs kafka-python >= 3")
        return method()


def _coroutine_of(name: str) -> Any:
    """An async view method: the sync view's own ``name`` (same checks, same semantics) as a
    tracked coroutine that runs it off the IO thread (``KafkaPythonAsyncRebalanceView._run``)."""
    sync = KafkaPythonRebalanceView.__dict__[name]
    sync = getattr(sync, "__wrapped__", sync)  # unbooked: the async view books when awaited

    def method(self: KafkaPythonAsyncRebalanceView, *args: Any, **kwargs: Any) -> Any:
        self._check(name)
        return self._track(name, self._run(sync, args, kwargs))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = sync.__doc__
    return method


class KafkaPythonAsyncRebalanceView(KafkaPythonRebalanceView, AsyncView):
    """The runtime :class:`AsyncRebalanceConsumer`: the sync view, with the calls that block
    on kafka-python 3's IO thread as coroutines run on a worker thread meanwhile."""

    __slots__ = ("_net",)

    def __init__(self, target: Any, callback: str, net: Any) -> None:
        super().__init__(target, callback)
        self._net = net  # None: run inline (the harness, which has no IO loop)

    async def _run(
        self, sync: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if self._net is None:
            return sync(self, *args, **kwargs)
        return await _in_thread(self._net, lambda: sync(self, *args, **kwargs))

    # KAFKA_PYTHON_ASYNC_VIEW_COROUTINES (tests hold the two to each other)
    commit = _coroutine_of("commit")
    committed = _coroutine_of("committed")
    position = _coroutine_of("position")
    beginning_offsets = _coroutine_of("beginning_offsets")
    end_offsets = _coroutine_of("end_offsets")
    offsets_for_times = _coroutine_of("offsets_for_times")
    partitions_for_topic = _coroutine_of("partitions_for_topic")
    topics = _coroutine_of("topics")


class _Dispatcher:
    """Calls one user listener's callbacks with a fresh view each, and keeps their errors."""

    def __init__(
        self,
        consumer: KafkaConsumer,
        listener: object,
        state: _ConsumerState,
        protocol: str | None = None,
        net: Any = None,
    ) -> None:
        self._consumer = consumer
        self._state = state
        self._listener = listener
        settings_of(listener)  # a wrong callback_logging fails here, not in a rebalance
        self._protocol = protocol  # None: kafka-python's coordinator tells (_protocol_now)
        self._net = net  # kafka-python 3's IO loop; None: async callbacks' calls run inline
        #: An AsyncRebalanceListener: its coroutine callbacks are awaited on the IO loop.
        self.asynchronous = _async_listener(listener)
        owner = type(listener).__name__
        self._callbacks: dict[str, tuple[Callable[..., Any], bool, str]] = {}
        for name in CALLBACKS:
            callback = _resolve(listener, name, self.asynchronous)
            self._callbacks[name] = (callback, takes_view(callback), f"{owner}.{name}")

    def dispatch(self, name: str, partitions: Any) -> None:
        """Run the callback; on close() re-raise its error, otherwise keep it for poll().

        An async callback is driven to its end on this thread (the harness: every view call
        runs inline, so only an unfinished kafka Future could suspend it).
        """
        if self.asynchronous:
            _drive(self.dispatch_async(name, partitions), self._callbacks[name][2])
            return
        callback, with_view, label = self._callbacks[name]
        view = KafkaPythonRebalanceView(self._consumer, label)
        if name == "on_partitions_lost":
            view._lose(partitions)
        protocol = self._protocol_now()
        with (
            self._outcome(name, partitions, label),
            live(view, partitions, listener=self._listener, protocol=protocol),
        ):
            if with_view:
                callback(partitions, view)
            else:
                callback(partitions)

    async def dispatch_async(self, name: str, partitions: Any) -> None:
        """:meth:`dispatch` for an :class:`AsyncRebalanceListener`, awaited on the IO loop."""
        callback, with_view, label = self._callbacks[name]
        view = KafkaPythonAsyncRebalanceView(self._consumer, label, self._net)
        if name == "on_partitions_lost":
            view._lose(partitions)
        protocol = self._protocol_now()
        with (
            self._outcome(name, partitions, label),
            awaited(view, partitions, listener=self._listener, protocol=protocol),
        ):
            previous = getattr(_callback_loop, "net", False)
            _callback_loop.net = self._net
            try:
                if with_view:
                    await callback(partitions, view)
                else:
                    await callback(partitions)
            finally:
                _callback_loop.net = previous

    @contextmanager
    def _outcome(self, name: str, partitions: Any, label: str) -> Iterator[None]:
        """After a callback: its error re-raised on close(), else kept for poll(); revoked
        and lost partitions' pause cleared."""
        try:
            yield
        except Exception as exc:
            if getattr(self._consumer, "_closed", False):
                raise
            log.exception("rebalance listener %s() failed; poll() will raise it", label)
            self._state.keep(exc)
        finally:
            if name != "on_partitions_assigned":
                self._clear_pause(partitions)

    def _protocol_now(self) -> str | None:
        """The rebalance protocol of this generation: kafka-python 3 decides it from the
        assignors (``RebalanceProtocol``); kafka-python 2 knows only eager rebalances."""
        coordinator = getattr(self._consumer, "_coordinator", None)
        if self._protocol is not None or coordinator is None:
            return self._protocol
        mode = getattr(coordinator, "_rebalance_protocol", None)
        if mode is None:
            threaded = hasattr(coordinator, "_invoke_rebalance_listener_async")
            return None if threaded else "eager"
        return str(getattr(mode, "name", mode)).lower()

    def _clear_pause(self, revoked: Any) -> None:
        """Revoked partitions lose their pause, as in Java and kafka-python 2.

        kafka-python 3 keeps the paused flag of a partition that an eager rebalance revokes
        and hands straight back, so without this a pause would silently outlive the
        revocation; re-pause in ``on_partitions_assigned`` to keep a partition paused.
        """
        stale = set(revoked) & self._consumer.paused()
        if stale:
            self._consumer.resume(*stale)


def _async_listener(listener: object) -> bool:
    """An :class:`AsyncRebalanceListener`, refused where kafka-python cannot await it."""
    if not isinstance(listener, AsyncRebalanceListener):
        return False
    from kafka.future import Future

    if not hasattr(Future, "__await__"):
        raise TypeError(
            f"{type(listener).__name__} is an AsyncRebalanceListener, which needs kafka-python "
            f">= 3 (it awaits callbacks on its IO loop); kafka-python 2 runs listeners on the "
            f"polling thread, where a RebalanceListener's def callbacks may block: use that"
        )
    return True


def _resolve(listener: object, name: str, asynchronous: bool = False) -> Callable[..., Any]:
    """The callable for ``name``; a lost callback not overridden falls back to revoked.

    ``def`` for a :class:`RebalanceListener` (or any other listener), ``async def`` for an
    :class:`AsyncRebalanceListener`: the view each gets differs (blocking or awaitable).
    """
    if name == "on_partitions_lost" and (
        not hasattr(listener, name)
        or getattr(type(listener), name, None)
        in (RebalanceListener.on_partitions_lost, AsyncRebalanceListener.on_partitions_lost)
    ):
        name = "on_partitions_revoked"
    callback: Callable[..., Any] | None = getattr(listener, name, None)
    if not callable(callback):
        raise TypeError(f"{type(listener).__name__} has no callable {name}()")
    owner = type(listener).__name__
    if asynchronous and not inspect.iscoroutinefunction(callback):
        raise TypeError(
            f"{owner}.{name}() is not async: an AsyncRebalanceListener's callbacks are awaited "
            f"on kafka-python 3's IO loop with an awaitable view; use async def, or derive "
            f"from RebalanceListener for def callbacks"
        )
    if not asynchronous and inspect.iscoroutinefunction(callback):
        raise TypeError(
            f"{owner}.{name}() is async: a RebalanceListener's callbacks are synchronous "
            f"(rebalance_guard runs them off kafka-python 3's IO thread, where the view's "
            f"blocking commit()/seek() are safe); use def, or derive from "
            f"AsyncRebalanceListener for async def callbacks (kafka-python >= 3)"
        )
    return callback


def _drive(coroutine: Coroutine[Any, Any, None], label: str) -> None:
    """Run an async callback's coroutine to its end here, without an IO loop (the harness).

    Its view calls run inline and kafka-python's resolved Futures do not suspend; anything
    else it awaits would need kafka-python 3's loop, so the callback is told so.
    """
    from kafka.future import Future

    try:
        pending = coroutine.send(None)
        while True:
            what = type(pending).__name__
            if isinstance(pending, Future):
                what = "an unresolved kafka Future"
            pending = coroutine.throw(
                RuntimeError(
                    f"{label}() awaited {what}, which only kafka-python 3's IO loop can "
                    f"wait for: there is none here"
                )
            )
    except StopIteration:
        return


class _InlineGuard:
    """kafka-python 2: callbacks already run on the polling thread; call them there.

    kafka-python 2 has no lost callback: it calls ``on_partitions_revoked`` also when the
    member already fell out of the group (its poll timer expired and the heartbeat thread
    left, or the broker answered UNKNOWN_MEMBER_ID), when every commit there fails. As
    Java's coordinator (and kafka-python 3) do, a revocation of a member whose generation
    was reset is dispatched to ``on_partitions_lost``.
    """

    def __init__(self, dispatcher: _Dispatcher, coordinator: Any) -> None:
        self.dispatcher = dispatcher
        self._coordinator = coordinator

    def on_partitions_assigned(self, partitions: Any) -> None:
        self.dispatcher.dispatch("on_partitions_assigned", partitions)

    def on_partitions_revoked(self, partitions: Any) -> None:
        lost = bool(partitions) and _generation_reset(self._coordinator)
        self.dispatcher.dispatch("on_partitions_lost" if lost else "on_partitions_revoked",
                                 partitions)  # fmt: skip

    def on_partitions_lost(self, partitions: Any) -> None:
        self.dispatcher.dispatch("on_partitions_lost", partitions)


def _generation_reset(coordinator: Any) -> bool:
    """kafka-python 2: the member has no generation any more (Java's NO_GENERATION check)."""
    generation = getattr(coordinator, "_generation", None)
    if generation is None:
        return False
    return bool(generation.generation_id == -1 or not generation.member_id)


class _ThreadedGuard:
    """kafka-python 3: coroutine callbacks that keep the user's callback off the IO loop.

    A ``def`` callback runs on a worker thread: the IO loop keeps serving heartbeats and the
    worker's own blocking calls (commit, committed, position...) while the coroutine waits
    for it. An :class:`AsyncRebalanceListener`'s callback is awaited here, on the loop; its
    view runs each blocking call on a worker thread the same way.
    """

    def __init__(self, dispatcher: _Dispatcher, net: Any, state: _ConsumerState) -> None:
        self.dispatcher = dispatcher
        self._net = net
        self._state = state

    async def on_partitions_assigned(self, partitions: Any) -> None:
        await self._offload("on_partitions_assigned", partitions)

    async def on_partitions_revoked(self, partitions: Any) -> None:
        try:
            await self._offload("on_partitions_revoked", partitions)
        finally:  # a cooperative revocation held them in the assignment for the callback
            self._state.release(partitions)

    async def on_partitions_lost(self, partitions: Any) -> None:
        await self._offload("on_partitions_lost", partitions)

    async def _offload(self, name: str, partitions: Any) -> None:
        if self.dispatcher.asynchronous:
            await self.dispatcher.dispatch_async(name, partitions)
        else:
            await _in_thread(self._net, lambda: self.dispatcher.dispatch(name, partitions))


class _ConsumerState:
    """Per-consumer registration: the listener to keep across subscribe(), pending errors,
    and (kafka-python 3) the cooperatively revoked partitions held until their callback ends.
    """

    def __init__(self, consumer: KafkaConsumer) -> None:
        self.listener: object | None = None
        self._pending: Exception | None = None
        self._held: dict[Any, Any] = {}  # TopicPartition -> its TopicPartitionState
        subscription = consumer._subscription
        coordinator = consumer._coordinator
        self._subscribe = subscription.subscribe
        self._poll = coordinator.poll
        self._ensure_active_group = coordinator.ensure_active_group
        self._assign_from_subscribed = subscription.assign_from_subscribed
        self._subscription = subscription
        self._coordinator = coordinator
        config = coordinator.config
        # kafka-python's own bound for a JoinGroup round trip (the broker holds it open)
        self._join_timeout_ms = max(
            config.get("request_timeout_ms", 30_000),
            config.get("max_poll_interval_ms", 300_000) + 5_000,
        )
        subscription.subscribe = self.subscribe
        subscription.assign_from_subscribed = self.assign_from_subscribed
        coordinator.poll = self.poll
        if hasattr(coordinator, "_join_task"):  # kafka-python 3 (2.x keeps a finished join)
            coordinator.ensure_active_group = self.ensure_active_group
        if not hasattr(coordinator, "_invoke_rebalance_listener_async"):  # kafka-python 2
            self._close = coordinator.close
            coordinator.close = self.close

    def assign_from_subscribed(self, assignments: Any) -> None:
        """kafka-python's own assignment update, keeping cooperatively revoked partitions.

        kafka-python 3's cooperative join drops the partitions it revokes from the assignment
        *before* it calls ``on_partitions_revoked``, so inside the callback ``assignment()``
        lacks them, ``position()`` raises and a bare ``commit()`` skips them. Every other
        path that revokes (eager, lost, subscription change, close) first marks the
        partitions pending revocation and updates the assignment only after the callback. So
        a partition dropped here that is not pending revocation is being revoked
        cooperatively: keep its state (position, pause) in the assignment, marked pending
        revocation (not fetched), until our revoked callback releases it (KIP-1306, Java).
        """
        subscription = self._subscription
        with self._locked():
            new = set(assignments)
            revoking = {}
            if isinstance(subscription.rebalance_listener, _ThreadedGuard):
                revoking = {
                    tp: tp_state
                    for tp, tp_state in subscription.assignment.items()
                    if tp not in new and not getattr(tp_state, "_pending_revocation", True)
                }
            self._assign_from_subscribed(assignments)  # validates first; may raise unchanged
            for tp, tp_state in revoking.items():
                tp_state.mark_pending_revocation()
                subscription.assignment[tp] = tp_state
            self._held.update(revoking)

    def _locked(self) -> Any:
        """The subscription's lock (kafka-python 2's SubscriptionState has none)."""
        return getattr(self._subscription, "_lock", None) or nullcontext()

    def release(self, partitions: Any = None) -> None:
        """Drop held partitions (``partitions`` of them, or all) from the assignment."""
        subscription = self._subscription
        with self._locked():
            for tp in list(self._held if partitions is None else partitions):
                tp_state = self._held.pop(tp, None)
                if tp_state is not None and subscription.assignment.get(tp) is tp_state:
                    del subscription.assignment[tp]

    def subscribe(self, topics: Any = (), pattern: Any = None, listener: Any = None) -> None:
        """subscribe() without ``listener=`` keeps the registered listener (KIP-1306)."""
        with self._locked():
            self._subscribe(topics=topics, pattern=pattern, listener=listener)
            if listener is not None:
                self.listener = None  # an explicit subscribe(listener=...) wins, as before
            elif self.listener is not None:
                self._subscription.rebalance_listener = self.listener
        self.own_warning()

    def own_warning(self) -> None:
        """kafka-python 3's slow-listener warning: off while the adapter is registered (it
        warns itself, module docstring), kafka-python's own threshold for any other listener."""
        attribute = "_REBALANCE_LISTENER_WARN_SECS"
        if isinstance(self._subscription.rebalance_listener, _ThreadedGuard):
            setattr(self._coordinator, attribute, math.inf)
        else:
            vars(self._coordinator).pop(attribute, None)

    def poll(self, timeout_ms: int | None = None) -> Any:
        """The coordinator's poll (the rebalance), then any callback error it produced."""
        try:
            result = self._poll(timeout_ms=timeout_ms)
        finally:  # whatever happened, nothing stays held past the rebalance that held it
            if self._held:
                self.release()
        pending, self._pending = self._pending, None
        if pending is not None:
            from kafka.errors import KafkaError

            raise KafkaError("User rebalance callback throws an error") from pending
        return result

    def close(self, autocommit: bool = True, timeout_ms: int | None = None) -> None:
        """kafka-python 2's coordinator close(), revoking what is still assigned first.

        ``KafkaConsumer.close()`` calls it on the user's (the polling) thread, where 2.x runs
        every callback; no rebalance can run alongside, and the member is still in the group
        (a member without a generation gets ``on_partitions_lost``, as in Java). Nothing is
        called when a join that a poll left unfinished already revoked them.
        """
        failure: Exception | None = None
        listener = self._subscription.rebalance_listener
        if (
            isinstance(listener, _InlineGuard)
            and self._subscription.partitions_auto_assigned()
            # A join that close() interrupts has revoked them already (kafka-python 2 keeps
            # them listed until the join completes; Java's eager onJoinPrepare clears them),
            # and kafka-python refuses commits meanwhile (RebalanceInProgressError).
            and not getattr(self._coordinator, "rejoining", False)
        ):
            revoked = set(self._subscription.assigned_partitions())
            if revoked:
                try:
                    listener.on_partitions_revoked(revoked)
                except Exception as exc:  # after closing, as kafka-python 3 does
                    failure = exc
        self._close(autocommit=autocommit, timeout_ms=timeout_ms)
        if failure is not None:
            raise failure

    def ensure_active_group(self, timeout_ms: int | None = None) -> Any:
        """kafka-python 3's join, from the coordinator's poll once it saw ``need_rejoin()``:
        waits for the JoinGroup/SyncGroup round trip it starts or resumes, whatever the
        poll's timeout (bounded by kafka-python's own JoinGroup timeout).

        kafka-python 3.0.12 leaves the round trip running when ``poll(timeout_ms)`` expires.
        The next poll replaces a round trip that has *completed* in the meantime with a new
        JoinGroup: the assignment it brought is thrown away, the member never applies it (no
        revoked or assigned callback for it; in cooperative mode it keeps fetching partitions
        that generation gave to another member, so both process them), and the new JoinGroup
        starts another rebalance that the broker may hold for the whole rebalance timeout.
        Or no poll awaits it again: a rejoin for a metadata change (the leader's assignment
        snapshot) or a subscription change stops being needed once the round trip has sent
        its JoinGroup or assigned, so the member never completes the join (the oracle's
        handoff flake, tests/oracle/test_kafka_python_rejoin.py). The wait is here, where
        kafka-python decides, not at the start of ``poll()``: a metadata update that the IO
        thread applies in between (while the poll looks up the coordinator) starts a join too.
        """
        if timeout_ms is not None:
            timeout_ms = max(timeout_ms, self._join_timeout_ms)
        return self._ensure_active_group(timeout_ms=timeout_ms)

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
    listener: RebalanceListener | AsyncRebalanceListener | ConsumerRebalanceListener | None,
) -> None:
    """Register ``listener`` on ``consumer`` (replacing any), or remove it with ``None``.

    Legal before or after ``subscribe()``; effective from the next ``poll()``. A
    kafka-python ``ConsumerRebalanceListener`` (or 3.x ``AsyncConsumerRebalanceListener``)
    is registered unchanged: one-arg callbacks, the client's own threading. Anything else
    gets KIP-1306 two-arg callbacks with a view (one-arg methods are called as before): an
    :class:`AsyncRebalanceListener` (kafka-python >= 3) an awaitable one.
    """
    from kafka import KafkaConsumer

    if not isinstance(consumer, KafkaConsumer):
        raise TypeError(f"consumer must be a kafka.KafkaConsumer, not {type(consumer).__name__}")
    state = _state(consumer)
    registered: object | None = listener
    if listener is not None and not _is_client_listener(listener):
        net = getattr(consumer, "_net", None)
        threaded = hasattr(consumer._coordinator, "_invoke_rebalance_listener_async")
        dispatcher = _Dispatcher(consumer, listener, state, net=net if threaded else None)
        registered = (
            _ThreadedGuard(dispatcher, net, state)
            if threaded
            else _InlineGuard(dispatcher, consumer._coordinator)
        )
    state.listener = registered
    consumer._subscription.rebalance_listener = registered
    state.own_warning()
