"""KIP-1306 rebalance listeners for aiokafka.

Callbacks get a restricted :class:`RebalanceConsumer` view, valid only while the callback
runs, instead of a consumer smuggled in through the listener's constructor. The view is
async exactly where aiokafka's methods are coroutines (``commit``, ``committed``,
``position``, ``seek_to_*``, ``*_offsets``, ``offsets_for_times``, ``topics``) and sync
elsewhere. Listener methods may be ``def`` or ``async def``, mixed in one listener; the
adapter awaits what needs awaiting.

How it maps onto aiokafka, and why (verified with aiokafka 0.14; it relies on three private
attributes, ``consumer._subscription._listener``, ``consumer._coordinator.generation`` and
``consumer._coordinator._pending_exception``, which the tests exercise against a broker):

* Registration. aiokafka keeps the listener on the consumer's ``SubscriptionState`` and reads
  it each time it runs a callback, so :func:`set_rebalance_listener` stores the adapter there
  and it takes effect for the next callback aiokafka runs. aiokafka runs callbacks from its
  background coordination task, not from ``getone``/``getmany``, so there is no later "next
  poll" boundary to wait for. ``subscribe()`` overwrites that slot (with ``None`` when called
  without a listener), so a registration also shadows ``subscribe`` on that one consumer
  object: ``subscribe(topics)`` keeps the registered listener, and an explicit
  ``subscribe(..., listener=x)`` replaces it, as it always replaced the previous listener.
* Exceptions. aiokafka logs and swallows listener exceptions. The adapter keeps that log and
  also hands the first exception to aiokafka's own error channel for the poll caller (the
  coordinator's pending error, which ``getone()``/``getmany()``/``async for`` raise at their
  next call, exactly as they raise coordination errors). The rebalance still completes and
  later callbacks still run. A ``getone()`` already waiting for records is not interrupted:
  the error comes from the call after it.
* Forgotten ``await``. Calling an async view method without awaiting it does nothing in
  aiokafka. The view notices a coroutine it returned that never started when the callback
  ends, closes it (nothing may run on an expired view) and raises :class:`NotAwaitedError`,
  which reaches the poll caller like any callback exception.
* Seeks in async callbacks. aiokafka wakes ``getmany()`` as soon as the new assignment is
  set, before ``on_partitions_assigned`` has finished, so records from the committed position
  can reach the application while an ``async def`` callback still awaits (say, an offset from
  an external store) before its ``seek()``. While such a callback runs the adapter keeps the
  newly assigned partitions paused (invisible in ``paused()``; a ``pause()`` made by the
  callback stands), so the first records returned are the ones the callback chose.
* Lost partitions. aiokafka has no lost callback: it calls ``on_partitions_revoked`` even
  when the member was already fenced or left the group (session expiry, ``max_poll_interval_ms``
  exceeded). As Java's coordinator does, the adapter calls ``on_partitions_lost`` instead
  when the member has no generation any more at the time of the revocation; committing there
  would fail anyway. aiokafka still lists those partitions during the callback; the view
  does not (KIP-1306: they are already gone): ``assignment()``/``paused()`` leave them out,
  ``position()`` raises ``IllegalStateError`` and a bare ``commit()`` is a no-op (a loss
  is of the whole assignment).
* Subscription change (KIP-70). aiokafka's ``subscribe()`` replaces its subscription object
  at once, so the revocation that follows gets partitions that are no longer assigned:
  ``position()`` raised ``IllegalStateError`` and a bare ``commit()`` skipped them. The
  registered ``subscribe`` keeps the replaced assignment for that revocation: on the view
  ``assignment()`` still lists those partitions, ``position()`` answers from their state
  and ``commit()`` commits their consumed positions through aiokafka's coordinator (the
  aiokafka ``commit()`` knows only the new, empty assignment).
* Close. aiokafka's ``stop()`` leaves the group without calling the listener, so a listener
  that commits on revoke (KIP-1306's own example) never committed what a leaving member had
  processed since the last rebalance: its partitions' next owners re-read all of it (286 and
  832 duplicates in two 25 s chaos runs with graceful departures only). Java's ``close()``
  revokes first (``onLeavePrepare``), as kafka-python 3 and librdkafka do. With a registered
  :class:`RebalanceListener`, ``stop()`` on that consumer does the same: after aiokafka has
  finished any rebalance in progress and before it sends LeaveGroup, the adapter calls
  ``on_partitions_revoked`` (``on_partitions_lost`` if the member has no generation any more)
  with what is still assigned, while the member can still commit; nothing is called when a
  rebalance that ``stop()`` interrupted already revoked them. An exception from that callback
  is raised by ``stop()`` once the consumer is closed.
* Protocols. aiokafka implements only the eager rebalance protocol (its assignors are range,
  round-robin and the eager sticky one; there is no cooperative-sticky): every rebalance
  revokes the whole assignment and assigns the whole new one, so the callbacks never see a
  delta; nor does it implement KIP-848's ``group.protocol=consumer`` (0.14). Pause state
  lives on the assignment, which aiokafka recreates on every rebalance:
  pauses made in ``on_partitions_assigned`` persist, pauses on revoked partitions are gone.

* Slow callbacks. Every callback of a :class:`RebalanceListener` is timed; one slower than the
  listener's ``callback_logging.slow_after`` (:class:`rebalance_guard.CallbackLogging`, one
  second by default) logs one WARNING on the ``rebalance_guard`` logger (callback, client,
  partitions, duration, and what the group goes through: aiokafka rebalances are eager), and
  every callback one record at ``callback_logging.level`` with what it did through the view.
  aiokafka itself does not time listeners.

Legacy listeners (``aiokafka.abc.ConsumerRebalanceListener`` with one-argument methods) keep
working unchanged, whether passed to ``subscribe()`` or to :func:`set_rebalance_listener`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Protocol, cast

from rebalance_guard._errors import NotAwaitedError
from rebalance_guard._observe import CallbackLogging, settings_of
from rebalance_guard._view import AsyncView, awaited, forward, forward_coroutine, takes_view

if TYPE_CHECKING:
    from aiokafka import AIOKafkaConsumer
    from aiokafka.abc import ConsumerRebalanceListener
    from aiokafka.structs import OffsetAndMetadata, OffsetAndTimestamp, TopicPartition

__all__ = [
    "AIOKafkaRebalanceView",
    "CommitOffsets",
    "NotAwaitedError",
    "RebalanceConsumer",
    "RebalanceListener",
    "set_rebalance_listener",
]


#: What ``commit()`` accepts: aiokafka insists on a real ``dict``, which is invariant: a union.
CommitOffsets = (
    dict["TopicPartition", int]
    | dict["TopicPartition", tuple[int, str]]
    | dict["TopicPartition", "OffsetAndMetadata"]
    | dict["TopicPartition", "int | tuple[int, str] | OffsetAndMetadata"]
)


class RebalanceConsumer(Protocol):
    """What a rebalance callback may do with the consumer (KIP-1306), in aiokafka's names.

    Await the async methods inside the callback: the view expires when the callback returns.
    """

    async def commit(self, offsets: CommitOffsets | None = None) -> None: ...
    async def committed(self, partition: TopicPartition) -> int | None: ...
    async def position(self, partition: TopicPartition) -> int: ...
    def seek(self, partition: TopicPartition, offset: int) -> None: ...
    async def seek_to_beginning(self, *partitions: TopicPartition) -> bool: ...
    async def seek_to_end(self, *partitions: TopicPartition) -> bool: ...
    def assignment(self) -> AbstractSet[TopicPartition]: ...
    def pause(self, *partitions: TopicPartition) -> None: ...
    def resume(self, *partitions: TopicPartition) -> None: ...
    def paused(self) -> AbstractSet[TopicPartition]: ...
    async def beginning_offsets(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, int]: ...
    async def end_offsets(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, int]: ...
    async def offsets_for_times(
        self, timestamps: dict[TopicPartition, int]
    ) -> dict[TopicPartition, OffsetAndTimestamp | None]: ...
    def partitions_for_topic(self, topic: str) -> AbstractSet[int] | None: ...
    async def topics(self) -> AbstractSet[str]: ...
    def highwater(self, partition: TopicPartition) -> int | None: ...
    def last_stable_offset(self, partition: TopicPartition) -> int | None: ...


#: Returned by listener methods: ``None`` from a ``def``, a coroutine from an ``async def``.
CallbackResult = Awaitable[None] | None


class RebalanceListener:
    """KIP-1306 listener: each method gets the partitions and a view valid during the call.

    Override what you need, with ``def`` or ``async def``. ``on_partitions_lost`` defaults to
    ``on_partitions_revoked``; override it to skip commits for partitions already owned elsewhere.
    """

    #: How the callbacks are logged: when one is slow, and the level of its record.
    callback_logging: CallbackLogging = CallbackLogging()

    def on_partitions_assigned(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer, /
    ) -> CallbackResult:
        return None

    def on_partitions_revoked(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer, /
    ) -> CallbackResult:
        return None

    def on_partitions_lost(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer, /
    ) -> CallbackResult:
        return self.on_partitions_revoked(partitions, consumer)


async def _nothing() -> None:
    return None


async def _fail(error: Exception) -> None:
    """A coroutine that raises ``error`` when awaited, as aiokafka's own methods do."""
    raise error


