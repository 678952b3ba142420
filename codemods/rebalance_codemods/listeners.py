"""Plan the kafka-python and aiokafka migration: listener classes, injected consumers, subscribe().

The unit is a listener class with every place it is instantiated and registered. It is
migrated only when all of it is safe: the class derives from the client's listener base and
nothing else; its callbacks take exactly ``(self, partitions)``; every instance is registered
in this file; and a consumer handed to its constructor is provably the consumer it is
registered on (same expression at every instantiation). Anything else is refused, with the
reason, and left byte-identical.
"""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.clients import client_listener_base

from rebalance_codemods.clients import CALLBACKS, LISTENER_CLIENTS, Client
from rebalance_codemods.injection import plan_injection
from rebalance_codemods.listener_facts import (
    FileFacts,
    methods_of,
)
from rebalance_codemods.meta import Index, Meta
from rebalance_codemods.names import guard_name, view_name
from rebalance_codemods.plan import Plan
from rebalance_codemods.subscribe_sites import collect_registered, plan_subscribe
from rebalance_codemods.syntax import (
    append_param,
    has_star_args,
)


def plan_listeners(module: cst.Module, meta: Meta, index: Index, only: str | None = None) -> Plan:
    """Everything KRB201-KRB203 find for kafka-python and aiokafka (or ``only`` one of them)."""
    plan = Plan()
    clients = [
        c for c in LISTENER_CLIENTS if c.package in index.packages and only in (None, c.package)
    ]
    if not clients:
        return plan
    facts = FileFacts(module, meta, index, clients)
    classes = {cls: _listener_client(cls, meta, clients) for cls in index.classes}
    legacy = {cls: kind for cls, kind in classes.items() if kind and kind[1] != "guard"}
    family_sites: dict[cst.ClassDef, list[tuple[int, Plan]]] = {}
    for call in index.method_calls.get("subscribe", []):
        plan_subscribe(call, facts, classes, plan, family_sites)
    collect_registered(facts)
    for cls, (client, kind) in legacy.items():
        family = Plan()
        reason = ASYNC_BASE if kind == "async" else _plan_class(cls, client, facts, family)
        if reason is None:
            plan.merge(family)
            for _, site in family_sites.get(cls, []):
                plan.merge(site)
        else:
            plan.refuse(meta.line(cls), f"listener class {cls.name.value}: {reason}")
            for line, _ in family_sites.get(cls, []):
                plan.refuse(
                    line, f"registers {cls.name.value}, which must be migrated by hand first"
                )
    return plan


ASYNC_BASE = (
    "derives from kafka-python's AsyncConsumerRebalanceListener, whose async callbacks "
    "cannot become rebalance_guard methods (kafka-python listeners run synchronously); "
    "migrate by hand"
)


def _listener_client(
    cls: cst.ClassDef, meta: Meta, clients: list[Client]
) -> tuple[Client, str] | None:
    """(client, "legacy" | "async" | "guard") when ``cls`` derives from a listener base.

    Client bases are recognised by the lint rules' own resolver, so the codemod rewrites
    exactly the classes KRB202 reports.
    """
    by_lint_name = {client.lint_name: client for client in clients}
    for base in cls.bases:
        for name in meta.qualnames(base.value):
            found = client_listener_base(name)
            if found is not None and found[0] in by_lint_name:
                return by_lint_name[found[0]], "async" if found[1] else "legacy"
            for client in clients:
                if name == client.guard_listener:
                    return client, "guard"
    return None


