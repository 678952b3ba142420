"""Assemble the :class:`Analysis`: listeners, callbacks, what reaches them, their consumers."""

from __future__ import annotations

import ast
from typing import Any

from rebalance_lint.analysis.clients import Client, client_listener_base, takes_callbacks
from rebalance_lint.analysis.collect import (
    Facts,
    FunctionNode,
    all_params,
    collect,
    positional_params,
)
from rebalance_lint.analysis.consumers import Consumers
from rebalance_lint.analysis.listeners import BaseInfo, Hierarchy
from rebalance_lint.analysis.model import (
    METHOD_KINDS,
    ROLE_KINDS,
    Analysis,
    Callback,
    ListenerClass,
    MethodCall,
    Origin,
    Registration,
    dotted,
)
from rebalance_lint.analysis.registrations import (
    FunctionTarget,
    find_sites,
    resolve_function,
    resolve_listener,
)
from rebalance_lint.analysis.walk import body_nodes

#: How far a callback's calls are followed into helpers (``self._commit()``).
MAX_HELPER_DEPTH = 3
_FALLTHROUGH_CLASS = " (no on_partitions_lost override: the base class calls on_partitions_revoked)"
_FALLTHROUGH_CONFLUENT = " (no on_lost= given: confluent delivers lost partitions to on_revoke)"


def analyse(tree: ast.Module, text: str) -> Analysis:
    """Build the shared analysis of one parsed file."""
    facts = collect(tree, text)
    consumers = Consumers(facts)
    hierarchy = Hierarchy(facts)
    registrations, pauses, subscribes = find_sites(facts, consumers, hierarchy)
    builder = _Builder(facts, consumers, hierarchy)
    for cls, _scope in facts.classes:
        info = hierarchy.info(cls)
        if info is not None:
            builder.listener(cls, info)
    unresolved = [reg for reg in registrations if not builder.register(reg)]
    builder.finish()

    def consumer_of(call: MethodCall) -> tuple[bool, Client | None]:
        classes = hierarchy.ancestry(call.scope.cls) if call.scope.cls is not None else []
        func = call.call.func
        if not isinstance(func, ast.Attribute):
            return False, None
        return consumers.client_of(func.value, call.scope, classes)

    return Analysis(
        text=text,
        imports=facts.imports,
        listeners=list(builder.listeners.values()),
        callbacks=list(builder.callbacks.values()),
        registrations=registrations,
        pauses=pauses,
        subscribes=subscribes,
        injected=builder.injected(),
        unresolved=unresolved,
        consumer_of=consumer_of,
    )


