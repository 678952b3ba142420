"""Injections: how legacy listeners receive a consumer, directly through the constructor or not.

Read off the finished draft (callbacks and their effects), when the analysis is made.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from rebalance_lint.analysis.collect import FunctionNode, Scope, all_params
from rebalance_lint.analysis.effects import owner_path, receiver_path
from rebalance_lint.analysis.model import Callback, IndirectInjection, ListenerClass
from rebalance_lint.analysis.passes.draft import Draft, stored_params
from rebalance_lint.analysis.walk import body_nodes


def injected(draft: Draft) -> list[tuple[ListenerClass, ast.arg]]:
    """Constructor parameters through which a legacy listener receives the consumer."""
    out: list[tuple[ListenerClass, ast.arg]] = []
    for listener in draft.listeners.values():
        init = draft.facts.methods.get(listener.node, {}).get("__init__")
        if listener.api != "legacy" or init is None:
            continue
        attrs = draft.consumers.class_attrs([listener.node])
        stored = dict(stored_params(init, draft.facts))
        for arg in all_params(init)[1:]:
            attr = next((a for a, p in stored.items() if p == arg.arg), None)
            if attr is None:
                continue
            if draft.consumers.param_client(arg)[0] or attr in attrs:
                out.append((listener, arg))
    return out


def indirect(draft: Draft) -> list[IndirectInjection]:
    """Legacy listeners reaching a consumer through an owner, a later attribute, or ``self``."""
    out: list[IndirectInjection] = []
    direct = {(listener.node, arg.arg) for listener, arg in injected(draft)}
    for listener in draft.listeners.values():
        if listener.api != "legacy":
            continue
        callbacks = [cb for cb in draft.callbacks.values() if cb.owner is listener]
        init = draft.facts.methods.get(listener.node, {}).get("__init__")
        if init is not None:
            args = {a.arg: a for a in all_params(init)[1:]}
            for attr, param in stored_params(init, draft.facts):
                path = _reached(callbacks, attr)
                if path and param in args and (listener.node, param) not in direct:
                    out.append(IndirectInjection(listener, "owner", args[param], param, path, ""))
        for attr, target in draft.set_after.get(listener.node, []):
            path = _reached(callbacks, attr)
            if path:
                out.append(
                    IndirectInjection(
                        listener, "attribute", target, attr, path, f"line {target.lineno}"
                    )
                )
    for other, listener, target in draft.remote_set_after:
        callbacks = [cb for cb in other.callbacks.values() if cb.owner is listener]
        path = _reached(callbacks, target.attr)
        if listener.api == "legacy" and path:
            where = f"line {target.lineno}"
            out.append(IndirectInjection(listener, "attribute", target, target.attr, path, where))
    for listener in draft.listeners.values():
        closure = _closure_consumer(listener, draft.callbacks.values())
        if listener.api == "legacy" and closure is not None:
            function, name = closure
            out.append(
                IndirectInjection(listener, "closure", listener.node, name, name, f"{function}()")
            )
    for listener, _reg, node in draft.self_sites:
        path = next(
            (
                effect.receiver
                for cb in draft.callbacks.values()
                if cb.owner is listener
                for effect in cb.effects
                if not effect.via and effect.origin == "injected" and effect.receiver
            ),
            None,
        )
        if listener.api == "legacy" and path:
            out.append(
                IndirectInjection(listener, "self", node, "self", path, f"line {node.lineno}")
            )
    return out


def _closure_consumer(
    listener: ListenerClass, callbacks: Iterable[Callback]
) -> tuple[str, str] | None:
    """(enclosing function, name): a listener class defined in a function whose callbacks use
    a consumer variable of that function (``consumer.commit()`` on the closure's consumer)."""
    scope: Scope | None = listener.scope
    while scope is not None and not isinstance(scope.node, ast.FunctionDef | ast.AsyncFunctionDef):
        scope = scope.parent
    if scope is None or not isinstance(scope.node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    local = {name for name, _ in _function_locals(scope.node)}
    for callback in callbacks:
        if callback.owner is not listener:
            continue
        for effect in callback.effects:
            if not effect.via and effect.origin == "injected" and effect.receiver in local:
                return scope.node.name, effect.receiver
    return None


def _function_locals(func: FunctionNode) -> Iterator[tuple[str, ast.AST]]:
    """Parameters and names a function assigns itself (not in nested functions)."""
    for arg in all_params(func):
        yield arg.arg, arg
    for node in body_nodes(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield target.id, node
        elif isinstance(node, ast.AnnAssign | ast.With) and isinstance(
            getattr(node, "target", None), ast.Name
        ):
            yield node.target.id, node  # type: ignore[union-attr]


def _reached(callbacks: list[Callback], attr: str) -> str | None:
    """How the callbacks reach a consumer through ``self.attr``: a path or an owner call."""
    for callback in callbacks:
        prefix = f"{callback.scope.self_name}.{attr}."
        for effect in callback.effects:
            if effect.receiver.startswith(prefix):
                return effect.receiver
            if effect.via and effect.via[0].text.startswith(prefix):
                return effect.via[0].text
    for callback in callbacks:  # mentioned without a call we know: self._t._ensure_consumer()
        prefix = f"{callback.scope.self_name}.{attr}."
        for node in body_nodes(callback.func):
            if isinstance(node, ast.Attribute | ast.Call):
                path = receiver_path(node)
                if path and path.startswith(prefix) and owner_path(path, callback.scope.self_name):
                    return path
    return None
