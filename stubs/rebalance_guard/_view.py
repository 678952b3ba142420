"""The expiring, restricted consumer view shared by every client adapter.

A view forwards only the methods KIP-1306 permits and refuses everything after the
callback that received it returns. Client modules declare their permitted methods with
:func:`forward` (or write an adapted method that starts with ``self._check(name)``).

Every adapter runs each callback inside :func:`live` (or :func:`awaited`), the one place
where callbacks are timed and logged (:mod:`rebalance_guard._observe`): one record per
callback, a warning when it was slow. What the record says the listener did comes from the
view's own bookkeeping: each view books its calls of :data:`BOOKED` methods (commits with
their offsets, seeks, pauses), whichever client module defines them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar, TypeVar

from rebalance_guard._errors import NotAwaitedError, RebalanceViewExpiredError
from rebalance_guard._observe import Timing, describe_offsets

ViewT = TypeVar("ViewT", bound="ExpiringView")
AsyncViewT = TypeVar("AsyncViewT", bound="AsyncView")
PartitionT = TypeVar("PartitionT")

#: Consumer methods a view never offers (KIP-1306 "omitted"), in every client's vocabulary.
OMITTED = frozenset(
    {
        "poll", "consume", "getone", "getmany", "close", "stop", "start", "subscribe",
        "unsubscribe", "assign", "unassign", "incremental_assign", "incremental_unassign",
        "wakeup", "enforce_rebalance", "__iter__", "__next__", "__aiter__", "__anext__",
    }
)  # fmt: skip


#: View methods whose calls a view books for its callback's record, with the offsets they
#: commit or seek to, or the partitions they act on (:meth:`ExpiringView._book`).
BOOKED_OFFSETS = frozenset({"commit", "commit_async", "seek"})
BOOKED = BOOKED_OFFSETS | {"seek_to_beginning", "seek_to_end", "pause", "resume"}

#: The client each adapter module adapts, as records and warnings name it.
CLIENTS = {
    "kafka_python": "kafka-python",
    "aiokafka": "aiokafka",
    "confluent_kafka": "confluent-kafka Consumer",
    "confluent_kafka_aio": "confluent-kafka AIOConsumer",
}

Tracked = tuple[str, Coroutine[Any, Any, Any], Coroutine[Any, Any, Any] | None]


class ExpiringView:
    """Base of every client's view: holds the real consumer and the callback's liveness.

    Subclasses' :data:`BOOKED` methods are wrapped once, when the class is created, so
    that every successful or failed call while the view is live lands in ``_actions``
    (for a coroutine: when it completes), however the client module wrote the method.
    """

    __slots__ = ("_actions", "_callback", "_coroutines", "_gone", "_live", "_target")

    #: The client, as logs name it (from the defining module, :data:`CLIENTS`).
    _client: ClassVar[str] = "Kafka client"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        module = cls.__module__.rpartition(".")[2]
        if "_client" not in cls.__dict__ and module in CLIENTS:
            cls._client = CLIENTS[module]
        for name in BOOKED & cls.__dict__.keys():
            setattr(cls, name, _booked(name, cls.__dict__[name]))

    def __init__(self, target: Any, callback: str) -> None:
        self._target = target
        self._callback = callback
        self._live = True
        self._gone: frozenset[tuple[str, int]] = frozenset()  # see :meth:`_lose`
        # Coroutines an AsyncView handed out (here so that views can mix AsyncView in):
        # (method, coroutine, the coroutine it wraps to book its outcome, if any)
        self._coroutines: list[Tracked] = []
        self._actions: list[dict[str, Any]] = []  # what the callback did: see _book

    def _book(
        self,
        name: str,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        result: Any,
        error: BaseException | None,
    ) -> None:
        """Record one call of a :data:`BOOKED` method for the callback's log record."""
        if kwargs.get("asynchronous"):  # confluent's commit(asynchronous=True)
            name = "commit_async"
        action: dict[str, Any] = {"method": name}
        if name not in BOOKED_OFFSETS:
            action["partitions"] = list(describe_offsets((*args, *kwargs.values())))
        elif (args and args[0] is not None) or any(
            kwargs.get(k) is not None for k in ("offsets", "message", "partition")
        ):
            action["offsets"] = describe_offsets((*args, *kwargs.values()))
        else:  # a bare commit: what it committed, where the client or the view can tell
            action["offsets"] = self._bare_commit_offsets(result)
        if error is not None:
            action["error"] = f"{type(error).__name__}: {error}"
        self._actions.append(action)

    def _bare_commit_offsets(self, result: Any) -> dict[str, int | None] | None:
        """The offsets a bare commit committed: confluent returns them; client views that
        know the consumed positions override this; ``None``: not known."""
        if isinstance(result, list) and result:
            return describe_offsets(result)
        return None

    def _check(self, method: str) -> None:
        if not self._live:
            raise RebalanceViewExpiredError(
                f"{method}() called on the rebalance view after {self._callback}() returned: "
                f"the view is valid only while the callback runs; keep the data, not the view"
            )

    def _expire(self) -> None:
        self._live = False

    def _lose(self: ViewT, partitions: Iterable[Any]) -> ViewT:
        """Make this the view of an ``on_partitions_lost`` callback for ``partitions``.

        KIP-1306 (DESIGN.md, runtime rule 7): during ``on_partitions_lost`` the lost
        partitions are already gone. Every client still lists them until the callback
        returns (Java's coordinator too), so the view hides them: ``assignment()`` and
        ``paused()`` leave them out, ``position()`` treats them as not assigned and a bare
        ``commit()`` commits nothing, as Java's ``commitSync()`` with nothing assigned (every
        client loses the whole assignment at once). An explicit commit of lost partitions
        still reaches the client, which refuses it: the member has no generation.
        """
        self._gone = frozenset((p.topic, p.partition) for p in partitions)
        return self

    def _is_gone(self, partition: Any) -> bool:
        return (partition.topic, partition.partition) in self._gone

    def _not_gone(self, partitions: Iterable[PartitionT]) -> list[PartitionT]:
        """``partitions`` without the lost ones, in their order."""
        return [p for p in partitions if not self._is_gone(p)]

    def _lost_everything(self, assigned: Iterable[Any]) -> bool:
        """Is this a loss of the whole assignment (``assigned`` as the client still lists it)?

        Then a bare commit commits nothing, in every adapter: each client would try the lost
        partitions' positions and fail (the member has no generation); each answers "nothing
        to commit" in its own way. A loss is of the whole assignment in every client, as in
        Java.
        """
        return bool(self._gone) and not self._not_gone(assigned)

    def _gone_message(self, partition: Any) -> str:
        return (
            f"{partition.topic}-{partition.partition} was lost: during {self._callback}() it "
            f"is no longer assigned to this consumer (KIP-1306), so it has no position"
        )

    def __getattr__(self, name: str) -> Any:
        # Only reached for names the view does not define: explain instead of a bare AttributeError.
        if name in OMITTED:
            raise AttributeError(
                f"{name}() is not available on the rebalance view (KIP-1306): "
                f"polling, closing or changing the subscription inside {self._callback}() "
                f"corrupts the rebalance"
            )
        raise AttributeError(name)

    def __repr__(self) -> str:
        state = "live" if self._live else "expired"
        return f"<{type(self).__name__} for {self._callback}() ({state})>"


