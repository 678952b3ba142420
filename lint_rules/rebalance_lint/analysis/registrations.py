"""Where callbacks are registered, and what the registered expressions refer to.

Sites: ``consumer.subscribe(topics, listener=...)`` (kafka-python, aiokafka; positional
third argument too), ``consumer.subscribe(topics, on_assign=..., on_revoke=..., on_lost=...)``
(confluent; positional too), and ``rebalance_guard.<client>.set_rebalance_listener(consumer, l)``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rebalance_lint.analysis.clients import (
    GUARD_MODULE,
    Client,
    client_listener_base,
    guard_member,
    takes_callbacks,
)
from rebalance_lint.analysis.collect import Facts, FunctionNode, Scope, _enter_function
from rebalance_lint.analysis.consumers import Consumers
from rebalance_lint.analysis.dataflow import (
    bound_value,
    expanded,
    local_instance,
    parameter_arguments,
)
from rebalance_lint.analysis.imports import ImportMap
from rebalance_lint.analysis.listeners import Hierarchy
from rebalance_lint.analysis.model import (
    ROLE_KINDS,
    MethodCall,
    Registration,
    dotted,
    is_static,
    signature,
)

_CONFLUENT_POSITIONAL = ("on_assign", "on_revoke", "on_lost")
#: How many variables and helper parameters a registered callback is followed through.
_MAX_FLOW = 3


@dataclass(frozen=True)
class FunctionTarget:
    """A registered function: the def or lambda, and how it is bound."""

    func: FunctionNode | ast.Lambda
    bound: int  # leading positionals bound by functools.partial
    is_method: bool
    expr: ast.expr  # the registered expression (a partial(...) call when bound)


def find_sites(
    facts: Facts, consumers: Consumers, hierarchy: Hierarchy
) -> tuple[list[Registration], list[MethodCall], list[MethodCall]]:
    """Registration sites, and ``x.pause(...)`` / ``x.subscribe(...)`` on dotted receivers."""
    registrations: list[Registration] = []
    pauses: list[MethodCall] = []
    subscribes: list[MethodCall] = []
    imports = facts.imports
    only_client = _only_listener_client(facts)
    confluent_imported = facts.imports.imports_package("confluent_kafka") or any(
        facts.imports.imports_package(f"rebalance_guard.{GUARD_MODULE[c]}")
        for c in ("confluent", "confluent_aio")
    )
    for recorded, scope in facts.calls:
        call = expanded(recorded, scope, facts)
        func = call.func
        classes = hierarchy.ancestry(scope.cls) if scope.cls is not None else []
        if isinstance(func, ast.Attribute) and func.attr == "pause":
            receiver = dotted(func.value)
            if receiver is not None:
                pauses.append(MethodCall(call, scope, receiver))
            continue
        qualname = imports.resolve(func)
        setter = guard_member(qualname, "set_rebalance_listener") if qualname else None
        guard_subscribe = guard_member(qualname, "subscribe") if qualname else None
        if setter is not None:
            site = _guard_site(call, scope, setter, listener_index=1)
        elif guard_subscribe is not None:  # rebalance_guard.confluent_kafka.subscribe(c, t, l)
            site = _guard_site(call, scope, guard_subscribe, listener_index=2)
        elif isinstance(func, ast.Attribute) and func.attr == "subscribe":
            known, client = consumers.client_of(func.value, scope, classes)
            receiver = dotted(func.value)
            if receiver is not None:
                subscribes.append(MethodCall(call, scope, receiver))
            if not known and local_instance(func.value, scope, facts) is not None:
                site = None  # a class of this file, not a consumer: a proxy is followed inside
            elif consumers.is_client_helper(func.value, scope, classes):
                site = None  # the client's own internals: SubscriptionState.subscribe(listener=)
            else:
                site = _subscribe_site(call, scope, client if known else None, known, only_client)
            if site is not None and not (known and client) and site.client == "confluent":
                arities = _callback_arities(site, facts, hierarchy)
                if arities and all(n == 1 for n in arities) and not known:
                    site = None  # a framework's own subscribe(on_assign=...): not confluent's
                elif not confluent_imported and 2 not in arities:
                    site = None  # no confluent_kafka import, no (consumer, partitions) callback
        else:
            site = None
        if site is not None:
            site.bare_base = _bare_client_base(site.roles.get("listener"), imports)
            registrations.append(site)
    return registrations, pauses, subscribes


def _bare_client_base(listener: ast.expr | None, imports: ImportMap) -> bool:
    """``ConsumerRebalanceListener()``: a client's own listener base, created with nothing."""
    if not (isinstance(listener, ast.Call) and not listener.args and not listener.keywords):
        return False
    qualname = imports.resolve(listener.func)
    return qualname is not None and client_listener_base(qualname) is not None


