"""Callbacks from listener classes: each ``on_partitions_*`` method, with the lost fall-through."""

from __future__ import annotations

from rebalance_lint.analysis.model import METHOD_KINDS
from rebalance_lint.analysis.passes.draft import Draft, add_kind

_FALLTHROUGH_CLASS = " (no on_partitions_lost override: the base class calls on_partitions_revoked)"


def listener_methods(draft: Draft) -> None:
    """Add a callback for every rebalance method of every listener, carrying its sites."""
    for listener in draft.listeners.values():
        for name, kind in METHOD_KINDS.items():
            method = listener.methods.get(name)
            if method is None:
                continue
            callback, _ = draft.callback(
                method,
                api=listener.api,
                client=listener.client,
                label=f"{name}()",
                owner=listener,
                is_method=True,
            )
            callback.sites.extend(listener.sites)
            add_kind(callback, kind, "")
        revoked = listener.methods.get("on_partitions_revoked")
        if (
            listener.lost_defaults_to_revoked
            and revoked is not None
            and "on_partitions_lost" not in listener.methods
        ):
            add_kind(draft.callbacks[revoked], "lost", _FALLTHROUGH_CLASS, "listener")
