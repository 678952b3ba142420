"""Receivers: the names through which each callback reaches a consumer, and how it got it."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.collect import all_params
from rebalance_lint.analysis.model import Callback, Origin, dotted
from rebalance_lint.analysis.passes.draft import Draft
from rebalance_lint.analysis.walk import body_nodes


def receivers(draft: Draft) -> None:
    """Set every callback's ``receivers``: its consumer parameter, injected names, aliases."""
    for callback in draft.callbacks.values():
        callback.receivers = _receivers(draft, callback)


def _receivers(draft: Draft, callback: Callback) -> dict[str, Origin]:
    out: dict[str, Origin] = {}
    param = callback.consumer_param()
    for name in ({param} if param else set()) | callback.passed_consumer:
        out[name] = "param"
    own = {a.arg for a in all_params(callback.func)}
    for name in draft.consumers.visible_names(callback.scope):
        if name not in own:
            out.setdefault(name, "injected")
    self_name = callback.scope.self_name
    cls = callback.scope.cls
    classes = draft.hierarchy.ancestry(cls) if cls is not None else []
    if self_name is not None:
        for attr in draft.consumers.class_attrs(classes):
            out.setdefault(f"{self_name}.{attr}" if attr else self_name, "injected")
    for site in callback.sites:
        receiver = site.receiver
        if receiver is None:
            continue
        head, _, rest = receiver.partition(".")
        if site.scope.self_name is not None and head == site.scope.self_name:
            if self_name is not None and site.scope.cls in classes and rest:
                out.setdefault(f"{self_name}.{rest}", "injected")
        elif site.scope.encloses(callback.scope) and head not in own:
            out.setdefault(receiver, "injected")
    for node in body_nodes(callback.func):  # local aliases: c = self._consumer
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, source = node.targets[0], dotted(node.value)
            if isinstance(target, ast.Name) and source in out:
                out.setdefault(target.id, out[source])
    return out