def _only_listener_client(facts: Facts) -> Client | bool | None:
    """The one listener-taking client the file imports; False when it imports none."""
    candidates: tuple[tuple[Client, str], ...] = (
        ("kafka_python", "kafka"),
        ("aiokafka", "aiokafka"),
    )
    imported = [client for client, top in candidates if facts.imports.imports_package(top)]
    if not imported:
        return False
    return imported[0] if len(imported) == 1 else None


def _guard_site(
    call: ast.Call, scope: Scope, client: Client, listener_index: int
) -> Registration | None:
    keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    consumer = call.args[0] if call.args else keywords.get("consumer")
    listener = (
        call.args[listener_index] if len(call.args) > listener_index else keywords.get("listener")
    )
    if listener is None:
        return None
    return Registration(
        call=call,
        scope=scope,
        client=client,
        receiver=dotted(consumer) if consumer is not None else None,
        roles={"listener": listener},
        anchor=listener,
        guard=True,
    )


def _subscribe_site(
    call: ast.Call, scope: Scope, client: Client | None, known: bool, only: Client | bool | None
) -> Registration | None:
    roles: dict[str, ast.expr] = {}
    anchor: ast.AST | None = None
    for kw in call.keywords:
        if isinstance(kw.value, ast.Constant) and kw.value.value is None:
            continue  # on_lost=None registers no role (confluent raises on it: KRB113)
        if kw.arg in ROLE_KINDS or kw.arg == "listener":
            roles[kw.arg] = kw.value
            anchor = anchor or kw
    confluent_roles = any(role in ROLE_KINDS for role in roles)
    if confluent_roles:
        if client is not None and not takes_callbacks(client):
            return None
        client = client or "confluent"
    elif takes_callbacks(client) and "listener" in roles:
        return None  # not confluent's signature: not a Kafka subscribe we understand
    elif client is None and ("listener" in roles or len(call.args) >= 3):
        if only is False or not (known or "listener" in roles):
            return None  # a subscribe() of something else (pub/sub, RxPY, ...)
        client = only if isinstance(only, str) else None
    if takes_callbacks(client):
        for role, arg in zip(_CONFLUENT_POSITIONAL, call.args[1:], strict=False):
            roles.setdefault(role, arg)
            anchor = anchor or arg
    elif len(call.args) >= 3 and client is not None:
        roles.setdefault("listener", call.args[2])
        anchor = anchor or call.args[2]
    if not roles or anchor is None:
        return None
    return Registration(call, scope, client, dotted(call.func.value), roles, anchor, False)  # type: ignore[attr-defined]


def _callback_arities(site: Registration, facts: Facts, hierarchy: Hierarchy) -> list[int]:
    """Per callback of a guessed-confluent site that resolves to a def or lambda of the file:
    1 when it takes only one argument (a framework's ``on_assign(partitions)``), 2 when it
    takes confluent's ``(consumer, partitions)``, 0 otherwise."""
    arities: list[int] = []
    for role, expr in site.roles.items():
        if role == "listener":
            continue
        target = resolve_function(expr, site.scope, facts, hierarchy)
        if target is not None:
            drop = target.bound + (1 if target.is_method and not is_static(target.func) else 0)
            sig = signature(target.func, drop)
            arities.append(2 if sig.accepts(2) else 1 if sig.accepts(1) else 0)
    return arities


