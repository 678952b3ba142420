"""Assemble the :class:`Analysis`: listeners, callbacks, what reaches them, their consumers."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from rebalance_lint.analysis.clients import Client, client_listener_base, takes_callbacks
from rebalance_lint.analysis.collect import (
    Facts,
    FunctionNode,
    Scope,
    all_params,
    collect,
    positional_params,
)
from rebalance_lint.analysis.consumers import Consumers
from rebalance_lint.analysis.effects import Summaries, owner_path, receiver_path
from rebalance_lint.analysis.listeners import BaseInfo, Hierarchy
from rebalance_lint.analysis.model import (
    METHOD_KINDS,
    ROLE_KINDS,
    Analysis,
    Callback,
    IndirectInjection,
    ListenerClass,
    MethodCall,
    Origin,
    Registration,
    dotted,
)
from rebalance_lint.analysis.program import Unit
from rebalance_lint.analysis.registrations import (
    FunctionTarget,
    find_sites,
    resolve_function,
    resolve_listener,
    unwrap_partial,
)
from rebalance_lint.analysis.walk import body_nodes

#: How far a callback's calls are followed into helpers (``self._commit()``).
MAX_HELPER_DEPTH = 3
_FALLTHROUGH_CLASS = " (no on_partitions_lost override: the base class calls on_partitions_revoked)"
_FALLTHROUGH_CONFLUENT = " (no on_lost= given: confluent delivers lost partitions to on_revoke)"


def analyse(tree: ast.Module, text: str) -> Analysis:
    """Build the shared analysis of one parsed file."""
    prepared = prepare(tree, text)
    prepared.finish()
    return prepared.analysis()


def prepare(tree: ast.Module, text: str, path: str = "") -> Prepared:
    """The first phase: facts, listeners and this file's own registrations, not yet finished.

    Repository mode (:mod:`rebalance_lint.repository`) prepares every file, links the sites
    whose listener or callbacks live in another file, then finishes each one.
    """
    facts = collect(tree, text)
    consumers = Consumers(facts)
    hierarchy = Hierarchy(facts)
    unit = Unit(path, facts, consumers, hierarchy)
    registrations, pauses, subscribes = find_sites(facts, consumers, hierarchy)
    builder = Builder(unit)
    for cls, _scope in facts.classes:
        info = hierarchy.info(cls)
        if info is not None:
            builder.listener(cls, info)
    unresolved = [reg for reg in registrations if not builder.register(reg)]
    return Prepared(text, unit, builder, registrations, pauses, subscribes, unresolved)


@dataclass(eq=False)
class Prepared:
    """One file between :func:`prepare` and :meth:`analysis`."""

    text: str
    unit: Unit
    builder: Builder
    registrations: list[Registration]
    pauses: list[MethodCall]
    subscribes: list[MethodCall]
    unresolved: list[Registration]
    finished: bool = False

    def link(self, reg: Registration, caller: Unit) -> bool:
        """Attach a site of another file (``caller``) whose roles name this file's definitions."""
        return self.builder.register(reg, caller)

    def finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.builder.finish()

    def analysis(self, foreign_callbacks: list[Callback] | None = None) -> Analysis:
        unit = self.unit
        hierarchy, consumers = unit.hierarchy, unit.consumers

        def consumer_of(call: MethodCall) -> tuple[bool, Client | None]:
            classes = hierarchy.ancestry(call.scope.cls) if call.scope.cls is not None else []
            func = call.call.func
            if not isinstance(func, ast.Attribute):
                return False, None
            return consumers.client_of(func.value, call.scope, classes)

        return Analysis(
            text=self.text,
            imports=unit.facts.imports,
            listeners=list(self.builder.listeners.values()),
            callbacks=list(self.builder.callbacks.values()),
            registrations=self.registrations,
            pauses=self.pauses,
            subscribes=self.subscribes,
            injected=self.builder.injected(),
            unresolved=self.unresolved,
            consumer_of=consumer_of,
            indirect=self.builder.indirect(),
            foreign_callbacks=foreign_callbacks or [],
            path=unit.path,
            tree=unit.facts.module.node,  # type: ignore[arg-type]
        )


