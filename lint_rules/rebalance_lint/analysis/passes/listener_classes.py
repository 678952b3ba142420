"""Listener classes: every class of the file that derives from a client's listener base."""

from __future__ import annotations

from rebalance_lint.analysis.passes.draft import Draft


def listener_classes(draft: Draft) -> None:
    """Add a listener for each class whose bases make it one (registered or not)."""
    for cls, _scope in draft.facts.classes:
        info = draft.hierarchy.info(cls)
        if info is not None:
            draft.listener(cls, info)