def _plan_class(cls: cst.ClassDef, client: Client, facts: FileFacts, plan: Plan) -> str | None:
    """Stage the migration of one legacy listener class in ``plan``; return why not, if not."""
    meta = facts.meta
    if len(cls.bases) != 1 or cls.keywords:
        return "other base classes or a metaclass; the codemod cannot rebase it safely"
    if cls in facts.pinned:
        return f"its subscribe() at line {facts.pinned[cls]} cannot be migrated"
    methods = methods_of(cls)
    callbacks = {n: f for n, f in methods.items() if n in CALLBACKS}
    if not callbacks:
        return "defines no on_partitions_* callback"
    for fn in callbacks.values():
        reason = _callback_shape(fn, client)
        if reason is not None:
            return reason
    for attr in CALLBACKS:
        for node in facts.index.attributes.get(attr, []):
            return f"{attr} is called directly at line {meta.line(node)}, with one argument"
    creations, reason = _creations(cls, facts)
    if reason is not None:
        return reason
    if not creations:
        return "no instance is created in this file; migrate it where it is registered"
    for creation in creations:
        if creation not in facts.registrations:
            return (
                f"the instance created at line {meta.line(creation)} is not registered with "
                f"subscribe(listener=...) in this file"
            )
        reason = _instance_escapes(creation, facts)
        if reason is not None:
            return reason
    scope = meta.scope(facts.module)
    views: dict[cst.FunctionDef, str] = {}
    for fn in callbacks.values():
        view = view_name(fn)
        if view is None:
            return f"{fn.name.value} already uses every name the codemod would give the view"
        views[fn] = view
    reason = plan_injection(cls, client, methods, creations, views, facts, plan)
    if reason is not None:
        return reason
    base = cls.bases[0]
    listener_name = guard_name(
        scope,
        facts.index.names,
        facts.index.claimed,
        client.guard_module,
        "RebalanceListener",
        plan,
    )
    plan.edit(base, lambda node: node.with_changes(value=cst.Name(listener_name)))
    plan.unused_import_nodes.append(base.value)
    protocol = guard_name(
        scope,
        facts.index.names,
        facts.index.claimed,
        client.guard_module,
        "RebalanceConsumer",
        plan,
    )
    for fn, view in views.items():
        param = cst.Param(
            name=cst.Name(view), annotation=cst.Annotation(annotation=cst.Name(protocol))
        )
        plan.edit(fn.params, lambda node, p=param: append_param(node, p))  # type: ignore[misc]
    plan.sites += 1
    return None


def _callback_shape(fn: cst.FunctionDef, client: Client) -> str | None:
    params = fn.params
    label = fn.name.value
    if fn.decorators:
        return f"{label} is decorated; the codemod cannot know what the decorator expects"
    if fn.asynchronous is not None and not client.async_callbacks:
        return f"{label} is async, which {client.name} listeners cannot be"
    if params.star_arg != cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg:
        return f"{label} takes *args, keyword-only or **kwargs parameters"
    if params.posonly_params or len(params.params) != 2:
        return f"{label} does not take exactly (self, partitions)"
    if any(p.default is not None for p in params.params):
        return f"{label} has parameter defaults"
    return None


def _creations(cls: cst.ClassDef, facts: FileFacts) -> tuple[list[cst.Call], str | None]:
    """Every ``Cls(...)`` call, or why some use of the class name cannot be followed."""
    meta = facts.meta
    refs = meta.references(cls, cls.name.value)
    if refs is None:
        return [], f"the name {cls.name.value} is bound more than once"
    creations = []
    for ref in refs:
        parent = meta.parent(ref)
        if isinstance(parent, cst.Call) and parent.func is ref:
            if has_star_args(parent.args):
                return [], f"instantiated with *args or **kwargs at line {meta.line(ref)}"
            creations.append(parent)
        elif meta.inside(ref, cst.Annotation) or _is_isinstance_arg(ref, meta):
            continue
        else:
            return (
                [],
                f"{cls.name.value} is used at line {meta.line(ref)} in a way the codemod "
                f"cannot follow",
            )
    return creations, None


def _is_isinstance_arg(ref: cst.CSTNode, meta: Meta) -> bool:
    arg = meta.parent(ref)
    call = meta.parent(arg) if arg is not None else None
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value in {"isinstance", "issubclass"}
    )


def _instance_escapes(creation: cst.Call, facts: FileFacts) -> str | None:
    """A listener kept in a variable may be used only for registration and plain attributes."""
    target = facts.instance_names.get(creation)
    if target is None:
        return None
    meta = facts.meta
    refs = meta.references(target, target.value)
    for ref in refs if refs is not None else [target]:  # rebound: no use can be vouched for
        parent = meta.parent(ref)
        if isinstance(parent, cst.Attribute) and parent.attr.value not in CALLBACKS:
            continue
        if id(ref) in facts.registered_values:
            continue
        return (
            f"the listener {target.value} is used at line {meta.line(ref)} beyond its registration"
        )
    return None