class Builder:
    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.facts = unit.facts
        self.consumers = unit.consumers
        self.hierarchy = unit.hierarchy
        self.listeners: dict[ast.ClassDef, ListenerClass] = {}
        self.callbacks: dict[ast.AST, Callback] = {}
        #: ``listener=self``: a consumer wrapper registered as its own listener
        self._self_sites: list[tuple[ListenerClass, Registration, ast.Name]] = []
        #: ``listener.attr = value`` after construction: class -> (attr, assignment target)
        self._set_after: dict[ast.ClassDef, list[tuple[str, ast.Attribute]]] = {}
        #: the same on listener classes of other files: (their builder, listener, target)
        self._remote_set_after: list[tuple[Builder, ListenerClass, ast.Attribute]] = []

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

    def register(self, reg: Registration, caller: Unit | None = None) -> bool:
        """Attach a site to what it registers; False if something registered is not visible.

        ``caller`` is the unit of the site's file when it is another file (repository mode):
        then only the roles naming this file's definitions are attached.
        """
        resolved = True
        for role, expr in reg.roles.items():
            if role == "listener":
                resolved &= self._register_listener(reg, expr, caller)
            else:
                target = self._function_target(expr, reg, caller)
                if target is None:
                    resolved = False
                    continue
                label = f"the {role}= lambda" if isinstance(target.func, ast.Lambda) else None
                callback = self._function_callback(target, reg, label)
                self._add_kind(callback, ROLE_KINDS[role], "")
        if takes_callbacks(reg.client) and "on_revoke" in reg.roles and "on_lost" not in reg.roles:
            target = self._function_target(reg.roles["on_revoke"], reg, caller)
            if target is not None:
                self._add_kind(self.callbacks[target.func], "lost", _FALLTHROUGH_CONFLUENT)
        return resolved

    def _function_target(
        self, expr: ast.expr, reg: Registration, caller: Unit | None
    ) -> FunctionTarget | None:
        if caller is None:
            return resolve_function(expr, reg.scope, self.facts, self.hierarchy)
        function, bound = unwrap_partial(expr, caller.facts.imports)
        found = caller.function(reg.scope, function)
        if found is None or found[0] is not self.unit:
            return None
        return FunctionTarget(found[1], bound, False, expr)

    def _register_listener(self, reg: Registration, expr: ast.expr, caller: Unit | None) -> bool:
        cls, instantiation = resolve_listener(expr, reg.scope, (caller or self.unit).facts)
        if caller is not None:
            found = caller.klass(reg.scope, instantiation.func if instantiation else expr)
            cls = found[1] if found is not None and found[0] is self.unit else None
        elif cls is None:
            # A bare client base instance has no callbacks to check: resolved, nothing to do.
            func = expr.func if isinstance(expr, ast.Call) else expr
            qualname = self.facts.imports.resolve(func)
            return bool(qualname and client_listener_base(qualname))
        if cls is None:
            return False
        info = self.hierarchy.info(cls) or BaseInfo(
            reg.client, "guard" if reg.guard else "legacy", False, False
        )
        listener = self.listener(cls, info)
        listener.sites.append(reg)
        if instantiation is not None:
            self._injection_evidence(listener, instantiation, reg, caller or self.unit)
        elif isinstance(expr, ast.Name) and expr.id == reg.scope.self_name:
            self._self_sites.append((listener, reg, expr))
        return True

    def _injection_evidence(
        self, listener: ListenerClass, call: ast.Call, reg: Registration, caller: Unit
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
        for attr, param in _stored_params(init, self.facts):
            arg = passed.get(param)
            if arg is None:
                continue
            if reg.receiver is not None and dotted(arg) == reg.receiver:
                self.consumers.mark_attr(listener.node, attr)
                continue
            owner = caller.instance_class(arg, reg.scope)  # Listener(self), Listener(worker)
            if owner is not None:
                self.unit.owners[(listener.node, attr)] = owner

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
        self._attributes_set_after_construction()
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
        summaries = Summaries(self.unit)
        for callback in self.callbacks.values():
            callback.effects = summaries.of_callback(callback)

    def _attributes_set_after_construction(self) -> None:
        """``listener.stream = stream`` on an instance of a listener class of this file."""
        for target, value, scope in self._attribute_sets():
            cls, _ = resolve_listener(target.value, scope, self.facts)
            if cls is not None and cls in self.listeners:
                self._set_after.setdefault(cls, []).append((target.attr, target))
                self._note_attribute(cls, target.attr, value, scope, self.unit)

    def attributes_set_on_other_files(self, builder_of: Callable[[Unit], Builder | None]) -> None:
        """Repository mode: ``listener.stream = stream`` on a listener class another file
        defines; its builder learns what the attribute holds, this file reports the site."""
        for target, value, scope in self._attribute_sets():
            cls, call = resolve_listener(target.value, scope, self.facts)
            if cls is not None or call is None:
                continue
            found = self.unit.klass(scope, call.func)
            other = (
                builder_of(found[0]) if found is not None and found[0] is not self.unit else None
            )
            if other is None or found is None or found[1] not in other.listeners:
                continue
            other._note_attribute(found[1], target.attr, value, scope, self.unit)
            self._remote_set_after.append((other, other.listeners[found[1]], target))

    def _attribute_sets(self) -> Iterator[tuple[ast.Attribute, ast.expr, Scope]]:
        for target, value, scope in self.facts.bindings:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id != scope.self_name
            ):
                yield target, value, scope

    def _note_attribute(
        self, cls: ast.ClassDef, attr: str, value: ast.expr, scope: Scope, where: Unit
    ) -> None:
        """What ``instance.attr = value`` (in ``where``) stores: a consumer, or an owner of one."""
        classes = where.hierarchy.ancestry(scope.cls) if scope.cls is not None else []
        if isinstance(value, ast.Call):  # listener.stream = Stream(consumer)
            if where.consumers.annotation_client(value.func) is not None:
                self.consumers.mark_attr(cls, attr)
                return
            owner = where.klass(scope, value.func)
        elif where.consumers.client_of(value, scope, classes)[0]:
            self.consumers.mark_attr(cls, attr)
            return
        else:
            owner = where.instance_class(value, scope)
        if owner is not None:
            self.unit.owners[(cls, attr)] = owner

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

    def indirect(self) -> list[IndirectInjection]:
        """Legacy listeners reaching a consumer through an owner, a later attribute, or ``self``."""
        out: list[IndirectInjection] = []
        direct = {(listener.node, arg.arg) for listener, arg in self.injected()}
        for listener in self.listeners.values():
            if listener.api != "legacy":
                continue
            callbacks = [cb for cb in self.callbacks.values() if cb.owner is listener]
            init = self.facts.methods.get(listener.node, {}).get("__init__")
            if init is not None:
                args = {a.arg: a for a in all_params(init)[1:]}
                for attr, param in _stored_params(init, self.facts):
                    path = _reached(callbacks, attr)
                    if path and param in args and (listener.node, param) not in direct:
                        out.append(
                            IndirectInjection(listener, "owner", args[param], param, path, "")
                        )
            for attr, target in self._set_after.get(listener.node, []):
                path = _reached(callbacks, attr)
                if path:
                    out.append(
                        IndirectInjection(
                            listener, "attribute", target, attr, path, f"line {target.lineno}"
                        )
                    )
        for other, listener, target in self._remote_set_after:
            callbacks = [cb for cb in other.callbacks.values() if cb.owner is listener]
            path = _reached(callbacks, target.attr)
            if listener.api == "legacy" and path:
                where = f"line {target.lineno}"
                out.append(
                    IndirectInjection(listener, "attribute", target, target.attr, path, where)
                )
        for listener in self.listeners.values():
            closure = _closure_consumer(listener, self.callbacks.values())
            if listener.api == "legacy" and closure is not None:
                function, name = closure
                out.append(
                    IndirectInjection(
                        listener, "closure", listener.node, name, name, f"{function}()"
                    )
                )
        for listener, _reg, node in self._self_sites:
            path = next(
                (
                    effect.receiver
                    for cb in self.callbacks.values()
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