class AIOKafkaRebalanceView(AsyncView):
    """The runtime :class:`RebalanceConsumer`: aiokafka's permitted methods, until expiry."""

    __slots__ = ("_held", "_retiring")

    def __init__(self, target: Any, callback: str, retiring: Any = None) -> None:
        super().__init__(target, callback)
        self._held: set[TopicPartition] = set()  # paused by the adapter, not by the user
        # The assignment a subscribe() replaced, whose partitions this revocation is about
        self._retiring = retiring

    committed = forward_coroutine("committed")

    def _retired(self, partitions: Iterable[TopicPartition]) -> set[TopicPartition]:
        """Partitions only in the replaced assignment (not in the current one)."""
        if self._retiring is None:
            return set()
        return (set(partitions) & set(self._retiring.tps)) - set(self._target.assignment())

    def commit(self, offsets: Any = None) -> Any:
        """aiokafka's commit; a bare one with nothing assigned is a no-op, as in Java.

        (aiokafka raises ``IllegalStateError`` then, e.g. in the empty revocation of a
        member's first join.)
        """
        self._check("commit")
        if self._retired(self._retiring.tps if self._retiring is not None else ()):
            return self._track("commit", self._commit_retiring(offsets))
        current = self._target._subscription.subscription
        if offsets is None and (current is None or current.assignment is None):
            return self._track("commit", _nothing())
        if offsets is None and self._lost_everything(self._target.assignment()):
            return self._track("commit", _nothing())  # everything was lost: nothing to commit
        return self._track("commit", self._target.commit(offsets))

    def _bare_commit_offsets(self, result: Any) -> dict[str, int | None] | None:
        """What a bare commit committed: the consumed positions, as aiokafka commits them."""
        subscription = self._target._subscription.subscription
        assignments = [getattr(subscription, "assignment", None), self._retiring]
        if self._gone:
            return {}  # a loss is of everything: nothing was committed
        offsets: dict[str, int | None] = {}
        for assignment in assignments:
            consumed = getattr(assignment, "all_consumed_offsets", None)
            if consumed is None:  # nothing assigned (or an in-memory consumer): not known
                continue
            for tp, meta in consumed().items():
                offsets[f"{tp.topic}-{tp.partition}"] = meta.offset
        return offsets or None

    async def _commit_retiring(self, offsets: Any) -> None:
        """Commit through the coordinator: aiokafka's commit() knows only the new assignment."""
        from aiokafka.util import commit_structure_validate

        if offsets is None:
            offsets = {
                tp: meta
                for tp, meta in self._retiring.all_consumed_offsets().items()
                if tp in self._retired([tp])
            }
            current = self._target._subscription.subscription
            if current is not None and current.assignment is not None:
                offsets.update(current.assignment.all_consumed_offsets())
        else:
            offsets = commit_structure_validate(offsets)
        if offsets:
            await self._target._coordinator.commit_offsets(self._retiring, offsets)

    def position(self, partition: TopicPartition) -> Any:
        self._check("position")
        if self._is_gone(partition):
            from aiokafka.errors import IllegalStateError  # aiokafka's own: not assigned

            return self._track("position", _fail(IllegalStateError(self._gone_message(partition))))
        if not self._retired([partition]):
            return self._track("position", self._target.position(partition))
        return self._track("position", self._retired_position(partition))

    async def _retired_position(self, partition: TopicPartition) -> int | None:
        state = self._retiring.state_value(partition)
        if state is not None and state.has_valid_position:
            return int(state.position)
        result: int | None = await self._target.committed(partition)
        return result

    def assignment(self) -> AbstractSet[TopicPartition]:
        self._check("assignment")
        current = set(self._not_gone(self._target.assignment()))
        if self._retiring is None:
            return current
        return current | self._retired(self._retiring.tps)

    seek_to_beginning = forward_coroutine("seek_to_beginning")
    seek_to_end = forward_coroutine("seek_to_end")
    beginning_offsets = forward_coroutine("beginning_offsets")
    end_offsets = forward_coroutine("end_offsets")
    offsets_for_times = forward_coroutine("offsets_for_times")
    topics = forward_coroutine("topics")
    seek = forward("seek")
    partitions_for_topic = forward("partitions_for_topic")
    highwater = forward("highwater")
    last_stable_offset = forward("last_stable_offset")

    def pause(self, *partitions: TopicPartition) -> None:
        self._check("pause")
        self._target.pause(*partitions)
        self._held.difference_update(partitions)  # the user's pause outlives the callback

    def resume(self, *partitions: TopicPartition) -> None:
        self._check("resume")
        self._target.resume(*(tp for tp in partitions if tp not in self._held))

    def paused(self) -> AbstractSet[TopicPartition]:
        self._check("paused")
        return set(self._not_gone(self._target.paused())) - self._held

    def _hold(self, partitions: AbstractSet[TopicPartition]) -> None:
        """Pause what the user has not paused, so getmany() returns nothing before the seeks."""
        self._held = (set(partitions) & self._target.assignment()) - self._target.paused()
        self._target.pause(*self._held)

    def _release(self) -> None:
        assigned = self._target.assignment()
        self._target.resume(*(tp for tp in self._held if tp in assigned))
        self._held.clear()


