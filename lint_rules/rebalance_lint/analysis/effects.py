"""Effect summaries: what a function does to a consumer, directly or through calls.

For a callback the summary lists every consumer method it calls (commit, poll, pause...),
every loop over a consumer, every blocking call (``time.sleep``, sync HTTP) and every place
the consumer the client passed it is stored (an attribute, a container), and follows
its calls on other objects: an owner of the consumer held in an attribute
(``self.worker.flush()``, ``self.runner.consumer.pause()``), and in repository mode the
functions it imports from other files. Inside a followed function, calls on ``self`` and
on this file's module functions are followed too, up to :data:`MAX_EFFECT_DEPTH` calls
deep. Helpers on the callback's own class and in its own file are callbacks of their own
(:mod:`rebalance_lint.analysis.passes.helpers`), so a callback's summary does not repeat theirs.

Each summary of a followed function is computed once per (function, consumer arguments)
and reused by every callback that reaches it.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from rebalance_lint.analysis.collect import FunctionNode, Scope, positional_params
from rebalance_lint.analysis.model import (
    Callback,
    Effect,
    Hop,
    Origin,
    consumerish,
    dotted,
)
from rebalance_lint.analysis.program import EffectKey as _Key
from rebalance_lint.analysis.program import Unit
from rebalance_lint.analysis.walk import body_nodes

#: How many calls deep a callback's effects are followed through other objects' methods.
MAX_EFFECT_DEPTH = 3

_HTTP_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request")
#: Fully qualified functions that block the calling thread for I/O or time (KRB108).
BLOCKING_FUNCTIONS = frozenset(
    {"time.sleep", "urllib.request.urlopen", "socket.create_connection"}
    | {f"{lib}.{verb}" for lib in ("requests", "httpx") for verb in _HTTP_VERBS}
    | {f"subprocess.{f}" for f in ("run", "call", "check_call", "check_output")}
)


def receiver_path(expr: ast.expr) -> str | None:
    """``self.runner.consumer``, or ``self._thread._ensure_consumer()`` for a getter call."""
    path = dotted(expr)
    if path is not None:
        return path
    if (
        isinstance(expr, ast.Call)
        and not expr.args
        and not expr.keywords
        and isinstance(expr.func, ast.Attribute)
        and consumerish(expr.func.attr)
    ):
        inner = dotted(expr.func)
        return f"{inner}()" if inner is not None else None
    return None


def owner_path(path: str, self_name: str | None) -> bool:
    """A consumer reached through an object on ``self``: ``self.runner.consumer``."""
    if self_name is None:
        return False
    parts = path.split(".")
    return len(parts) >= 3 and parts[0] == self_name and consumerish(parts[-1].rstrip("()"))


class Summaries:
    """Effect summaries for the callbacks of one unit, memoised across its callbacks and, in
    repository mode, across every file of the repository (``Program.effect_memo``)."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self._memo: dict[_Key, list[Effect]] = (
            unit.program.effect_memo if unit.program is not None else {}
        )
        self._active: set[_Key] = set()

    def of_callback(self, callback: Callback) -> list[Effect]:
        """The callback's effects; also sets its ``helper_calls`` (calls into its helpers)."""
        assert self.unit.facts.scope_of.get(callback.func) is callback.scope
        callback.helper_calls = helper_calls(self.unit, callback)
        effects = self._body(
            self.unit, callback.func, callback.scope, dict(callback.receivers), 0, local=False
        )
        return [replace(e, path="") if e.path == self.unit.path else e for e in effects]

    # -- one body ---------------------------------------------------------------------
    def _body(
        self,
        unit: Unit,
        func: FunctionNode | ast.Lambda,
        scope: Scope,
        receivers: dict[str, Origin],
        depth: int,
        local: bool,
    ) -> list[Effect]:
        """Effects of ``func``'s body; ``local``: also follow ``self.m()`` and module functions."""
        out: list[Effect] = []
        nodes = list(body_nodes(func))
        statements = {id(n.value) for n in nodes if isinstance(n, ast.Expr)}
        path = "" if depth == 0 else unit.path

        def origin(expr: ast.expr) -> Origin | None:
            expr = _given_or_stored(expr, receivers)
            found = receiver_path(expr)
            if found is None:
                return None
            if found in receivers:
                return receivers[found]
            return "injected" if owner_path(found, scope.self_name) else None

        for node in nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                stored = receiver_path(node.value)
                if stored is not None and receivers.get(stored) == "param":
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        how = _stored_how(target)
                        if how is not None:
                            out.append(Effect("store", how, node, stored, "param", path=path))
                continue
            if isinstance(node, ast.For | ast.AsyncFor):
                how = origin(node.iter)
                if how is not None:
                    out.append(
                        Effect("iterate", "iterating", node.iter, receiver_path(node.iter) or "",
                               how, path=path)
                    )  # fmt: skip
                continue
            if not isinstance(node, ast.Call):
                continue
            target = node.func
            if isinstance(target, ast.Attribute):
                how = origin(target.value)
                if how is not None:
                    receiver = receiver_path(_given_or_stored(target.value, receivers))
                    out.append(
                        Effect("call", target.attr, node, receiver or "", how,
                               dropped=id(node) in statements, path=path)
                    )  # fmt: skip
                    continue
            qualname = unit.facts.imports.resolve(target)
            if qualname in BLOCKING_FUNCTIONS:
                out.append(Effect("blocking", qualname, node, "", "injected", path=path))
                continue
            if depth < MAX_EFFECT_DEPTH:
                out.extend(self._through(unit, node, scope, receivers, depth, local))
        return out

    # -- following calls ------------------------------------------------------------
    def _through(
        self,
        unit: Unit,
        call: ast.Call,
        scope: Scope,
        receivers: dict[str, Origin],
        depth: int,
        local: bool,
    ) -> list[Effect]:
        found = self._callee(unit, call.func, scope, local)
        if found is None:
            return []
        callee_unit, callee, is_method = found
        offset = 1 if is_method else 0
        params = [a.arg for a in positional_params(callee)[offset:]]
        given: dict[str, Origin] = {}
        for i, arg in enumerate(call.args):
            path = receiver_path(arg)
            if i < len(params) and path is not None and path in receivers:
                given[params[i]] = receivers[path]
        for kw in call.keywords:
            path = receiver_path(kw.value)
            if kw.arg and path is not None and path in receivers:
                given[kw.arg] = receivers[path]
        effects = self._summary(callee_unit, callee, given, depth + 1)
        hop = Hop(call, _call_text(call))
        return [replace(e, via=(hop, *e.via)) for e in effects]

    def _callee(
        self, unit: Unit, func: ast.expr, scope: Scope, local: bool
    ) -> tuple[Unit, FunctionNode, bool] | None:
        """The function a call runs: a method of an owner object, or an imported function."""
        if isinstance(func, ast.Name):
            if local or scope.lookup_function(func.id) is None:
                found = unit.function(scope, func)
                if found is not None and (local or found[0] is not unit):
                    return found[0], found[1], False
            return None
        path = dotted(func)
        if path is None or "." not in path:
            return None
        parts = path.split(".")
        if parts[0] == scope.self_name and scope.cls is not None:
            owner_unit, cls = unit, scope.cls
        else:  # offset_manager.commit_offsets(): a name holding an instance of a known class
            head = func
            while isinstance(head, ast.Attribute):
                head = head.value
            instance = unit.instance_class(head, scope)
            if instance is None:
                return None
            owner_unit, cls = instance
        for attr in parts[1:-1]:  # self.a.b.method(): the class of self.a, then of .b
            owner = owner_unit.owner_class(cls, attr)
            if owner is None:
                return None
            owner_unit, cls = owner
        if len(parts) == 2 and parts[0] == scope.self_name and not local:
            return None  # self.method(): a helper callback of its own
        method = owner_unit.hierarchy.methods(cls).get(parts[-1])
        return (owner_unit, method, True) if method is not None else None

    def _summary(
        self, unit: Unit, func: FunctionNode, given: dict[str, Origin], depth: int
    ) -> list[Effect]:
        key: _Key = (id(func), frozenset(given.items()), depth)
        if key in self._memo:
            return self._memo[key]
        if key in self._active:
            return []  # recursion
        self._active.add(key)
        scope = unit.facts.scope_of[func]
        receivers: dict[str, Origin] = {}
        own = {a.arg for a in positional_params(func)}
        for name in unit.consumers.visible_names(scope):
            if name not in own or consumerish(name):
                receivers[name] = "injected"
        if scope.cls is not None and scope.self_name is not None:
            attrs = unit.consumers.class_attrs(unit.hierarchy.ancestry(scope.cls))
            for attr in attrs:
                receivers[f"{scope.self_name}.{attr}" if attr else scope.self_name] = "injected"
        receivers.update(given)
        effects = self._body(unit, func, scope, receivers, depth, local=True)
        self._active.discard(key)
        self._memo[key] = effects
        return effects


