"""The expiring, restricted consumer view shared by every client adapter.

A view forwards only the methods KIP-1306 permits and refuses everything after the
callback that received it returns. Client modules declare their permitted methods with
:func:`forward` (or write an adapted method that starts with ``self._check(name)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from rebalance_guard._errors import NotAwaitedError, RebalanceViewExpiredError

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


class ExpiringView:
    """Base of every client's view: holds the real consumer and the callback's liveness."""

    __slots__ = ("_callback", "_coroutines", "_gone", "_live", "_target")

    def __init__(self, target: Any, callback: str) -> None:
        self._target = target
        self._callback = callback
        self._live = True
        self._gone: frozenset[tuple[str, int]] = frozenset()  # see :meth:`_lose`
        # Coroutines an AsyncView handed out (here so that views can mix AsyncView in)
        self._coroutines: list[tuple[str, Coroutine[Any, Any, Any]]] = []

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


@contextmanager
def live(view: ViewT) -> Iterator[ViewT]:
    """Hand ``view`` to one callback; it expires when the block ends, however it ends."""
    try:
        yield view
    finally:
        view._expire()


class AsyncView(ExpiringView):
    """A view whose methods return the consumer's coroutines: one never awaited is an error.

    Calling an async method of an asyncio client without ``await`` silently does nothing;
    the view remembers each coroutine it hands out and :func:`awaited` reports those that
    never started when the callback ends.
    """

    __slots__ = ()

    def _track(self, name: str, coroutine: Coroutine[Any, Any, Any]) -> Any:
        self._coroutines.append((name, coroutine))
        return coroutine

    def _close_unawaited(self) -> list[str]:
        """Close coroutines the callback created but never awaited; return their method names."""
        names = []
        for name, coroutine in self._coroutines:
            if inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED:
                coroutine.close()
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
def awaited(view: AsyncViewT) -> Iterator[AsyncViewT]:
    """:func:`live` for an :class:`AsyncView`: also raises :class:`NotAwaitedError` at the end
    for each of its coroutines the callback never awaited (they are closed: nothing may run
    on an expired view). An exception from the callback itself wins."""
    with live(view):
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
