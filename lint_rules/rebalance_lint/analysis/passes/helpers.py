"""Helpers followed: functions and ``self`` methods a callback calls become callbacks too."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.collect import FunctionNode, all_params, positional_params
from rebalance_lint.analysis.model import Callback
from rebalance_lint.analysis.passes.draft import Draft, add_kind
from rebalance_lint.analysis.walk import body_nodes

#: How far a callback's calls are followed into helpers (``self._commit()``).
MAX_HELPER_DEPTH = 3


def follow_helpers(draft: Draft) -> None:
    """Add each helper as a callback with its caller's kinds, sites and consumer arguments."""
    todo = list(draft.callbacks.values())
    while todo:
        caller = todo.pop()
        if caller.depth >= MAX_HELPER_DEPTH or isinstance(caller.func, ast.Lambda):
            continue
        consumer_names = {caller.consumer_param()} | caller.passed_consumer
        for node in body_nodes(caller.func):
            if not isinstance(node, ast.Call):
                continue
            found = callee_of(draft, caller, node.func)
            if found is None:
                continue
            func, is_method = found
            callee, new = draft.callback(
                func,
                api=caller.api,
                client=caller.client,
                label=f"{func.name}()",
                owner=caller.owner,
                is_method=is_method,
                helper=True,
                depth=caller.depth + 1,
                sites=caller.sites,
            )
            if new:
                todo.append(callee)
            if callee.helper:
                offset = 1 if is_method else 0
                params = [a.arg for a in positional_params(func)[offset:]]
                for i, arg in enumerate(node.args):
                    if i < len(params) and isinstance(arg, ast.Name) and arg.id in consumer_names:
                        callee.passed_consumer.add(params[i])
                named = {a.arg for a in all_params(func)}  # flush(consumer=view) too
                for kw in node.keywords:
                    name = kw.value.id if isinstance(kw.value, ast.Name) else None
                    if kw.arg in named and name in consumer_names:
                        callee.passed_consumer.add(kw.arg)
            for kind in sorted(caller.kinds):
                if kind not in callee.kinds:
                    inherited = kind == "lost" and "lost" in caller.kinds
                    via = caller.lost_via if inherited else ""
                    fallthrough = caller.lost_fallthrough if inherited else None
                    add_kind(callee, kind, via or f" (called from {caller.label})", fallthrough)


def callee_of(draft: Draft, caller: Callback, func: ast.expr) -> tuple[FunctionNode, bool] | None:
    """The function or ``self`` method a call in ``caller`` names (not ``caller`` itself)."""
    if isinstance(func, ast.Name):
        found = caller.scope.lookup_function(func.id)
        return (found, False) if found is not None and found is not caller.func else None
    self_name = caller.scope.self_name
    cls = caller.scope.cls
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and self_name is not None
        and func.value.id == self_name
        and cls is not None
    ):
        found = draft.hierarchy.methods(cls).get(func.attr)
        return (found, True) if found is not None and found is not caller.func else None
    return None
