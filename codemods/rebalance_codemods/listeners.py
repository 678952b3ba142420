"""Plan the kafka-python and aiokafka migration: listener classes, injected consumers, subscribe().

The unit is a listener class with every place it is instantiated and registered. It is
migrated only when all of it is safe: the class derives from the client's listener base and
nothing else; its callbacks take exactly ``(self, partitions)``; every instance is registered
in this file; and a consumer handed to its constructor is provably the consumer it is
registered on (same expression at every instantiation). Anything else is refused, with the
reason, and left byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from rebalance_codemods.clients import CALLBACKS, CONSUMER_METHODS, LISTENER_CLIENTS, Client
from rebalance_codemods.meta import Index, Meta
from rebalance_codemods.names import guard_name, view_name
from rebalance_codemods.plan import Plan, Replacement
from rebalance_codemods.syntax import (
    append_param,
    code,
    drop_arg,
    drop_param,
    drop_statement,
    find_arg,
    has_star_args,
    is_dotted,
    is_pure,
)

LISTENER_POSITION = 2  # subscribe(topics=(), pattern=None, listener=None) in both clients


@dataclass
class Registration:
    """A place a listener instance is handed to a consumer."""

    receiver: str  # source text of the consumer expression
    plan: Plan  # the edits that convert it (empty when it is already set_rebalance_listener)


@dataclass
class _Files:
    """Per-file facts shared by the class planners."""

    module: cst.Module
    meta: Meta
    index: Index
    clients: list[Client]
    registrations: dict[cst.Call, Registration] = field(default_factory=dict)
    instance_names: dict[cst.Call, cst.Name] = field(default_factory=dict)
    pinned: dict[cst.ClassDef, int] = field(default_factory=dict)
    registered_values: set[int] = field(default_factory=set)  # ids of listener expressions


def plan_listeners(module: cst.Module, meta: Meta, index: Index, only: str | None = None) -> Plan:
    """Everything KRB201-KRB203 find for kafka-python and aiokafka (or ``only`` one of them)."""
    plan = Plan()
    clients = [
        c for c in LISTENER_CLIENTS if c.package in index.packages and only in (None, c.package)
    ]
    if not clients:
        return plan
    facts = _Files(module, meta, index, clients)
    classes = {cls: _listener_client(cls, meta, clients) for cls in index.classes}
    legacy = {cls: kind[0] for cls, kind in classes.items() if kind and kind[1] == "legacy"}
    family_sites: dict[cst.ClassDef, list[tuple[int, Plan]]] = {}
    for call in index.method_calls.get("subscribe", []):
        _plan_subscribe(call, facts, classes, plan, family_sites)
    _collect_registered(facts)
    for cls, client in legacy.items():
        family = Plan()
        reason = _plan_class(cls, client, facts, family)
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


def _listener_client(
    cls: cst.ClassDef, meta: Meta, clients: list[Client]
) -> tuple[Client, str] | None:
    """(client, "legacy" | "guard") when ``cls`` derives from a listener base."""
    for base in cls.bases:
        names = meta.qualnames(base.value)
        for client in clients:
            if names & client.legacy_bases:
                return client, "legacy"
            if client.guard_listener in names:
                return client, "guard"
    return None


def _creation(value: cst.BaseExpression, facts: _Files) -> cst.Call | None:
    """The ``Cls(...)`` call that produced a listener expression, if the codemod can see it."""
    if isinstance(value, cst.Call):
        return value
    if not isinstance(value, cst.Name):
        return None
    target = facts.meta.binding(value)
    assign_target = facts.meta.parent(target) if target is not None else None
    assign = facts.meta.parent(assign_target) if assign_target is not None else None
    if (
        isinstance(target, cst.Name)
        and isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.value, cst.Call)
    ):
        facts.instance_names[assign.value] = target
        return assign.value
    return None


def _class_of(creation: cst.Call | None, facts: _Files) -> cst.ClassDef | None:
    if creation is None or not isinstance(creation.func, cst.Name):
        return None
    bound = facts.meta.binding(creation.func)
    return bound if isinstance(bound, cst.ClassDef) else None


def _plan_subscribe(
    call: cst.Call,
    facts: _Files,
    classes: dict[cst.ClassDef, tuple[Client, str] | None],
    plan: Plan,
    family_sites: dict[cst.ClassDef, list[tuple[int, Plan]]],
) -> None:
    index = find_arg(call.args, "listener", LISTENER_POSITION)
    if index is None:
        return
    value = call.args[index].value
    if isinstance(value, cst.Name) and value.value == "None":
        return
    meta = facts.meta
    creation = _creation(value, facts)
    cls = _class_of(creation, facts)
    kind = classes.get(cls) if cls is not None else None
    if kind is not None:
        client = kind[0]
    elif len(facts.clients) == 1 and cls is None:
        client = facts.clients[0]  # a listener from elsewhere: the runtime takes legacy ones too
    else:
        plan.refuse(meta.line(call), "cannot tell which Kafka client this subscribe() belongs to")
        return
    reason = _why_not_splittable(call, index, creation, cls, meta)
    if reason is not None:
        plan.refuse(meta.line(call), reason)
        if cls is not None:
            facts.pinned[cls] = meta.line(call)
        return
    site = Plan()
    line = meta.parent(meta.parent(call) or call)
    assert isinstance(line, cst.SimpleStatementLine)
    scope = meta.scope(facts.module)
    setter = guard_name(
        scope, facts.index.names, client.guard_module, "set_rebalance_listener", site
    )
    site.edit(line, lambda node: _split_subscribe(node, setter))
    site.sites += 1
    facts.registered_values.add(id(value))
    if creation is not None:
        assert isinstance(call.func, cst.Attribute)
        facts.registrations[creation] = Registration(code(call.func.value), site)
    if cls is not None and kind is not None and kind[1] == "legacy":
        family_sites.setdefault(cls, []).append((meta.line(call), site))
    else:
        plan.merge(site)


def _why_not_splittable(
    call: cst.Call, index: int, creation: cst.Call | None, cls: cst.ClassDef | None, meta: Meta
) -> str | None:
    expr = meta.parent(call)
    line = meta.parent(expr) if expr is not None else None
    if not (isinstance(expr, cst.Expr) and isinstance(line, cst.SimpleStatementLine)):
        return "subscribe(listener=...) is used as a value; split it by hand"
    if len(line.body) != 1:
        return "subscribe(listener=...) shares its line with other statements"
    assert isinstance(call.func, cst.Attribute)
    if not is_dotted(call.func.value):
        return "the consumer is not a plain name, so it cannot be named twice"
    if has_star_args(call.args):
        return "subscribe() takes *args or **kwargs; the listener cannot be located safely"
    listener = call.args[index].value
    others = [arg.value for i, arg in enumerate(call.args) if i != index]
    creation_pure = (
        creation is listener
        and cls is not None
        and _init_only_stores(cls)
        and all(is_pure(a.value) for a in creation.args)
    )
    if not (all(is_pure(v) for v in others) or is_pure(listener) or creation_pure):
        return "registering the listener first would change the order its arguments are evaluated"
    return None


def _init_only_stores(cls: cst.ClassDef) -> bool:
    """Whether creating ``cls`` runs nothing but ``self.x = <pure>`` (so it can move earlier)."""
    init = _methods(cls).get("__init__")
    if init is None:
        return True
    body = init.body.body if isinstance(init.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
                continue
            if not (
                isinstance(small, cst.Assign)
                and all(isinstance(t.target, cst.Attribute) for t in small.targets)
                and is_pure(small.value)
            ):
                return False
    return True


def _split_subscribe(node: cst.CSTNode, setter: str) -> Replacement:
    """``c.subscribe(t, listener=l)`` -> ``set_rebalance_listener(c, l)`` + ``c.subscribe(t)``."""
    assert isinstance(node, cst.SimpleStatementLine)
    expr = node.body[0]
    assert isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)
    call = expr.value
    assert isinstance(call.func, cst.Attribute)
    index = find_arg(call.args, "listener", LISTENER_POSITION)
    assert index is not None
    register = cst.Call(
        func=cst.Name(setter),
        args=[
            cst.Arg(
                call.func.value.deep_clone(),
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
            ),
            cst.Arg(call.args[index].value),
        ],
    )
    first = cst.SimpleStatementLine(body=[cst.Expr(register)], leading_lines=node.leading_lines)
    second = node.with_changes(
        leading_lines=(),
        body=[expr.with_changes(value=call.with_changes(args=drop_arg(call.args, index)))],
    )
    return cst.FlattenSentinel([first, second])


def _collect_registered(facts: _Files) -> None:
    """Instances already passed to ``set_rebalance_listener`` count as registered."""
    wanted = {f"{c.guard_module}.set_rebalance_listener" for c in facts.clients}
    for call in facts.index.calls:
        if len(call.args) == 2 and facts.meta.qualnames(call.func) & wanted:
            creation = _creation(call.args[1].value, facts)
            facts.registered_values.add(id(call.args[1].value))
            if creation is not None:
                facts.registrations[creation] = Registration(code(call.args[0].value), Plan())


def _methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {stmt.name.value: stmt for stmt in cls.body.body if isinstance(stmt, cst.FunctionDef)}


def _plan_class(cls: cst.ClassDef, client: Client, facts: _Files, plan: Plan) -> str | None:
    """Stage the migration of one legacy listener class in ``plan``; return why not, if not."""
    meta = facts.meta
    if len(cls.bases) != 1 or cls.keywords:
        return "other base classes or a metaclass; the codemod cannot rebase it safely"
    if cls in facts.pinned:
        return f"its subscribe() at line {facts.pinned[cls]} cannot be migrated"
    methods = _methods(cls)
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
    reason = _plan_injection(cls, client, methods, creations, views, facts, plan)
    if reason is not None:
        return reason
    base = cls.bases[0]
    listener_name = guard_name(
        scope, facts.index.names, client.guard_module, "RebalanceListener", plan
    )
    plan.edit(base, lambda node: node.with_changes(value=cst.Name(listener_name)))
    plan.unused_import_nodes.append(base.value)
    protocol = guard_name(scope, facts.index.names, client.guard_module, "RebalanceConsumer", plan)
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


def _creations(cls: cst.ClassDef, facts: _Files) -> tuple[list[cst.Call], str | None]:
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


def _instance_escapes(creation: cst.Call, facts: _Files) -> str | None:
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


def _self_attr(node: cst.CSTNode, self_name: str) -> str | None:
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == self_name
    ):
        return node.attr.value
    return None


def _first_param(fn: cst.FunctionDef) -> str:
    return fn.params.params[0].name.value if fn.params.params else ""


def _plan_injection(
    cls: cst.ClassDef,
    client: Client,
    methods: dict[str, cst.FunctionDef],
    creations: list[cst.Call],
    views: dict[cst.FunctionDef, str],
    facts: _Files,
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
        self_name = _first_param(fn)
        for node in _attributes_in(fn):
            stored = _self_attr(node, self_name)
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
    plan.edit(init.body, lambda node, stmt=attr[1]: drop_statement(node, stmt))  # type: ignore[misc]
    plan.edit(init, _drop_if_empty)
    for creation in creations:
        plan.edit(creation, lambda node, n=param.name.value, p=position: _drop_call_arg(node, n, p))  # type: ignore[misc]
    return None


def _injected_param(
    init: cst.FunctionDef, creations: list[cst.Call], facts: _Files
) -> tuple[cst.Param, int] | str | None:
    """The ``__init__`` parameter that always receives the registering consumer, if one does."""
    params = init.params
    if params.star_arg != cst.MaybeSentinel.DEFAULT or params.star_kwarg or params.posonly_params:
        return None
    for position, param in enumerate(params.params[1:]):
        matches = []
        for creation in creations:
            index = find_arg(creation.args, param.name.value, position)
            receiver = facts.registrations[creation].receiver
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
    self_name = _first_param(init)
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
            attr = _self_attr(assign.targets[0].target, self_name)
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


def _attributes_in(node: cst.CSTNode) -> list[cst.Attribute]:
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
    facts: _Files,
) -> int | None:
    """First line using the injected consumer outside the callbacks, or None."""
    meta = facts.meta
    if attr is None:
        return meta.line(init)
    refs = meta.references(param.name, param.name.value)
    if refs is None or len(refs) != 1:
        return meta.line(init)
    inside = {id(node) for fn in views for node in _attributes_in(fn)}
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