def helper_calls(unit: Unit, callback: Callback) -> list[tuple[Hop, FunctionNode]]:
    """The calls in ``callback``'s body that run a helper of its own file, as the helpers pass
    (:mod:`rebalance_lint.analysis.passes.helpers`) resolves them: a function the name
    resolves to in scope, or a method of the callback's class called on ``self``."""
    func = callback.func
    if isinstance(func, ast.Lambda):
        return []  # lambdas' calls are not followed into helpers
    scope = callback.scope
    methods = unit.hierarchy.methods(scope.cls) if scope.cls is not None else {}
    out: list[tuple[Hop, FunctionNode]] = []
    for node in body_nodes(func):
        if not isinstance(node, ast.Call):
            continue
        target = node.func
        found: FunctionNode | None = None
        if isinstance(target, ast.Name):
            found = scope.lookup_function(target.id)
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and scope.self_name is not None
            and target.value.id == scope.self_name
        ):
            found = methods.get(target.attr)
        if found is not None and found is not func:
            out.append((Hop(node, _call_text(node)), found))
    return out


def _given_or_stored(expr: ast.expr, receivers: dict[str, Origin]) -> ast.expr:
    """``(self.consumer if consumer is None else consumer)`` (an owner's method taking the view,
    :mod:`.shapes.owner_method_takes_view`): the ``consumer`` parameter where the caller gave
    one (the view), else the stored consumer; any other expression as it is."""
    if not isinstance(expr, ast.IfExp):
        return expr
    test, given = expr.test, expr.orelse
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(given, ast.Name)
        and given.id == test.left.id
    ):
        return given if given.id in receivers else expr.body
    return expr


def _stored_how(target: ast.expr) -> str | None:
    """How an assignment keeps what it stores beyond the call: an attribute or a container."""
    if isinstance(target, ast.Attribute):
        return f"stored in attribute .{target.attr}"
    if isinstance(target, ast.Subscript):
        return "stored in a container"
    return None


def _call_text(call: ast.Call) -> str:
    name = dotted(call.func)
    return f"{name}()" if name is not None else "a call"
