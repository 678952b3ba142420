"""Shape: lambda callbacks (``on_assign=lambda c, p: reset(c, p, flag)``, also one assigned
to a name first and used nowhere else).

A lambda becomes a method whose body is its expression, fully annotated, in the class with
the functions, or without any just before the ``subscribe()`` statement (or in place of the
lambda's assignment): the same function scope, so the names it closes over mean the same. A
lambda registered next to bound methods of the consumer's owner becomes a method of the owner
instead (:mod:`.owner_lambdas`)."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import _ASSIGNS, _UNASSIGNS, _Callback
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def _lambda_callback(
    keyword: str, value: ast.Lambda, variable: ast.Name | None, client: ClientFacts
) -> _Callback | str:
    if client.async_callbacks:
        return (
            f"{keyword}= is a lambda, and AIOConsumer awaits what its callbacks return (a "
            f"lambda cannot await); define it with async def {keyword}(consumer, partitions) "
            "next to the subscribe() and pass its name, then run migrate again"
        )
    return _Callback(keyword, value, variable=variable)


def _lambda_tail(callback: _Callback, facts: FileFacts) -> str:
    """What a lambda's body becomes: "" itself, "drop" (a final unassign) or the loop
    variable of a seek loop (a final assign: checked by ``_check_callback``)."""
    function = callback.function
    body = function.body if isinstance(function, ast.Lambda) else None
    if not (
        isinstance(body, ast.Call)
        and isinstance(body.func, ast.Attribute)
        and isinstance(body.func.value, ast.Name)
        and body.func.value.id == function.args.args[0].arg
    ):
        return ""
    if body.func.attr in _UNASSIGNS:
        return "drop"
    if body.func.attr in _ASSIGNS:
        return "partition" if function.args.args[1].arg != "partition" else "tp"
    return ""


def resolve(
    keyword: str, value: ast.expr, client: ClientFacts, facts: FileFacts
) -> _Callback | str | None:
    """A lambda registered directly, or through a name bound only by ``name = lambda ...``;
    None when ``value`` is neither."""
    if isinstance(value, ast.Lambda):
        return _lambda_callback(keyword, value, None, client)
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    assignment = facts.parent(bound) if isinstance(bound, ast.Name) else None
    if (
        isinstance(bound, ast.Name)
        and isinstance(assignment, ast.Assign)
        and assignment.targets == [bound]
        and isinstance(assignment.value, ast.Lambda)
    ):
        return _lambda_callback(keyword, assignment.value, bound, client)
    return None


SHAPE = Shape(
    name="lambdas",
    planner="confluent",
    recognises=("a Lambda registered directly, or a name bound once by name = lambda ..."),
    plan=("gather (LambdaMethod) + resubscribe"),
    fixtures=(
        "tests/codemods/test_confluent_lambda_partial.py",
        "tests/codemods/fixtures/lambda_closures.py",
        "tests/codemods/fixtures/refused_lambda_partial_shapes.py",
    ),
)
