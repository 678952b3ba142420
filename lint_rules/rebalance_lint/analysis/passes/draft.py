"""The model under construction that every pass adds to, and the steps several passes share."""

from __future__ import annotations

import ast
from typing import Any

from rebalance_lint.analysis.collect import Facts, FunctionNode
from rebalance_lint.analysis.listeners import BaseInfo
from rebalance_lint.analysis.model import Callback, Fallthrough, ListenerClass, Registration
from rebalance_lint.analysis.program import Unit
from rebalance_lint.analysis.walk import body_nodes


class Draft:
    """One file's listeners and callbacks so far, with what later passes need to know."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.facts = unit.facts
        self.consumers = unit.consumers
        self.hierarchy = unit.hierarchy
        self.listeners: dict[ast.ClassDef, ListenerClass] = {}
        self.callbacks: dict[ast.AST, Callback] = {}
        #: ``listener=self``: a consumer wrapper registered as its own listener
        self.self_sites: list[tuple[ListenerClass, Registration, ast.Name]] = []
        #: ``listener.attr = value`` after construction: class -> (attr, assignment target)
        self.set_after: dict[ast.ClassDef, list[tuple[str, ast.Attribute]]] = {}
        #: the same on listener classes of other files: (their draft, listener, target)
        self.remote_set_after: list[tuple[Draft, ListenerClass, ast.Attribute]] = []

    def listener(self, cls: ast.ClassDef, info: BaseInfo) -> ListenerClass:
        """The listener for ``cls``, created from ``info`` if new."""
        if cls not in self.listeners:
            self.listeners[cls] = ListenerClass(
                node=cls,
                scope=self.hierarchy.scope_of(cls),
                client=info.client,
                api=info.api,
                client_base=info.client_base,
                lost_defaults_to_revoked=info.lost_defaults_to_revoked,
                methods=self.hierarchy.methods(cls),
                named_base=info.named_base,
            )
        return self.listeners[cls]

    def callback(self, func: FunctionNode | ast.Lambda, **fields: Any) -> tuple[Callback, bool]:
        """The callback for ``func``, created with ``fields`` if new; (callback, created)."""
        existing = self.callbacks.get(func)
        if existing is not None:
            return existing, False
        callback = Callback(func=func, scope=self.facts.scope_of[func], **fields)
        self.callbacks[func] = callback
        return callback, True


def add_kind(
    callback: Callback, kind: str, via: str, fallthrough: Fallthrough | None = None
) -> None:
    """``callback`` also runs as ``kind``; ``via`` says why a non-lost callback runs on lost
    (``fallthrough``: through which client fall-through, if any)."""
    if kind == "lost" and ("lost" not in callback.kinds or not via):
        callback.lost_via = via
        callback.lost_fallthrough = fallthrough
    callback.kinds.add(kind)  # type: ignore[arg-type]


def stored_params(init: FunctionNode, facts: Facts) -> list[tuple[str, str]]:
    """(attribute, parameter) for each ``self.attr = param`` in ``__init__``."""
    self_name = facts.scope_of[init].self_name
    out: list[tuple[str, str]] = []
    for node in body_nodes(init):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == self_name
                    and isinstance(node.value, ast.Name)
                ):
                    out.append((target.attr, node.value.id))
    return out
