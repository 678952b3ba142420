"""Registrations: what each site registers, as listeners and callbacks carrying the site."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS

from rebalance_lint.analysis.clients import client_listener_base, takes_callbacks
from rebalance_lint.analysis.collect import positional_params
from rebalance_lint.analysis.listeners import BaseInfo
from rebalance_lint.analysis.migration_expressions import find_arg
from rebalance_lint.analysis.model import ROLE_KINDS, Callback, ListenerClass, Registration, dotted
from rebalance_lint.analysis.passes.draft import Draft, add_kind, stored_params
from rebalance_lint.analysis.program import Unit
from rebalance_lint.analysis.registrations import (
    FunctionTarget,
    resolve_function,
    resolve_listener,
    unwrap_partial,
)

#: confluent's subscribe(topics, on_assign, on_revoke, on_lost): on_lost's argument index
_ON_LOST_POSITION = 1 + list(SUBSCRIBE_CALLBACKS).index("on_lost")
_FALLTHROUGH_CONFLUENT = " (no on_lost= given: confluent delivers lost partitions to on_revoke)"


def register(draft: Draft, reg: Registration, caller: Unit | None = None) -> bool:
    """Attach a site to what it registers; False if something registered is not visible.

    ``caller`` is the unit of the site's file when it is another file (repository mode):
    then only the roles naming this file's definitions are attached.
    """
    resolved = True
    for role, expr in reg.roles.items():
        if role == "listener":
            resolved &= _register_listener(draft, reg, expr, caller)
        else:
            target = _function_target(draft, expr, reg, caller)
            if target is None:
                resolved = False
                continue
            label = f"the {role}= lambda" if isinstance(target.func, ast.Lambda) else None
            callback = _function_callback(draft, target, reg, label)
            add_kind(callback, ROLE_KINDS[role], "")
    if takes_callbacks(reg.client) and "on_revoke" in reg.roles and not _names_on_lost(reg.call):
        target = _function_target(draft, reg.roles["on_revoke"], reg, caller)
        if target is not None:
            add_kind(draft.callbacks[target.func], "lost", _FALLTHROUGH_CONFLUENT, "confluent")
    return resolved


def _names_on_lost(call: ast.Call) -> bool:
    """Whether the call passes on_lost at all: ``on_lost=None`` registers no role, but then
    subscribe() raises TypeError (KRB113) and no revocation ever runs on loss."""
    return find_arg(call, "on_lost", _ON_LOST_POSITION) is not None


def _function_target(
    draft: Draft, expr: ast.expr, reg: Registration, caller: Unit | None
) -> FunctionTarget | None:
    if caller is None:
        return resolve_function(expr, reg.scope, draft.facts, draft.hierarchy)
    function, bound = unwrap_partial(expr, caller.facts.imports)
    found = caller.function(reg.scope, function)
    if found is None or found[0] is not draft.unit:
        return None
    return FunctionTarget(found[1], bound, False, expr)


def _register_listener(
    draft: Draft, reg: Registration, expr: ast.expr, caller: Unit | None
) -> bool:
    cls, instantiation = resolve_listener(expr, reg.scope, (caller or draft.unit).facts)
    if caller is not None:
        found = caller.klass(reg.scope, instantiation.func if instantiation else expr)
        cls = found[1] if found is not None and found[0] is draft.unit else None
    elif cls is None:
        # A bare client base instance has no callbacks to check: resolved, nothing to do.
        func = expr.func if isinstance(expr, ast.Call) else expr
        qualname = draft.facts.imports.resolve(func)
        return bool(qualname and client_listener_base(qualname))
    if cls is None:
        return False
    info = draft.hierarchy.info(cls) or BaseInfo(
        reg.client, "guard" if reg.guard else "legacy", False, False
    )
    if reg.client is None and info.client_base and not takes_callbacks(info.client):
        reg.client = info.client  # a file importing both clients: the listener's base tells
    listener = draft.listener(cls, info)
    listener.sites.append(reg)
    if instantiation is not None:
        _injection_evidence(draft, listener, instantiation, reg, caller or draft.unit)
    elif isinstance(expr, ast.Name) and expr.id == reg.scope.self_name:
        draft.self_sites.append((listener, reg, expr))
    return True


def _injection_evidence(
    draft: Draft, listener: ListenerClass, call: ast.Call, reg: Registration, caller: Unit
) -> None:
    """``L(consumer)``: mark the attribute; ``L(self)`` from an owner: remember its class."""
    init = listener.methods.get("__init__")
    if init is None:
        return
    params = [a.arg for a in positional_params(init)[1:]]
    passed: dict[str, ast.expr] = {
        params[i]: arg for i, arg in enumerate(call.args) if i < len(params)
    }
    passed.update({kw.arg: kw.value for kw in call.keywords if kw.arg})
    for attr, param in stored_params(init, draft.facts):
        arg = passed.get(param)
        if arg is None:
            continue
        if reg.receiver is not None and dotted(arg) == reg.receiver:
            draft.consumers.mark_attr(listener.node, attr)
            continue
        owner = caller.instance_class(arg, reg.scope)  # Listener(self), Listener(worker)
        if owner is not None:
            draft.unit.owners[(listener.node, attr)] = owner


def _function_callback(
    draft: Draft, target: FunctionTarget, reg: Registration, label: str | None
) -> Callback:
    func = target.func
    callback, _ = draft.callback(
        func,
        api="confluent",
        client=reg.client,
        label=label or f"{getattr(func, 'name', 'lambda')}()",
        bound=target.bound,
        is_method=target.is_method,
    )
    callback.partials.setdefault(target.bound, target.expr)
    callback.sites.append(reg)
    return callback
