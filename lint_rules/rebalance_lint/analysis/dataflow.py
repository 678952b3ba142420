"""Registrations that reach ``subscribe()`` through data flow, within one file.

A callback kept in a variable (``on_assign = lambda c, p: ...``), a dict of keyword
arguments (``subscribe(topics, **callbacks)``), ``run_in_executor(pool, consumer.subscribe,
...)``, a helper or a proxy whose parameter is the callback (``def start(self, on_assign):
self._consumer.subscribe(t, on_assign=on_assign)``): each is followed back to the
expression that names the function, which the registration code then resolves as usual.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.collect import (
    Facts,
    FunctionNode,
    Scope,
    param_default,
    positional_params,
)
from rebalance_lint.analysis.walk import body_nodes


def bound_value(name: str, scope: Scope, facts: Facts) -> ast.expr | None:
    """The latest ``name = <value>`` visible from ``scope`` (lambda, dict, call), if any."""
    for target, value, where in reversed(facts.bindings):
        if isinstance(target, ast.Name) and target.id == name and where.encloses(scope):
            return value
    return None


def expanded(call: ast.Call, scope: Scope, facts: Facts) -> ast.Call:
    """``call`` with ``**name`` spelled out when ``name`` is a dict this file builds.

    ``run_in_executor(pool, consumer.subscribe, topics, cb)`` becomes
    ``consumer.subscribe(topics, cb)``; a new node is made only when something changed, at the
    original call's position (and each spelled-out keyword at the ``**`` argument's).
    """
    func, args = call.func, call.args
    if isinstance(func, ast.Attribute) and func.attr == "run_in_executor" and len(args) >= 2:
        func, args = args[1], args[2:]
    keywords: list[ast.keyword] = []
    for kw in call.keywords:
        value = (
            bound_value(kw.value.id, scope, facts)
            if (kw.arg is None and isinstance(kw.value, ast.Name))
            else None
        )
        items = _dict_items(value)
        if items is None:
            keywords.append(kw)
            continue
        for key, item in items:
            keywords.append(ast.copy_location(ast.keyword(arg=key, value=item), kw))
    if func is call.func and keywords == call.keywords:
        return call
    return ast.copy_location(ast.Call(func=func, args=list(args), keywords=keywords), call)


def _dict_items(value: ast.expr | None) -> list[tuple[str, ast.expr]] | None:
    if isinstance(value, ast.Dict):
        items: list[tuple[str, ast.expr]] = []
        for key, item in zip(value.keys, value.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            items.append((key.value, item))
        return items
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        if value.args:
            return None
        return [(kw.arg, kw.value) for kw in value.keywords if kw.arg]
    return None


def parameter_arguments(scope: Scope, name: str, facts: Facts) -> Iterator[tuple[ast.expr, Scope]]:
    """What callers pass for parameter ``name`` of the function ``scope`` belongs to.

    Callers in this file: ``start(consumer, cb)`` for a function, ``self.start(cb)`` inside its
    class, ``proxy.start(cb)`` on a name bound to an instance of its class. A caller that
    passes nothing gives the parameter's default.
    """
    func = scope.node
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return
    params = positional_params(func)
    is_method = scope.cls is not None and facts.methods.get(scope.cls, {}).get(func.name) is func
    offset = 1 if is_method else 0
    index = next((i for i, a in enumerate(params) if a.arg == name), None)
    kwonly = [a.arg for a in func.args.kwonlyargs]
    if index is None and name not in kwonly:
        return
    default = param_default(func, name)
    for call, where in _calls(facts):
        if not _calls_function(call, where, func, scope, is_method, facts):
            continue
        passed = next((kw.value for kw in call.keywords if kw.arg == name), None)
        if passed is None and index is not None and 0 <= index - offset < len(call.args):
            passed = call.args[index - offset]
        if passed is not None and not isinstance(passed, ast.Starred):
            yield passed, where
        elif default is not None:
            yield default, scope.parent or scope


def _calls(facts: Facts) -> Iterator[tuple[ast.Call, Scope]]:
    """Every call the file makes, with the scope it runs in (walked on demand: rare)."""
    module = facts.module.node
    assert isinstance(module, ast.Module)
    stack: list[tuple[ast.AST, Scope]] = [(stmt, facts.module) for stmt in module.body]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = facts.scope_of.get(node)
            if inner is None:
                continue
            for child in body_nodes(node):
                if isinstance(child, ast.Call):
                    yield child, inner
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    stack.append((child, inner))
                elif isinstance(child, ast.ClassDef):
                    stack.extend((stmt, inner) for stmt in child.body)
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend((stmt, scope) for stmt in node.body)
            continue
        if isinstance(node, ast.Call):
            yield node, scope
        stack.extend((child, scope) for child in ast.iter_child_nodes(node))


def _calls_function(
    call: ast.Call, where: Scope, func: FunctionNode, scope: Scope, is_method: bool, facts: Facts
) -> bool:
    target = call.func
    if not is_method:
        return isinstance(target, ast.Name) and where.lookup_function(target.id) is func
    if not (isinstance(target, ast.Attribute) and target.attr == func.name):
        return False
    receiver = target.value
    if not isinstance(receiver, ast.Name):
        return False
    if receiver.id == where.self_name:
        return where.cls is scope.cls
    value = bound_value(receiver.id, where, facts)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and scope.cls is not None
        and where.lookup_class(value.func.id) is scope.cls
    )


def local_instance(expr: ast.expr, scope: Scope, facts: Facts) -> ast.ClassDef | None:
    """The class this file defines that ``expr`` is an instance of (``proxy = Proxy()``)."""
    if isinstance(expr, ast.Name) and expr.id == scope.self_name:
        return scope.cls
    if isinstance(expr, ast.Name):
        value = bound_value(expr.id, scope, facts)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            return scope.lookup_class(value.func.id)
    return None