def forward(name: str) -> Any:
    """A view method that checks liveness, then calls the consumer's method of the same name."""

    def method(self: ExpiringView, *args: Any, **kwargs: Any) -> Any:
        self._check(name)
        return getattr(self._target, name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _booked(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` booking each call on its view (:meth:`ExpiringView._book`)."""

    def booked(self: ExpiringView, *args: Any, **kwargs: Any) -> Any:
        try:
            result = method(self, *args, **kwargs)
        except Exception as exc:
            if self._live:  # an expired view refuses before doing anything
                self._book(name, args, kwargs, None, exc)
            raise
        if isinstance(self, AsyncView) and inspect.iscoroutine(result):
            return self._book_when_done(name, args, kwargs, result)
        self._book(name, args, kwargs, result, None)
        return result

    booked.__name__ = booked.__qualname__ = name
    booked.__doc__ = method.__doc__
    booked.__wrapped__ = method  # type: ignore[attr-defined]
    return booked


@contextmanager
def live(
    view: ViewT,
    partitions: Iterable[Any] | None = None,
    *,
    listener: object = None,
    protocol: str | None = None,
) -> Iterator[ViewT]:
    """Hand ``view`` to one callback; it expires when the block ends, however it ends.

    The block is the callback's: it is timed and logged when it ends (one record at the
    listener's ``callback_logging.level``, a warning when slower than its ``slow_after``;
    :mod:`rebalance_guard._observe`). ``partitions``: the callback's partitions;
    ``listener``: the listener, or a bound method of it, whose ``callback_logging`` applies;
    ``protocol``: ``"eager"``, ``"cooperative"`` or ``"consumer"`` (KIP-848) when the adapter
    knows it, else ``None``.
    """
    timing = Timing(view._callback, view._client, partitions, listener, protocol)
    error: BaseException | None = None
    try:
        yield view
    except BaseException as exc:
        error = exc
        raise
    finally:
        view._expire()
        timing.done(view._actions, error)


class AsyncView(ExpiringView):
    """A view whose methods return the consumer's coroutines: one never awaited is an error.

    Calling an async method of an asyncio client without ``await`` silently does nothing;
    the view remembers each coroutine it hands out and :func:`awaited` reports those that
    never started when the callback ends.
    """

    __slots__ = ()

    def _track(self, name: str, coroutine: Coroutine[Any, Any, Any]) -> Any:
        self._coroutines.append((name, coroutine, None))
        return coroutine

    def _book_when_done(
        self,
        name: str,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        coroutine: Coroutine[Any, Any, Any],
    ) -> Coroutine[Any, Any, Any]:
        """``coroutine`` booking its outcome when awaited; tracked in its place."""

        async def booked() -> Any:
            try:
                result = await coroutine
            except Exception as exc:
                self._book(name, args, kwargs, None, exc)
                raise
            self._book(name, args, kwargs, result, None)
            return result

        wrapper = booked()
        for i, (tracked_name, tracked, _) in enumerate(self._coroutines):
            if tracked is coroutine:
                self._coroutines[i] = (tracked_name, wrapper, coroutine)
                break
        else:  # the method did not track it: track the wrapper (a forgotten await is an error)
            self._coroutines.append((name, wrapper, coroutine))
        return wrapper

    def _close_unawaited(self) -> list[str]:
        """Close coroutines the callback created but never awaited; return their method names."""
        names = []
        for name, coroutine, wrapped in self._coroutines:
            if inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED:
                coroutine.close()
                if wrapped is not None:
                    wrapped.close()
                names.append(name)
        self._coroutines.clear()
        return names


def forward_coroutine(name: str) -> Any:
    """An :class:`AsyncView` method returning the consumer's coroutine, tracked until awaited."""

    def method(self: AsyncView, *args: Any, **kwargs: Any) -> Any:
        self._check(name)
        return self._track(name, getattr(self._target, name)(*args, **kwargs))

    method.__name__ = method.__qualname__ = name
    return method


@contextmanager
def awaited(
    view: AsyncViewT,
    partitions: Iterable[Any] | None = None,
    *,
    listener: object = None,
    protocol: str | None = None,
) -> Iterator[AsyncViewT]:
    """:func:`live` for an :class:`AsyncView`: also raises :class:`NotAwaitedError` at the end
    for each of its coroutines the callback never awaited (they are closed: nothing may run
    on an expired view). An exception from the callback itself wins."""
    with live(view, partitions, listener=listener, protocol=protocol):
        try:
            yield view
        finally:
            unawaited = view._close_unawaited()
        if unawaited:
            raise NotAwaitedError(
                f"{', '.join(n + '()' for n in unawaited)} on the rebalance view returned a "
                f"coroutine that {view._callback}() never awaited, so it did not run: write "
                f"`await consumer.{unawaited[0]}(...)` in an async def callback"
            )


def takes_view(callback: Callable[..., Any]) -> bool:
    """True for KIP-1306 callbacks ``(partitions, consumer)``, False for legacy ``(partitions)``."""
    try:
        params = inspect.signature(callback).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    return len(positional) >= 2