class _Builder:
    def __init__(self, facts: Facts, consumers: Consumers, hierarchy: Hierarchy) -> None:
        self.facts = facts
        self.consumers = consumers
        self.hierarchy = hierarchy
        self.listeners: dict[ast.ClassDef, ListenerClass] = {}
        self.callbacks: dict[ast.AST, Callback] = {}

    # -- listeners and registrations ------------------------------------------------
    def listener(self, cls: ast.ClassDef, info: BaseInfo) -> ListenerClass:
        if cls not in self.listeners:
            self.listeners[cls] = ListenerClass(
                node=cls,
                scope=self.hierarchy.scope_of(cls),
                client=info.client,
                api=info.api,
                client_base=info.client_base,
                lost_defaults_to_revoked=info.lost_defaults_to_revoked,
                methods=self.hierarchy.methods(cls),
            )
        return self.listeners[cls]

    def register(self, reg: Registration) -> bool:
        """Attach a site to what it registers; False if something registered is not visible."""
        resolved = True
        for role, expr in reg.roles.items():
            if role == "listener":
                resolved &= self._register_listener(reg, expr)
            else:
                target = resolve_function(expr, reg.scope, self.facts, self.hierarchy)
                if target is None:
                    resolved = False
                    continue
                label = f"the {role}= lambda" if isinstance(target.func, ast.Lambda) else None
                callback = self._function_callback(target, reg, label)
                self._add_kind(callback, ROLE_KINDS[role], "")
        if takes_callbacks(reg.client) and "on_revoke" in reg.roles and "on_lost" not in reg.roles:
            target = resolve_function(reg.roles["on_revoke"], reg.scope, self.facts, self.hierarchy)
            if target is not None:
                self._add_kind(self.callbacks[target.func], "lost", _FALLTHROUGH_CONFLUENT)
        return resolved

    def _register_listener(self, reg: Registration, expr: ast.expr) -> bool:
        cls, instantiation = resolve_listener(expr, reg.scope, self.facts)
        if cls is None:
            # A bare client base instance has no callbacks to check: resolved, nothing to do.
            func = expr.func if isinstance(expr, ast.Call) else expr
            qualname = self.facts.imports.resolve(func)
            return bool(qualname and client_listener_base(qualname))
        info = self.hierarchy.info(cls) or BaseInfo(
            reg.client, "guard" if reg.guard else "legacy", False, False
        )
        listener = self.listener(cls, info)
        listener.sites.append(reg)
        if instantiation is not None:
            self._injection_evidence(listener, instantiation, reg)
        return True

    def _injection_evidence(
        self, listener: ListenerClass, call: ast.Call, reg: Registration
    ) -> None:
        """``L(consumer)`` where ``consumer`` is the subscribing consumer: mark the attribute."""
        init = listener.methods.get("__init__")
        if init is None or reg.receiver is None:
            return
        params = [a.arg for a in positional_params(init)[1:]]
        passed = {
            params[i]
            for i, arg in enumerate(call.args)
            if i < len(params) and dotted(arg) == reg.receiver
        } | {kw.arg for kw in call.keywords if kw.arg and dotted(kw.value) == reg.receiver}
        for attr, param in _stored_params(init, self.facts):
            if param in passed:
                self.consumers.mark_attr(listener.node, attr)

    def _function_callback(
        self, target: FunctionTarget, reg: Registration, label: str | None
    ) -> Callback:
        func = target.func
        callback, _ = self._callback(
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

    def _callback(self, func: FunctionNode | ast.Lambda, **fields: Any) -> tuple[Callback, bool]:
        """The callback for ``func``, created with ``fields`` if new; (callback, created)."""
        existing = self.callbacks.get(func)
        if existing is not None:
            return existing, False
        callback = Callback(func=func, scope=self.facts.scope_of[func], **fields)
        self.callbacks[func] = callback
        return callback, True

    @staticmethod
    def _add_kind(callback: Callback, kind: str, via: str) -> None:
        if kind == "lost" and ("lost" not in callback.kinds or not via):
            callback.lost_via = via
        callback.kinds.add(kind)  # type: ignore[arg-type]

    # -- callbacks from listener classes, helpers, receivers -------------------------
    def finish(self) -> None:
        for listener in self.listeners.values():
            for name, kind in METHOD_KINDS.items():
                method = listener.methods.get(name)
                if method is None:
                    continue
                callback, _ = self._callback(
                    method,
                    api=listener.api,
                    client=listener.client,
                    label=f"{name}()",
                    owner=listener,
                    is_method=True,
                )
                callback.sites.extend(listener.sites)
                self._add_kind(callback, kind, "")
            revoked = listener.methods.get("on_partitions_revoked")
            if (
                listener.lost_defaults_to_revoked
                and revoked is not None
                and "on_partitions_lost" not in listener.methods
            ):
                self._add_kind(self.callbacks[revoked], "lost", _FALLTHROUGH_CLASS)
        self._follow_helpers()
        for callback in self.callbacks.values():
            callback.receivers = self._receivers(callback)

    def _follow_helpers(self) -> None:
        todo = list(self.callbacks.values())
        while todo:
            caller = todo.pop()
            if caller.depth >= MAX_HELPER_DEPTH or isinstance(caller.func, ast.Lambda):
                continue
            consumer_names = {caller.consumer_param()} | caller.passed_consumer
            for node in body_nodes(caller.func):
                if not isinstance(node, ast.Call):
                    continue
                found = self._callee(caller, node.func)
                if found is None:
                    continue
                func, is_method = found
                callee, new = self._callback(
                    func,
                    api=caller.api,
                    client=caller.client,
                    label=f"{func.name}()",
                    owner=caller.owner,
                    is_method=is_method,
                    helper=True,
                    depth=caller.depth + 1,
                    sites=caller.sites,
                )
                if new:
                    todo.append(callee)
                if callee.helper:
                    offset = 1 if is_method else 0
                    params = [a.arg for a in positional_params(func)[offset:]]
                    for i, arg in enumerate(node.args):
                        if (
                            i < len(params)
                            and isinstance(arg, ast.Name)
                            and arg.id in consumer_names
                        ):
                            callee.passed_consumer.add(params[i])
                for kind in sorted(caller.kinds):
                    if kind not in callee.kinds:
                        via = caller.lost_via if kind == "lost" and "lost" in caller.kinds else ""
                        self._add_kind(callee, kind, via or f" (called from {caller.label})")

    def _callee(self, caller: Callback, func: ast.expr) -> tuple[FunctionNode, bool] | None:
        if isinstance(func, ast.Name):
            found = caller.scope.lookup_function(func.id)
            return (found, False) if found is not None and found is not caller.func else None
        self_name = caller.scope.self_name
        cls = caller.scope.cls
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and self_name is not None
            and func.value.id == self_name
            and cls is not None
        ):
            found = self.hierarchy.methods(cls).get(func.attr)
            return (found, True) if found is not None and found is not caller.func else None
        return None

    def _receivers(self, callback: Callback) -> dict[str, Origin]:
        out: dict[str, Origin] = {}
        param = callback.consumer_param()
        for name in ({param} if param else set()) | callback.passed_consumer:
            out[name] = "param"
        own = {a.arg for a in all_params(callback.func)}
        for name in self.consumers.visible_names(callback.scope):
            if name not in own:
                out.setdefault(name, "injected")
        self_name = callback.scope.self_name
        cls = callback.scope.cls
        classes = self.hierarchy.ancestry(cls) if cls is not None else []
        if self_name is not None:
            for attr in self.consumers.class_attrs(classes):
                out.setdefault(f"{self_name}.{attr}" if attr else self_name, "injected")
        for site in callback.sites:
            receiver = site.receiver
            if receiver is None:
                continue
            head, _, rest = receiver.partition(".")
            if site.scope.self_name is not None and head == site.scope.self_name:
                if self_name is not None and site.scope.cls in classes and rest:
                    out.setdefault(f"{self_name}.{rest}", "injected")
            elif site.scope.encloses(callback.scope) and head not in own:
                out.setdefault(receiver, "injected")
        for node in body_nodes(callback.func):  # local aliases: c = self._consumer
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, source = node.targets[0], dotted(node.value)
                if isinstance(target, ast.Name) and source in out:
                    out.setdefault(target.id, out[source])
        return out

    def injected(self) -> list[tuple[ListenerClass, ast.arg]]:
        """Constructor parameters through which a legacy listener receives the consumer."""
        out: list[tuple[ListenerClass, ast.arg]] = []
        for listener in self.listeners.values():
            init = self.facts.methods.get(listener.node, {}).get("__init__")
            if listener.api != "legacy" or init is None:
                continue
            attrs = self.consumers.class_attrs([listener.node])
            stored = dict(_stored_params(init, self.facts))
            for arg in all_params(init)[1:]:
                attr = next((a for a, p in stored.items() if p == arg.arg), None)
                if attr is None:
                    continue
                if self.consumers.param_client(arg)[0] or attr in attrs:
                    out.append((listener, arg))
        return out


def _stored_params(init: FunctionNode, facts: Facts) -> list[tuple[str, str]]:
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
