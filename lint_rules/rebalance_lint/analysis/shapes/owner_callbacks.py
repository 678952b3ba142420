"""Shape: bound methods of the class that owns the consumer (``on_assign=self._on_assign``,
name-mangled ``self.__on_assign``, another object's ``handler.on_assign`` with ``handler =
Owner(...)``): REAL_WORLD.md's most common confluent shape.

The owner itself becomes the listener: the listener base is appended to its bases, the
methods are renamed to ``on_partitions_*`` with the view as their consumer parameter, and
``subscribe(consumer, topics, self)``; a method something else also calls keeps its name and
signature, as a wrapper calling the listener method."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS
from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import (
    Function,
    _Callback,
    _consumer_param,
    _drop_annotation_import,
    _guard_names,
)
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_expressions import find_arg
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class, stored_once
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.callback_takes_view import (
    _check_callback,
    _plan_callback,
    _view_call_ok,
)
from rebalance_lint.analysis.shapes.inherited_owner_callbacks import defining_ancestor
from rebalance_lint.analysis.shapes.owner_assigns_itself import plan_owner_assigns
from rebalance_lint.analysis.shapes.owner_bases import why_not_a_listener
from rebalance_lint.analysis.shapes.owner_helper_methods import plan_owner_helpers
from rebalance_lint.analysis.shapes.owner_lambdas import (
    check_lambdas,
    disguised_method,
    plan_owner_lambdas,
    stage_owner_lambdas,
)
from rebalance_lint.analysis.shapes.owner_stored_consumer import (
    plan_stored_calls,
    registered_attr,
    stored_consumer_calls,
)
from rebalance_lint.analysis.shapes.owner_two_roles import check_second_roles, plan_aliases
from rebalance_lint.analysis.shapes.role_named_callbacks import named_for_their_role
from rebalance_lint.analysis.shapes.static_owner_callbacks import (
    _static_through_class,
    is_static_callback,
)


@dataclass
class _OwnerSites:
    """Registrations of one owner class's own methods (``on_assign=self._on_assign``)."""

    client: ClientFacts
    roles: dict[str, str]  # on_assign... -> method name
    calls: list[tuple[ast.Call, str]] = field(default_factory=list)  # (call, self name there)
    lambdas: dict[str, ast.Lambda] = field(default_factory=dict)  # on_assign... -> its lambda
    aliases: dict[str, str] = field(default_factory=dict)  # a second role -> its method name


def _collect_owner_site(
    call: ast.Call,
    present: list[tuple[str, ast.expr]],
    client: ClientFacts,
    facts: FileFacts,
    owners: dict[ast.ClassDef, list[_OwnerSites]],
) -> str | None:
    """Check a registration of ``self.<method>`` callbacks; planned per owner class later."""
    roles: dict[str, str] = {}
    aliases: dict[str, str] = {}  # a method in a second role (owner_two_roles)
    lambdas: dict[str, ast.Lambda] = {}  # each becomes a method of the owner (owner_lambdas)
    receivers: list[ast.Name] = []
    owner: ast.ClassDef | None = None
    self_name = ""
    for keyword, value in present:
        if isinstance(value, ast.Lambda) and disguised_method(value, facts) is None:
            lambdas[keyword] = value
            continue
        found = _owner_method(value, facts)
        if found is None:
            return (
                f"{keyword}= is not a method of the class that makes this call, reached "
                "through its self; register a method of this class or a function defined "
                "here instead"
            )
        cls, self_name, name = found
        attribute = disguised_method(value, facts) or value
        assert isinstance(attribute, ast.Attribute)
        if isinstance(attribute.value, ast.Name):  # else self._handler: no lambda is its method
            receivers.append(attribute.value)
        if owner is not None and cls is not owner:
            return (
                "the callbacks are methods of different classes; register methods of the "
                "class that subscribes (one may call the other object's), then run migrate "
                "again"
            )
        owner = cls
        if keyword == "on_lost" and name in (roles.get("on_revoke"), aliases.get("on_revoke")):
            continue  # on_lost=self._on_revoke: on_partitions_lost's default
        if name in roles.values():
            aliases[keyword] = name
            continue
        roles[keyword] = name
    assert owner is not None  # the dispatch sends only lambdas to the lambdas shape
    reason = check_lambdas(lambdas, owner, receivers, client, facts)
    if reason is not None:
        return reason
    groups = owners.setdefault(owner, [])
    for group in groups:
        same = group.roles == roles and group.aliases == aliases
        if same and group.client is client and not lambdas | group.lambdas:
            group.calls.append((call, self_name))
            return None
    groups.append(_OwnerSites(client, roles, [(call, self_name)], lambdas, aliases))
    return None


