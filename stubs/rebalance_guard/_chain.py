"""Handing a rebalance callback on to another listener from inside one's own: the chaining
wrappers real code has (a lag tracker calling ``self.inner.on_partitions_assigned(tps)``, a
framework forwarding to the user's ``rebalance_listener``).

Which listener gets the view is the adapters' own rule for a registered listener: a
rebalance_guard listener's method that takes one (:func:`~rebalance_guard._view.takes_view`).
Anything else (the client's own ``ConsumerRebalanceListener``, a duck-typed hook object) is
called with the partitions alone, exactly as the code called it before it was migrated."""

from __future__ import annotations

from typing import Any, Literal

from rebalance_guard._view import takes_view

Callback = Literal["on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost"]

_LISTENER_BASES = frozenset({"RebalanceListener", "AsyncRebalanceListener"})


def chain_callback(listener: object, callback: Callback, partitions: Any, consumer: Any) -> Any:
    """Call ``listener.<callback>`` from inside a callback holding the rebalance view
    ``consumer``: with ``(partitions, consumer)`` where the listener is a rebalance_guard
    listener whose method takes the view, else with ``(partitions)``. Returns what the method
    returns (a coroutine of an ``async def`` one: await it, as the call awaited before)."""
    method = getattr(listener, callback)
    if _is_guard_listener(listener) and takes_view(method):
        return method(partitions, consumer)
    return method(partitions)


def _is_guard_listener(listener: object) -> bool:
    """An instance of a rebalance_guard adapter's listener base (any client's), found by the
    class's own module so that no client is imported to ask."""
    return any(
        cls.__name__ in _LISTENER_BASES and cls.__module__.startswith("rebalance_guard.")
        for cls in type(listener).__mro__
    )