_METHODS = ("on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost")


class _GuardedListener:
    """The aiokafka listener that runs a :class:`RebalanceListener` with a fresh view per call.

    Registered as a virtual ``aiokafka.abc.ConsumerRebalanceListener`` subclass on first use,
    so importing this module does not import aiokafka.
    """

    def __init__(self, consumer: AIOKafkaConsumer, listener: RebalanceListener) -> None:
        self._consumer = consumer
        self._listener = listener
        self.retiring: Any = None  # the assignment a subscribe() just replaced
        self._takes_view = {name: takes_view(getattr(listener, name)) for name in _METHODS}
        settings_of(listener)  # a wrong callback_logging fails here, not in a rebalance

    async def on_partitions_assigned(self, assigned: AbstractSet[TopicPartition]) -> None:
        await self._dispatch("on_partitions_assigned", assigned)

    async def on_partitions_revoked(self, revoked: AbstractSet[TopicPartition]) -> None:
        retiring, self.retiring = self.retiring, None
        await self._revoke(revoked, retiring)

    async def _revoke(self, revoked: AbstractSet[TopicPartition], retiring: Any) -> None:
        # A member without generation was fenced or left the group: its partitions are lost.
        coordinator = self._consumer._coordinator
        lost = bool(revoked) and coordinator is not None and coordinator.generation < 0
        name = "on_partitions_lost" if lost else "on_partitions_revoked"
        await self._dispatch(name, revoked, None if lost else retiring)

    async def revoke_on_close(self) -> None:
        """Java's ``onLeavePrepare``: revoke (or lose) what is still assigned, before leaving.

        Called by the registered ``stop()`` once aiokafka's coordination has stopped.
        """
        subscription = self._consumer._subscription
        retiring, self.retiring = self.retiring, None
        revoked: set[TopicPartition] = set()
        if retiring is not None:  # a subscribe() replaced it and no rebalance revoked it yet
            revoked |= set(retiring.tps)
        current = subscription.subscription
        if (
            current is not None
            and current.assignment is not None
            and not subscription.reassignment_in_progress  # else that rebalance revoked them
        ):
            revoked |= set(current.assignment.tps)
        if revoked and subscription.partitions_auto_assigned():
            await self._revoke(revoked, retiring)

    async def _dispatch(
        self, name: str, partitions: AbstractSet[TopicPartition], retiring: Any = None
    ) -> None:
        label = f"{type(self._listener).__name__}.{name}"
        view = AIOKafkaRebalanceView(self._consumer, label, retiring)
        if name == "on_partitions_lost":
            view._lose(partitions)
        try:
            with awaited(view, partitions, listener=self._listener, protocol="eager"):
                await self._run(view, name, partitions)
        except Exception as exc:
            self._hand_to_poll_caller(exc)
            raise  # aiokafka logs it, as it always did

    async def _run(
        self, view: AIOKafkaRebalanceView, name: str, partitions: AbstractSet[TopicPartition]
    ) -> None:
        """Call the user's method (with the view if it takes one); await it if async."""
        callback: Callable[..., CallbackResult] = getattr(self._listener, name)
        if self._takes_view[name]:
            result = callback(partitions, cast(RebalanceConsumer, view))
        else:
            result = callback(partitions)
        if result is None:
            return
        if name != "on_partitions_assigned":
            await result
            return
        # aiokafka lets getmany() return records of the new assignment while this coroutine
        # still runs: hold them back until its seeks are done, as a Java poll() would.
        view._hold(partitions)
        try:
            await result
        finally:
            view._release()

    def _hand_to_poll_caller(self, exc: Exception) -> None:
        """Queue ``exc`` where aiokafka keeps errors for the next getone()/getmany()."""
        coordinator = self._consumer._coordinator
        if coordinator is not None and coordinator._pending_exception is None:
            coordinator._pending_exception = exc

    def __repr__(self) -> str:
        return f"<rebalance_guard adapter for {self._listener!r}>"


