"""Shape: a listener's callback methods called directly, with the old arity
(REAL_WORLD.md: tests and wrappers calling ``listener.on_partitions_assigned([tp])``,
``self.on_partitions_revoked(self.assignment())`` after a manual assign).

Migrated, the methods take the view as a second argument. Where a callback of the class
calls another of its own callbacks through ``self`` (``self.on_partitions_revoked(lost)`` in
``on_partitions_lost``), the view is in scope: the call passes it along, by the target's
parameter name (``self.on_partitions_revoked(lost, consumer=consumer)``). A wrapper that is
its own listener on ``self.<consumer>`` (:mod:`.own_consumer_wrappers`) calling its callback
from another method (``self.on_partitions_revoked(self._consumer.assignment())`` on shutdown)
passes that consumer (``consumer=self._consumer``): the callback's ``self._consumer`` became
that parameter, so it does what it did. A test in another module goes through the listener
test harness (:mod:`.harness_direct_calls`). A callback calling the base's own through
``super()`` (``return super().on_partitions_assigned(assigned)``, held_out_9 014) on a class
whose one base is the client's listener base (which becomes ``RebalanceListener``, whose
methods take the view positionally, or a migrated listener class of the file in a subclass's
order) passes the view as the second argument. Any other direct call (another object, a
nested function that may run after the view expired, a class whose consumer is injected) is
refused: it would raise a TypeError, and the listener bases never get a one-argument method
(the type checker would then accept the old arity).
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS

from rebalance_lint.analysis.clients import client_listener_base
from rebalance_lint.analysis.migration_facts import FileFacts, first_param, methods_of
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef
#: A call to pass the view along: (the call, the callback it calls, or None for the base's
#: through ``super()``, which takes it positionally; the callback calling it, or None for a
#: method of the class that is no callback: it passes the wrapper's own consumer)
Passing = tuple[ast.Call, Function | None, Function | None]


def direct_calls(cls: ast.ClassDef, facts: FileFacts) -> tuple[str | None, list[Passing]]:
    """Why ``cls`` cannot change arity (any ``.on_partitions_*`` attribute of the file,
    whatever object it is read from, is a direct use of a callback), unless each is one of
    its callbacks calling another through ``self``: then those calls, to pass the view."""
    passing: list[Passing] = []
    for attr in CALLBACKS:
        for node in facts.index.attributes.get(attr, []):
            found = _through_self(node, cls, facts) or _through_super(node, cls, facts)
            if found is None:
                return _why_not(attr, node), []
            passing.append(found)
    return None, passing


def outside_callbacks(call: ast.Call, own_attr: str | None) -> tuple[str, str | None]:
    """For ``self.<callback>(partitions)`` in a method that is no callback: (the consumer
    expression to pass, or None and why not). A wrapper that is its own listener on
    ``self.<attr>`` (:mod:`.own_consumer_wrappers`, whose callbacks' ``self.<attr>`` became
    the view) passes that very consumer: the callback then does what it did before."""
    assert isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
    if own_attr is not None:
        return f"{call.func.value.id}.{own_attr}", None
    return "", _why_not(call.func.attr, call.func)


def _why_not(attr: str, node: ast.Attribute) -> str:
    """The refusal for a direct call no view can be passed to, with why and the next step."""
    where = f"{attr} is called directly at line {node.lineno}, with one argument"
    receiver = ast.unparse(node.value)
    if receiver == "self":
        how = (
            "on self, outside a callback of this class, where no view exists to pass (only "
            "a wrapper that is its own listener on self.<consumer> passes that consumer)"
        )
    else:
        how = f"on {receiver}, which the codemod cannot tell from an instance of this class"
    return (
        f"{where} ({how}; migrated, its {attr} takes the view too, and in another module's "
        "test rebalance-guard migrate DIR drives it through the listener test harness); move "
        "that code into a helper method both call, or give the other object's method another "
        "name, first"
    )


def _through_self(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> Passing | None:
    """``self.<callback>(partitions)`` in a method of ``cls`` itself (not in a function nested
    in it), calling a callback ``cls`` defines: from a callback (the view is in scope), or from
    another method (REAL_WORLD.md's ``self.on_partitions_revoked(self.assignment())`` in a
    wrapper: :func:`outside_callbacks` decides)."""
    methods = methods_of(cls)
    call = facts.parent(node)
    target = methods.get(node.attr)
    caller = _caller(node, facts)
    if not (
        isinstance(call, ast.Call)
        and call.func is node
        and len(call.args) == 1
        and not isinstance(call.args[0], ast.Starred)
        and not call.keywords
        and target is not None
        and isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        and methods.get(caller.name) is caller
        and isinstance(node.value, ast.Name)
        and node.value.id == first_param(caller)
    ):
        return None
    return call, target, caller if caller.name in CALLBACKS else None


def _through_super(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> Passing | None:
    """``super().<callback>(partitions)`` in a callback of ``cls`` itself, ``cls`` having one
    base, the client's (not async) listener base: the call then gets the view appended."""
    call = facts.parent(node)
    caller = _caller(node, facts)
    if not (
        isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "super"
        and not node.value.args
        and not node.value.keywords
        and facts.bindings.binding(node.value.func) is None  # the builtin, not rebound
        and isinstance(call, ast.Call)
        and call.func is node
        and len(call.args) == 1
        and not isinstance(call.args[0], ast.Starred)
        and not call.keywords
        and isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        and caller.name in CALLBACKS
        and methods_of(cls).get(caller.name) is caller
        and len(cls.bases) == 1
        and not cls.keywords
    ):
        return None
    qualname = facts.imports.resolve(cls.bases[0])
    base = client_listener_base(qualname) if qualname else None
    if base is None or base[1]:
        return None
    return call, None, caller


def _caller(node: ast.AST, facts: FileFacts) -> ast.AST | None:
    """The innermost scope around ``node`` that may run later: a def, a lambda, a generator."""
    return next(
        (
            n
            for n in facts.bindings.ancestors(node)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.GeneratorExp)
        ),
        None,
    )


SHAPE = Shape(
    name="direct callback calls",
    planner="listeners",
    recognises=(
        "an attribute named on_partitions_assigned/revoked/lost anywhere in the file "
        "(FileIndex.attributes)"
    ),
    plan=(
        "set_keyword (the view, by the called method's parameter name) for a callback "
        "calling another of its class through self; append_arg (the view) for one calling the "
        "client base's through super(); else a refusal"
    ),
    fixtures=(
        "tests/codemods/test_refusals.py",
        "tests/codemods/test_direct_callback_calls.py",
        "tests/codemods/fixtures/wrapper_calls_its_callback.py",
    ),
)
