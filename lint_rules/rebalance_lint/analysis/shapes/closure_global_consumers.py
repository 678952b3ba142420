"""Shape: the registering consumer reached as a variable bound outside the class: a
closure's (a listener defined inside a method, capturing the consumer) or a module global.

When every instance of the class is registered on that very variable, its uses in the
callbacks become the view; otherwise they would keep driving the consumer itself. A closure
over a factory's parameter (``listener=self.make_listener(consumer)`` on ``consumer``, the
factory defining the class and called only there) is the registering consumer when the
argument is that same variable. A closure's variable must hold one consumer for as long as
the listener lives: bound once, not in a loop, not rebound by a nested ``nonlocal``."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import LISTENER_POSITION, _State
from rebalance_lint.analysis.migration_expressions import find_arg
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class
from rebalance_lint.analysis.model import IndirectInjection
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.view_uses import _view_use


def _plan_free_consumer(
    cls: ast.ClassDef,
    client: ClientFacts,
    closure: IndirectInjection | None,
    creations: list[ast.Call],
    views: dict[Function, str],
    state: _State,
    plan: MigrationPlan,
) -> str | None:
    """The registering consumer reached as a variable bound outside the class: a closure's
    (REAL_WORLD.md: a listener defined inside a method, capturing the consumer; ``closure``
    is what the model found) or a module global. When every instance of the class is
    registered on that very variable, its uses in the callbacks become the view; migrated
    otherwise, they would keep driving the consumer itself (KRB201, KRB105 unfixed)."""
    facts = state.facts
    receivers: dict[ast.AST, ast.AST] = {}  # a binding holding the consumer -> the receiver's
    for creation in creations:
        call = state.registration_calls.get(creation)
        receiver = (
            call.func.value if call is not None and isinstance(call.func, ast.Attribute) else None
        )
        binding = facts.bindings.binding(receiver) if isinstance(receiver, ast.Name) else None
        if binding is not None:
            assert call is not None
            receivers[binding] = binding
            for param in _factory_parameters(creation, call, binding, facts):
                receivers[param] = binding
    uses: list[tuple[ast.expr, str]] = []
    found_closure = False
    for fn in methods_of(cls).values():
        for node in ast.walk(fn):
            if not isinstance(node, ast.Name):
                continue
            binding = facts.bindings.binding(node)
            if binding is not None and cls in facts.bindings.ancestors(binding):
                continue  # a name the class binds itself
            is_closure = closure is not None and node.id == closure.param
            if is_closure:
                assert closure is not None
                why = _rebound(node, binding, closure, facts)
                if why is not None:
                    return _closure_reason(closure, why)
            if binding is None or binding not in receivers:
                if is_closure:
                    assert closure is not None
                    return _closure_reason(closure, "an instance is registered on another consumer")
                continue
            if len(set(receivers.values())) != 1 or len(creations) != len(
                [c for c in creations if c in state.registration_calls]
            ):
                return (
                    f"a callback uses the consumer {node.id} (line {node.lineno}), and the "
                    "instances are not all registered on it; register every instance on that "
                    "consumer, or use the callbacks' consumer argument instead, then run "
                    "migrate again"
                )
            found_closure = found_closure or is_closure
            view = views.get(fn)
            if view is None:
                return (
                    f"{fn.name}() uses the registering consumer {node.id} too (line "
                    f"{node.lineno}), which only the callbacks can replace with the view; "
                    "move that use into a callback or out of the class first"
                )
            reason = _view_use(node, client, facts)
            if reason is not None:
                return reason
            uses.append((node, view))
    if closure is not None and not found_closure:
        return _closure_reason(closure, "it is not the consumer the class is registered on")
    for node, view in uses:
        plan.edit(Edit("replace_with_name", span(node), value=view))
    return None


def _factory_parameters(
    creation: ast.Call, call: ast.Call, receiver: ast.AST, facts: FileFacts
) -> list[ast.arg]:
    """The parameters of the factory making ``creation`` given the receiver's variable
    itself at the registration ``call`` (``c.subscribe(t, listener=make_listener(c))``):
    ``creation`` is the factory's ``return Cls(...)`` (:mod:`.factory_listeners`), the
    listener argument calls that factory, and the argument for each parameter is the same
    variable the registration is made on, evaluated in the same statement."""
    value = find_arg(call, "listener", LISTENER_POSITION)
    factory = next(
        (a for a in facts.bindings.ancestors(creation) if isinstance(a, ast.FunctionDef)), None
    )
    last = factory.body[-1] if factory is not None else None
    returned = isinstance(last, ast.Return) and last.value is creation
    if factory is None or not returned or not isinstance(value, ast.Call):
        return []
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name != factory.name:
        return []
    params = [*factory.args.posonlyargs, *factory.args.args]
    if isinstance(func, ast.Attribute) and self_class(func.value, facts) is not None:
        params = params[1:]  # self.make_listener(consumer): the method's self is bound
    found: list[ast.arg] = []
    for param in [*params, *factory.args.kwonlyargs]:
        position = params.index(param) if param in params else None
        argument = find_arg(value, param.arg, position)
        if isinstance(argument, ast.Name) and facts.bindings.binding(argument) is receiver:
            found.append(param)
    return found


def _rebound(
    node: ast.Name, binding: ast.AST | None, closure: IndirectInjection, facts: FileFacts
) -> str | None:
    """Why the closure's variable ``node`` may hold another consumer by the time a callback
    runs: bound more than once, in a loop, or by a nested function's ``nonlocal``."""
    if binding is None:
        return f"{closure.where} binds {node.id} more than once"
    function: ast.AST | None = None
    for ancestor in facts.bindings.ancestors(binding):
        if isinstance(ancestor, ast.For | ast.AsyncFor | ast.While):
            return f"{node.id} is bound in a loop (line {ancestor.lineno}), once per iteration"
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            function = ancestor
            break
    for inner in ast.walk(function) if function is not None else ():
        if isinstance(inner, ast.Nonlocal) and node.id in inner.names:
            where = f"nonlocal, line {inner.lineno}"
            return f"a function nested in {closure.where} rebinds {node.id} ({where})"
    return None


def _closure_reason(found: IndirectInjection, why: str) -> str:
    return (
        f"its callbacks use {found.where}'s {found.path} through a closure and {why}, so the "
        "codemod cannot turn it into the view; derive from the rebalance_guard "
        "RebalanceListener by hand and use the consumer argument its callbacks then get"
    )


SHAPE = Shape(
    name="closure and global consumers",
    planner="listeners",
    recognises=(
        "a Name in a callback bound outside the class to the consumer an instance is "
        "registered on (IndirectInjection how='closure'), or to a parameter of the factory "
        "making the instance given that consumer at the registration"
    ),
    plan=("replace_with_name (the view)"),
    fixtures=(
        "tests/codemods/test_closure_listener.py",
        "tests/codemods/test_closure_factory.py",
        "tests/codemods/fixtures/closure_factory.py",
        "tests/codemods/fixtures/optional_aiokafka.py",
    ),
)