def _owner_method(value: ast.expr, facts: FileFacts) -> tuple[ast.ClassDef, str, str] | None:
    """(owner class, the name its instance has at the call, method name) for ``self.<method>``
    in one of its methods, or ``vc.<method>`` with ``vc = Owner(...)`` bound once (REAL_WORLD.md:
    another object's bound methods registered, ``on_assign=handler.on_assign``); ``lambda c, p:
    self.<method>(c, p)`` is ``self.<method>`` (:func:`.owner_lambdas.disguised_method`)."""
    value = disguised_method(value, facts) or value
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute):
        held = _held_instance_class(value.value, facts)  # self._handler.on_assign
        if held is None:
            return None
        return (
            defining_ancestor(held, value.attr, facts) or held,
            ast.unparse(value.value),
            value.attr,
        )
    if not isinstance(value, ast.Attribute) or not isinstance(value.value, ast.Name):
        return None
    owner = self_class(value.value, facts) or _instance_class(value.value, facts)
    if owner is None:
        return _static_through_class(value, facts)
    inherited = defining_ancestor(owner, value.attr, facts)
    return inherited or owner, value.value.id, value.attr


def _held_instance_class(value: ast.Attribute, facts: FileFacts) -> ast.ClassDef | None:
    """The class of the file ``self.<attr>`` holds when the file stores it once, as
    ``self.<attr> = Cls(...)`` (:func:`.migration_facts.stored_once`; the held-out samples'
    ``self._rebalance_handler = RebalanceHandler(...)`` registered by its bound methods)."""
    creation = stored_once(value, facts)
    if creation is None or not isinstance(creation.func, ast.Name):
        return None
    cls = facts.bindings.binding(creation.func)
    return cls if isinstance(cls, ast.ClassDef) else None


def _instance_class(name: ast.Name, facts: FileFacts) -> ast.ClassDef | None:
    """The class of the file ``name`` holds when its one binding is ``name = Cls(...)``."""
    found = facts.sole_assignment(name)
    value = found[1] if found is not None else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return None
    cls = facts.bindings.binding(value.func)
    return cls if isinstance(cls, ast.ClassDef) else None


