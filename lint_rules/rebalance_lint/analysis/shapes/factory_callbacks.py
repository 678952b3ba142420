"""Shape: a confluent callback made by a factory of this file (``on_assign=
self._pin_on_assign(group)``, or ``make_on_assign(start)``, whose body defines one nested
``def assigned(consumer, partitions)`` and returns it; held_out_7 012).

As for callbacks chosen at run time (:mod:`.chosen_callbacks`), the listener class goes just
before the ``subscribe()`` and takes the registered value in its ``__init__``
(``RebalanceCallbacks(self._pin_on_assign(group))``: the factory runs where it ran), and the
method calls it with the view; the nested def takes the view (:mod:`.passed_callbacks`: its
final assign rewritten, a consumer annotation the view's), and a factory's return annotation
becomes the callable the listener takes.

Sound where the factory does nothing but make the closure (its body: the nested def, then
``return`` of it) and is called only here, and the nested def is used only by that return."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function, _Callback
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.chosen_callbacks import own_statement, stage, view_callable
from rebalance_lint.analysis.shapes.passed_callbacks import check_passed, only_passed


def made_by_factory(value: ast.expr, facts: FileFacts) -> bool:
    """Whether ``value`` calls a def of this file (a function, or a method through ``self``)."""
    return _factory(value, facts) is not None


def _factory(value: ast.expr, facts: FileFacts) -> Function | None:
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Name):
        bound = facts.bindings.binding(func)
        return bound if isinstance(bound, ast.FunctionDef | ast.AsyncFunctionDef) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = self_class(func.value, facts)
        method = methods_of(owner).get(func.attr) if owner is not None else None
        return method if isinstance(method, ast.FunctionDef) else None
    return None


def plan_factory(
    call: ast.Call,
    present: list[tuple[str, ast.expr]],
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> str | None:
    """Stage the listener taking the made callbacks, or say why not."""
    statement = own_statement(call, facts)
    if isinstance(statement, str):
        return statement
    made: list[tuple[str, Function, ast.Name, Function]] = []
    for keyword, value in present:
        factory = _factory(value, facts)
        if factory is None:
            return (
                f"{keyword}= is not made by a factory of this file like the other callbacks "
                "of this subscribe(); register defs or factory calls alike first"
            )
        found = _made(keyword, factory, value, facts)
        if isinstance(found, str):
            return found
        made.append((keyword, factory, *found))
    for keyword, factory, returned, inner in made:
        callback = _Callback(keyword, inner)
        if not only_passed(callback, [returned], facts):
            return (
                f"{inner.name}, which {factory.name}() makes for {keyword}=, is used there "
                "other than by its return; use it only there first"
            )
        reason = check_passed(callback, client, facts, taken, plan, rewrite=True)
        if reason is not None:
            return reason
    signature = view_callable(client, facts, taken, plan)
    for _, factory, _, _ in made:
        if factory.returns is not None:  # -> Callable[[Consumer, ...], None]: the view's now
            plan.edit(Edit("replace_with_expression", span(factory.returns), value=signature))
    stage(call, statement, present, client, facts, taken, plan, signature)
    return None


def _made(
    keyword: str, factory: Function, value: ast.expr, facts: FileFacts
) -> tuple[ast.Name, Function] | str:
    """The ``return <name>`` and the nested def it returns, or why the factory is not one."""
    label = f"{keyword}= is made by {factory.name}()"
    body = factory.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # its docstring
    inner = body[0] if len(body) == 2 else None
    returned = body[1].value if len(body) == 2 and isinstance(body[1], ast.Return) else None
    if not (
        isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef)
        and isinstance(returned, ast.Name)
        and returned.id == inner.name
        and not inner.decorator_list
    ):
        return (
            f"{label}, which does more than define one def and return it; make it just that "
            "(or register a def of this file), then run migrate again"
        )
    callers = [
        node
        for node in ast.walk(facts.tree)
        if isinstance(node, ast.Name | ast.Attribute)
        and (node.id if isinstance(node, ast.Name) else node.attr) == factory.name
        and not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    ]
    if len(callers) != 1 or callers[0] is not getattr(value, "func", None):
        return (
            f"{label}, which is used elsewhere too, where the callback it makes would take "
            "the rebalance view; use it only at this subscribe() first"
        )
    return returned, inner


SHAPE = Shape(
    name="callbacks made by a factory",
    planner="confluent",
    recognises=(
        "on_assign=/on_revoke=/on_lost= a call of a def of this file (or a method through "
        "self) whose body defines one nested def and returns it"
    ),
    plan=(
        "forward_listener with bound (as chosen_callbacks) + resubscribe passing the factory "
        "call; the nested def takes the view; a return annotation becomes the view's callable"
    ),
    fixtures=(
        "tests/codemods/test_factory_callbacks.py",
        "tests/codemods/fixtures/factory_callbacks.py",
    ),
)
