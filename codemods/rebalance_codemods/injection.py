"""KRB201: the consumer injected through a listener's constructor becomes the view argument.

The injected parameter is the one that receives, at every instantiation, the very consumer the
instance is registered on. Its uses inside callbacks become the view (only calls of methods
the view offers); the parameter, the ``self.<attr> = <param>`` and the arguments go, unless the
consumer is used elsewhere too: then it stays and the site is reported.
"""

from __future__ import annotations

import libcst as cst

from rebalance_codemods.clients import CONSUMER_METHODS, Client
from rebalance_codemods.listener_facts import (
    FileFacts,
    first_param,
    self_attr,
)
from rebalance_codemods.meta import Meta
from rebalance_codemods.plan import Plan, Replacement
from rebalance_codemods.syntax import (
    code,
    drop_arg,
    drop_param,
    drop_statement,
    find_arg,
)


def plan_injection(
    cls: cst.ClassDef,
    client: Client,
    methods: dict[str, cst.FunctionDef],
    creations: list[cst.Call],
    views: dict[cst.FunctionDef, str],
    facts: FileFacts,
    plan: Plan,
) -> str | None:
    """KRB201: find the consumer handed to ``__init__`` and turn its callback uses into the view."""
    meta = facts.meta
    init = methods.get("__init__")
    injected = _injected_param(init, creations, facts) if init is not None else None
    if isinstance(injected, str):
        return injected
    attr = _stored_as(init, injected) if init is not None and injected is not None else None
    callback_uses: list[tuple[cst.Attribute, str]] = []
    for fn, view in views.items():
        self_name = first_param(fn)
        for node in attributes_in(fn):
            stored = self_attr(node, self_name)
            if stored is None:
                continue
            method = facts.meta.parent(node)
            method_name = (
                method.attr.value
                if isinstance(method, cst.Attribute) and method.value is node
                else None
            )
            if attr is not None and stored == attr[0]:
                reason = _view_use(node, method_name, client, meta)
                if reason is not None:
                    return reason
                callback_uses.append((node, view))
            elif method_name in CONSUMER_METHODS and _from_param(init, stored):
                return (
                    f"{fn.name.value} calls self.{stored}.{method_name}() on a consumer the "
                    f"codemod cannot prove is the registering one"
                )
    for node, view in callback_uses:
        plan.edit(node, lambda _n, v=view: cst.Name(v))  # type: ignore[misc]
    if init is None or injected is None:
        return None
    param, position = injected
    other_uses = _uses_outside(attr, param, init, views, facts)
    if other_uses is not None:
        plan.refuse(
            meta.line(param),
            f"the consumer injected into {cls.name.value}() is also used at line {other_uses}; "
            f"kept (the callbacks now use the view), remove it by hand",
        )
        return None
    assert attr is not None
    plan.edit(init.params, lambda node: drop_param(node, position + 1))  # type: ignore[arg-type]
    if param.annotation is not None:
        plan.unused_import_nodes.append(param.annotation)
    plan.edit(init.body, lambda node, stmt=attr[1]: drop_statement(node, stmt, fill=False))  # type: ignore[misc]
    plan.edit(init, _drop_if_empty)
    for creation in creations:
        plan.edit(creation, lambda node, n=param.name.value, p=position: _drop_call_arg(node, n, p))  # type: ignore[misc]
    return None


def _injected_param(
    init: cst.FunctionDef, creations: list[cst.Call], facts: FileFacts
) -> tuple[cst.Param, int] | str | None:
    """The ``__init__`` parameter that always receives the registering consumer, if one does."""
    params = init.params
    if params.star_arg != cst.MaybeSentinel.DEFAULT or params.star_kwarg or params.posonly_params:
        return None
    for position, param in enumerate(params.params[1:]):
        matches = []
        for creation in creations:
            index = find_arg(creation.args, param.name.value, position)
            receiver = facts.registrations[creation]
            matches.append(index is not None and code(creation.args[index].value) == receiver)
        if all(matches):
            return param, position
        if any(matches):
            return (
                f"its constructor gets the registering consumer at some instantiations but "
                f"not at others ({param.name.value})"
            )
    return None


def _stored_as(
    init: cst.FunctionDef, injected: tuple[cst.Param, int]
) -> tuple[str, cst.SimpleStatementLine] | None:
    """``self.<attr> = <param>`` in ``__init__``: the attribute name and its statement line."""
    self_name = first_param(init)
    body = init.body.body if isinstance(init.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        assign = stmt.body[0]
        if (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.value, cst.Name)
            and assign.value.value == injected[0].name.value
        ):
            attr = self_attr(assign.targets[0].target, self_name)
            if attr is not None:
                return attr, stmt
    return None


def _from_param(init: cst.FunctionDef | None, attr: str) -> bool:
    """Whether ``__init__`` stores one of its parameters as ``self.<attr>``."""
    if init is None:
        return False
    for position, param in enumerate(init.params.params[1:]):
        stored = _stored_as(init, (param, position))
        if stored is not None and stored[0] == attr:
            return True
    return False


def _view_use(node: cst.Attribute, method: str | None, client: Client, meta: Meta) -> str | None:
    """Why ``self.<consumer>`` in a callback cannot become the view (None when it can)."""
    line = meta.line(node)
    if method is None:
        return f"a callback uses the injected consumer other than to call a method (line {line})"
    call = meta.parent(meta.parent(node) or node)
    if not (isinstance(call, cst.Call) and call.func is meta.parent(node)):
        return f"a callback uses consumer.{method} without calling it (line {line})"
    if method not in client.view_methods:
        return (
            f"a callback calls consumer.{method}() (line {line}), which the rebalance view "
            f"does not offer (KIP-1306)"
        )
    return None


def attributes_in(node: cst.CSTNode) -> list[cst.Attribute]:
    found: list[cst.Attribute] = []

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            found.append(attr)

    node.visit(_Collect())
    return found


def _uses_outside(
    attr: tuple[str, cst.SimpleStatementLine] | None,
    param: cst.Param,
    init: cst.FunctionDef,
    views: dict[cst.FunctionDef, str],
    facts: FileFacts,
) -> int | None:
    """First line using the injected consumer outside the callbacks, or None."""
    meta = facts.meta
    if attr is None:
        return meta.line(init)
    refs = meta.references(param.name, param.name.value)
    if refs is None or len(refs) != 1:
        return meta.line(init)
    inside = {id(node) for fn in views for node in attributes_in(fn)}
    assigned = attr[1].body[0]
    assert isinstance(assigned, cst.Assign)
    for node in facts.index.attributes.get(attr[0], []):
        if id(node) in inside or node is assigned.targets[0].target:
            continue
        return meta.line(node)
    return None


def _drop_call_arg(node: cst.CSTNode, name: str, position: int) -> Replacement:
    assert isinstance(node, cst.Call)
    index = find_arg(node.args, name, position)
    assert index is not None
    return node.with_changes(args=drop_arg(node.args, index))


def _drop_if_empty(node: cst.CSTNode) -> Replacement:
    """An ``__init__`` left with nothing to do goes away (or keeps a ``pass`` if it has params)."""
    assert isinstance(node, cst.FunctionDef)
    body = node.body
    if isinstance(body, cst.IndentedBlock) and not body.body:
        if (
            len(node.params.params) == 1
            and not node.decorators
            and not node.params.kwonly_params
            and not any(line.comment for line in node.leading_lines)
            and not any(line.comment for line in body.footer)
        ):
            return cst.RemoveFromParent()
        return node.with_changes(
            body=body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        )
    return node