def _plan_owner(
    owner: ast.ClassDef,
    groups: list[_OwnerSites],
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> None:
    """Make ``owner`` its own listener, or refuse every one of its registrations."""
    site = MigrationPlan()
    reason = (
        "the class registers different sets of its methods as callbacks at different "
        "subscribe() calls; register one set everywhere first"
        if len(groups) != 1
        else _plan_owner_group(owner, groups[0], facts, taken, site)
    )
    if reason is None:
        plan.merge(site)
        return
    for group in groups:
        for call, _ in group.calls:
            plan.refuse(call.lineno, reason)


def _plan_owner_group(
    owner: ast.ClassDef,
    group: _OwnerSites,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> str | None:
    client = group.client
    methods = methods_of(owner)
    named = named_for_their_role(owner, group.roles)  # on_assign=self.on_partitions_assigned
    clash = sorted(set(CONFLUENT_CALLBACKS.values()) & _class_names_bound(owner) - named)
    if clash:
        return f"{owner.name} already defines {clash[0]}; it cannot become its own listener"
    reason = why_not_a_listener(owner, facts)  # shapes/owner_bases.py
    if reason is not None:
        return reason
    callbacks: list[_Callback] = []
    delegated: set[str] = set()
    used_elsewhere: dict[str, list[ast.AST]] = {}
    for keyword, name in group.roles.items():
        function = methods.get(name)
        if function is None:
            return (
                f"self.{name} is not defined in {owner.name} itself (inherited or assigned); "
                "define the callback in the class that registers it first"
            )
        registered = {span(v) for call, _ in group.calls for v in _callback_values(call, facts)}
        others: list[ast.AST] = [
            node for node in facts.index.attributes.get(name, []) if span(node) not in registered
        ]
        others += [
            fn
            for cls in facts.index.classes
            if cls is not owner
            for fn in methods_of(cls).values()
            if fn.name == name
        ]
        static = is_static_callback(function, owner, facts)
        callbacks.append(_Callback(keyword, function, method=not static, static=static))
        used_elsewhere[name] = others
        if others and name in named:
            return (
                f"{name} is also used at line {getattr(others[0], 'lineno', 0)} with "
                "confluent's (consumer, partitions), and already has its listener name, so "
                "no wrapper can keep it; give it another name first"
            )
        if others:
            if static:
                return (
                    f"{name} is a {'staticmethod' if function.decorator_list else 'function'} "
                    f"also used at line "
                    f"{getattr(others[0], 'lineno', 0)}; make it a plain method taking "
                    "(self, consumer, partitions) first"
                )
            delegated.add(name)
            reason = _delegation_blocked(function, getattr(others[0], "lineno", 0), facts)
            if reason is not None:
                return reason
    reason = check_second_roles(owner, callbacks, group.aliases, facts)  # owner_two_roles
    if reason is not None:
        return reason
    reason = plan_owner_lambdas(owner, group.lambdas, group.calls, client, facts, plan)
    if reason is not None:
        return reason
    for callback in callbacks:
        if callback.label in delegated:
            reason = _check_callback(callback, client, facts, plan, rewrite=False)
        else:
            reason = _plan_callback(callback, client, facts, plan)
        if reason is None:  # self.consumer.assign(partitions): the view's, where provable
            rewrite = callback.label not in delegated
            reason = plan_owner_assigns(callback, group.calls, owner, facts, plan, rewrite=rewrite)
        if reason is not None:
            return reason
    stored = registered_attr(group.calls)
    if stored is not None:  # self._consumer.commit() in a callback: the view's commit()
        ok = _view_call_ok(client, facts)
        for callback in callbacks:
            others = used_elsewhere[callback.label]
            found = stored_consumer_calls(callback, stored, others, owner, facts, ok)
            plan_stored_calls(found, callback, plan)
        plan_owner_helpers(owner, callbacks, stored, client, facts, plan)  # self._flush()
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    plan.edit(Edit("add_base", span(owner), value=listener))
    plan_aliases(owner, callbacks, group.aliases, plan)
    for callback in callbacks:
        target = span(callback.function)
        method = CONFLUENT_CALLBACKS[callback.keyword]
        plan.edit(
            Edit(
                "listener_method",
                target,
                value=method,
                annotation=protocol,
                extra="static" if callback.static else "",
            )
        )
        _drop_annotation_import(_consumer_param(callback), plan)
        if callback.label in delegated:
            async_ = isinstance(callback.function, ast.AsyncFunctionDef)
            plan.edit(Edit("keep_method", target, value=method, index=1 if async_ else 0))
    for call, self_name in group.calls:
        plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=self_name))
        plan.sites += 1
        plan.planned.add(span(call))
    stage_owner_lambdas(group.lambdas, protocol, facts, taken, plan)
    return None


def _class_names_bound(cls: ast.ClassDef) -> set[str]:
    """Names the class body binds (methods, attributes)."""
    names: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _callback_values(call: ast.Call, facts: FileFacts) -> list[ast.expr]:
    """The values registered at ``call`` (``self.m`` for ``lambda c, p: self.m(c, p)``)."""
    return [
        disguised_method(v, facts) or v
        for i, kw in enumerate(CONFLUENT_CALLBACKS)
        if (v := find_arg(call, kw, i + 1)) is not None
    ]


def _delegation_blocked(function: Function, line: int, facts: FileFacts) -> str | None:
    """Why a method also used elsewhere cannot be kept and called by the listener method."""
    consumer = function.args.args[1] if len(function.args.args) == 3 else None
    if consumer is not None and consumer.annotation is not None:
        return (
            f"{function.name} is also used at line {line} and its consumer parameter is "
            "annotated with the full consumer; drop the annotation or that use first"
        )
    return None


SHAPE = Shape(
    name="owner's bound methods",
    planner="confluent",
    recognises=(
        "callbacks given as attributes: self.<method> in a method of the owner class, or "
        "<name>.<method> with name = Owner(...) bound once"
    ),
    plan=("add_base + listener_method (+ keep_method) + resubscribe with the owner"),
    fixtures=(
        "tests/codemods/test_confluent_owner.py",
        "tests/codemods/test_owner_bases.py",
        "tests/codemods/fixtures/owner_aio_incremental.py",
        "tests/codemods/fixtures/owner_flush_on_revoke_and_lost.py",
        "tests/codemods/fixtures/owner_ignores_consumer_argument.py",
        "tests/codemods/fixtures/owner_mangled_positional.py",
        "tests/codemods/fixtures/refused_owner_shapes.py",
        "tests/codemods/test_owner_lambdas.py",
    ),
)