def set_rebalance_listener(
    consumer: AIOKafkaConsumer,
    listener: RebalanceListener | ConsumerRebalanceListener | None,
) -> None:
    """Register ``listener`` on ``consumer`` (replacing any), or remove it with ``None``.

    Legal before or after ``subscribe()``; it applies to the next callback aiokafka runs and
    survives later ``subscribe()`` calls that pass no listener of their own.
    """
    from aiokafka import AIOKafkaConsumer
    from aiokafka.abc import ConsumerRebalanceListener

    if not isinstance(consumer, AIOKafkaConsumer):
        raise TypeError(
            f"set_rebalance_listener() needs an aiokafka.AIOKafkaConsumer, "
            f"got {type(consumer).__name__}"
        )
    installed: ConsumerRebalanceListener | _GuardedListener | None
    if isinstance(listener, RebalanceListener):
        ConsumerRebalanceListener.register(_GuardedListener)
        installed = _GuardedListener(consumer, listener)
    elif listener is None or isinstance(listener, ConsumerRebalanceListener):
        installed = listener  # a legacy listener runs exactly as aiokafka runs it
    else:
        raise TypeError(
            f"listener must be a rebalance_guard.aiokafka.RebalanceListener, an "
            f"aiokafka.abc.ConsumerRebalanceListener or None, got {type(listener).__name__}"
        )
    consumer._subscription._listener = installed
    if installed is None:
        consumer.__dict__.pop("subscribe", None)
    else:
        consumer.__dict__["subscribe"] = _subscribe_keeping(consumer, installed)
    if isinstance(installed, _GuardedListener):
        consumer.__dict__["stop"] = _stop_revoking(consumer, installed)
    else:
        consumer.__dict__.pop("stop", None)


