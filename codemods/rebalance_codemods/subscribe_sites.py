"""KRB203 for kafka-python and aiokafka: ``c.subscribe(topics, listener=l)`` becomes
``set_rebalance_listener(c, l)`` followed by ``c.subscribe(topics)``.

Only a statement of its own on a plainly named consumer is split, and only when registering
the listener first cannot change the order in which the arguments' side effects happen.
"""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.clients import client_listener_base

from rebalance_codemods.clients import Client
from rebalance_codemods.listener_facts import (
    LISTENER_POSITION,
    FileFacts,
    class_of,
    creation_of,
    methods_of,
)
from rebalance_codemods.meta import Meta
from rebalance_codemods.names import guard_name
from rebalance_codemods.plan import Plan, Replacement
from rebalance_codemods.syntax import (
    code,
    drop_arg,
    find_arg,
    has_star_args,
    is_dotted,
    is_pure,
)


def plan_subscribe(
    call: cst.Call,
    facts: FileFacts,
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
    creation = creation_of(value, facts)
    cls = class_of(creation, facts)
    kind = classes.get(cls) if cls is not None else None
    if kind is not None:
        client = kind[0]
    elif cls is not None:
        plan.refuse(
            meta.line(call),
            f"listener class {cls.name.value} derives from no client listener base; "
            f"migrate it by hand",
        )
        return
    elif (resolved := _client_by_imports(call, creation, facts)) is not None:
        client = resolved  # a listener from elsewhere: the runtime takes legacy ones too
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
        scope,
        facts.index.names,
        facts.index.claimed,
        client.guard_module,
        "set_rebalance_listener",
        site,
    )
    site.edit(line, lambda node: _split_subscribe(node, setter))
    site.sites += 1
    facts.registered_values.add(id(value))
    if creation is not None:
        assert isinstance(call.func, cst.Attribute)
        facts.registrations[creation] = code(call.func.value)
    if cls is not None and kind is not None and kind[1] != "guard":
        family_sites.setdefault(cls, []).append((meta.line(call), site))
    else:
        plan.merge(site)


def _client_by_imports(
    call: cst.Call, creation: cst.Call | None, facts: FileFacts
) -> Client | None:
    """The client, from the imports: the only one imported, the listener's base class, or the
    class the consumer was created from (``c = aiokafka.AIOKafkaConsumer(...)``)."""
    if len(facts.clients) == 1:
        return facts.clients[0]
    by_lint_name = {client.lint_name: client for client in facts.clients}
    names: set[str] = set()
    if creation is not None:
        for name in facts.meta.qualnames(creation.func):
            found = client_listener_base(name)
            if found is not None and found[0] in by_lint_name:
                return by_lint_name[found[0]]
    assert isinstance(call.func, cst.Attribute)
    receiver = call.func.value
    made = creation_of(receiver, facts) if isinstance(receiver, cst.Name) else None
    if made is not None:
        names = facts.meta.qualnames(made.func)
    matches = {c for c in facts.clients for n in names if n.startswith(f"{c.package}.")}
    return matches.pop() if len(matches) == 1 else None


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
    init = methods_of(cls).get("__init__")
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


def collect_registered(facts: FileFacts) -> None:
    """Instances already passed to ``set_rebalance_listener`` count as registered."""
    wanted = {f"{c.guard_module}.set_rebalance_listener" for c in facts.clients}
    for call in facts.index.calls:
        if len(call.args) == 2 and facts.meta.qualnames(call.func) & wanted:
            creation = creation_of(call.args[1].value, facts)
            facts.registered_values.add(id(call.args[1].value))
            if creation is not None:
                facts.registrations[creation] = code(call.args[0].value)
