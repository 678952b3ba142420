"""The expiring, restricted consumer view shared by every client adapter.

A view forwards only the methods KIP-1306 permits and refuses everything after the
callback that received it returns. Client modules declare their permitted methods with
:func:`forward` (or write an adapted method that starts with ``self._check(name)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from rebalance_guard._errors import RebalanceViewExpiredError

ViewT = TypeVar("ViewT", bound="ExpiringView")

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

    __slots__ = ("_callback", "_live", "_target")

    def __init__(self, target: Any, callback: str) -> None:
        self._target = target
        self._callback = callback
        self._live = True

    def _check(self, method: str) -> None:
        if not self._live:
            raise RebalanceViewExpiredError(
                f"{method}() called on the rebalance view after {self._callback}() returned: "
                f"the view is valid only while the callback runs; keep the data, not the view"
            )

    def _expire(self) -> None:
        self._live = False

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