def resolve_function(
    expr: ast.expr, scope: Scope, facts: Facts, hierarchy: Hierarchy, _depth: int = 0
) -> FunctionTarget | None:
    """The def or lambda a registered callback expression refers to, if visible in the file.

    Followed through data flow: a variable holding a lambda or a partial, and a parameter of
    the enclosing helper (what its callers in this file pass).
    """
    registered = expr
    expr, bound = unwrap_partial(expr, facts.imports)
    if isinstance(expr, ast.Lambda):
        return FunctionTarget(expr, bound, False, registered)
    if isinstance(expr, ast.Name):
        func = scope.lookup_function(expr.id)
        if func is not None:
            return FunctionTarget(func, bound, False, registered)
        if _depth >= _MAX_FLOW or bound:
            return None
        value = bound_value(expr.id, scope, facts)
        if isinstance(value, ast.Lambda | ast.Call):
            found = resolve_function(value, scope, facts, hierarchy, _depth + 1)
            if found is not None:
                return FunctionTarget(found.func, found.bound, found.is_method, registered)
        for passed, where in parameter_arguments(scope, expr.id, facts):
            if isinstance(passed, ast.Lambda) and passed not in facts.scope_of:
                _enter_function(passed, where, facts)  # on a line the collector skipped
            found = resolve_function(passed, where, facts, hierarchy, _depth + 1)
            if found is not None:
                return found
        return None
    if (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and scope.cls is not None
        and expr.value.id == scope.self_name
    ):
        method = hierarchy.methods(scope.cls).get(expr.attr)
        return FunctionTarget(method, bound, True, registered) if method is not None else None
    return None


def unwrap_partial(expr: ast.expr, imports: ImportMap) -> tuple[ast.expr, int]:
    """(the function, how many leading positionals it binds) for ``functools.partial(f, ...)``."""
    bound = 0
    while (
        isinstance(expr, ast.Call)
        and expr.args
        and imports.resolve(expr.func) == "functools.partial"
    ):
        bound += len(expr.args) - 1
        expr = expr.args[0]
    return expr, bound


def resolve_listener(
    expr: ast.expr, scope: Scope, facts: Facts
) -> tuple[ast.ClassDef | None, ast.Call | None]:
    """(class defined in this file, the instantiating call) for a registered listener."""
    if isinstance(expr, ast.Name) and scope.cls is not None and expr.id == scope.self_name:
        return scope.cls, None  # listener=self: the consumer wrapper is its own listener
    if isinstance(expr, ast.Name):
        for target, value, where in reversed(facts.bindings):
            if (
                isinstance(target, ast.Name)
                and target.id == expr.id
                and isinstance(value, ast.Call)
                and where.encloses(scope)
            ):
                expr = value
                break
    elif (  # listener=self._listener, set in a method of the same class: self._listener = L(self)
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and expr.value.id == scope.self_name
        and scope.cls is not None
    ):
        for target, value, where in reversed(facts.bindings):
            if (
                isinstance(target, ast.Attribute)
                and target.attr == expr.attr
                and isinstance(target.value, ast.Name)
                and target.value.id == where.self_name
                and where.cls is scope.cls
                and isinstance(value, ast.Call)
            ):
                expr = value
                scope = where
                break
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return scope.lookup_class(expr.func.id), expr
    if isinstance(expr, ast.Call):  # self.Listener(...): a class nested in the owner's class
        func = expr.func
        nested = None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == scope.self_name
            and scope.cls is not None
        ):
            nested = next(
                (c for c in scope.cls.body if isinstance(c, ast.ClassDef) and c.name == func.attr),
                None,
            )
        return nested, expr
    return None, None