def _subscribe_keeping(consumer: AIOKafkaConsumer, installed: object) -> Callable[..., None]:
    """``consumer.subscribe`` that passes the registered listener unless given another one."""
    original = type(consumer).subscribe

    def subscribe(topics: Any = (), pattern: str | None = None, listener: Any = None) -> None:
        previous = consumer._subscription.subscription
        original(
            consumer, topics, pattern=pattern, listener=installed if listener is None else listener
        )
        if isinstance(installed, _GuardedListener) and previous is not None:
            installed.retiring = previous.assignment  # for the revocation that follows
        if listener is not None:  # an explicit listener replaces the registered one
            consumer.__dict__.pop("subscribe", None)
            consumer.__dict__.pop("stop", None)

    subscribe.__doc__ = original.__doc__
    return subscribe


def _stop_revoking(consumer: AIOKafkaConsumer, installed: _GuardedListener) -> Callable[[], Any]:
    """``consumer.stop`` that revokes what is still assigned before leaving, as Java's close().

    aiokafka's ``GroupCoordinator.close()`` stops the coordination task (letting a rebalance
    in progress finish), the heartbeat and the commit refresh, then leaves the group through
    ``_maybe_leave_group()``. The revocation runs just before that leave, once: the member is
    still in the group, so the callback's commits count, and no rebalance can run alongside.
    """
    original = type(consumer).stop

    async def stop() -> None:
        coordinator = consumer._coordinator
        failures: list[BaseException] = []
        patched = False
        if (
            coordinator is not None
            and not consumer._closed
            and consumer._subscription.listener is installed
        ):
            leave = coordinator._maybe_leave_group
            done: list[bool] = []

            async def revoke_then_leave() -> None:
                if coordinator._closing.done() and not done:  # close()'s leave, not an idle one
                    done.append(True)
                    try:
                        await installed.revoke_on_close()
                    except Exception as exc:
                        failures.append(exc)
                await leave()

            coordinator._maybe_leave_group = revoke_then_leave
            patched = True
        try:
            await original(consumer)
        finally:
            if patched:
                coordinator.__dict__.pop("_maybe_leave_group", None)
        if failures:
            raise failures[0]

    stop.__doc__ = original.__doc__
    return stop
