"""Receivers: the names through which each callback reaches a consumer, and how it got it."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.collect import all_params, positional_params
from rebalance_lint.analysis.model import Callback, Origin, dotted
from rebalance_lint.analysis.passes.draft import Draft
from rebalance_lint.analysis.passes.helpers import callee_of
from rebalance_lint.analysis.walk import body_nodes


def receivers(draft: Draft) -> None:
    """Set every callback's ``receivers``: its consumer parameter, injected names, aliases."""
    for callback in draft.callbacks.values():
        callback.receivers = _receivers(draft, callback)
    _hand_on_other_consumers(draft)


def _hand_on_other_consumers(draft: Draft) -> None:
    """A rebalance_guard callback handing a consumer other than its view to a helper of the
    file (``flush(self.consumer)``): the helper's parameter is that consumer too (KRB112).

    Only for rebalance_guard callbacks: in a legacy listener every consumer is an injected
    one, which KRB201 reports and the migration planner reads from the listener itself.
    """
    by_func = {id(cb.func): cb for cb in draft.callbacks.values()}
    for caller in sorted(draft.callbacks.values(), key=lambda cb: cb.depth):
        if caller.api != "guard" or isinstance(caller.func, ast.Lambda):
            continue
        for node in body_nodes(caller.func):
            if not isinstance(node, ast.Call):
                continue
            found = callee_of(draft, caller, node.func)
            callee = by_func.get(id(found[0])) if found is not None else None
            if found is None or callee is None or not callee.helper:
                continue
            params = [a.arg for a in positional_params(found[0])[1 if found[1] else 0 :]]
            given = [*zip(params, node.args, strict=False)]
            given += [(kw.arg, kw.value) for kw in node.keywords if kw.arg in params]
            for param, arg in given:
                path = dotted(arg)
                if path is not None and caller.receivers.get(path) == "injected":
                    callee.receivers.setdefault(param, "injected")


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
                # the callback's own variable: an alias of what it names here, even where
                # the consumer model also saw it bound to a consumer (``local = consumer``)
                out[target.id] = out[source]
    return out
