"""Shape: functions registered as confluent callbacks, module-level or nested in ``run()``
or a factory (REAL_WORLD.md: a nested ``on_rebalance(consumer, partitions)``).

They are gathered into a listener class defined where they were (the same scope, so every
name in their bodies still means the same), at the first def; a callback used anywhere else
than at its registration is refused (moving it would break that use)."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import (
    _argument_of,
    _block_of,
    _Callback,
    _statement_of,
)
from rebalance_lint.analysis.migration_facts import FileFacts, statement_layout
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.callback_variables import alias_value


def _used_only_here(callback: _Callback, call: ast.Call, facts: FileFacts) -> str | None:
    """Why moving the callback into the listener would break another use of it."""
    function = callback.function
    if isinstance(function, ast.Lambda):
        if callback.variable is None:
            return None
        name = callback.variable.id
        refs = facts.bindings.references(callback.variable, name)
    else:
        name = function.name
        refs = facts.bindings.references(function, name)
        alias = alias_value(callback, facts)  # cb = handler: goes with the def
        refs = [r for r in refs if r is not alias] if refs is not None else None
    if refs is None or not all(
        _argument_of(r, call, facts) or _wrapped_by_argument(r, call, facts) for r in refs
    ):
        return (
            f"{name} is used elsewhere too; moving it into a listener class"
            " would break those uses; make them call a helper both use first"
        )
    return None


def _wrapped_by_argument(ref: ast.AST, call: ast.Call, facts: FileFacts) -> bool:
    """``ref`` is what a ``functools.partial(ref, ...)`` argument of ``call`` wraps."""
    partial = facts.parent(ref)
    return (
        isinstance(partial, ast.Call)
        and partial.args[:1] == [ref]
        and "functools.partial" in facts.qualnames(partial.func)
        and _argument_of(partial, call, facts)
    )


def _placement(
    call: ast.Call, callbacks: list[_Callback], facts: FileFacts
) -> tuple[ast.AST, int] | str:
    """Where the listener class goes (``gather``'s ``index``): at the first def (0), else
    just before the ``subscribe()`` statement (1) or in place of a lambda's assignment (2)."""
    defs = [cb.function for cb in callbacks if not isinstance(cb.function, ast.Lambda)]
    assignments = [facts.parent(cb.variable) for cb in callbacks if cb.variable is not None]
    anchor: ast.AST
    if defs:
        anchor = defs[0]
        if any(_block_of(f, facts) != _block_of(anchor, facts) for f in defs):
            return "the callbacks are defined in different blocks; define them together first"
    else:
        statement = assignments[0] if assignments else _statement_of(call, facts)
        if (
            statement is None
            or isinstance(facts.parent(statement), ast.ClassDef)
            or statement_layout(statement, facts) != "own"
        ):
            return (
                "the lambda's subscribe() (or assignment) is not a statement of its own in a "
                "function or module body, so the listener class has no place next to it; "
                "put it on a line of its own there first"
            )
        anchor = statement
    scope = facts.bindings.scope_at.get(anchor)
    for callback in callbacks:
        assignment = facts.parent(callback.variable) if callback.variable else None
        if isinstance(callback.function, ast.Lambda) and (
            facts.bindings.scope_at.get(callback.function) is not scope
            or (
                assignment is not None
                and (
                    _block_of(assignment, facts) != _block_of(anchor, facts)
                    or statement_layout(assignment, facts) != "own"
                )
            )
        ):
            return (
                f"{callback.label} is not defined next to the other callbacks (another "
                "block or function), where the listener class goes; define them in one place "
                f"first (the lambda as def {callback.keyword}(consumer, partitions) next to the "
                "others, or the others next to the subscribe())"
            )
    return anchor, 0 if defs else 2 if assignments else 1


def resolve(
    keyword: str, value: ast.expr, client: ClientFacts, facts: FileFacts
) -> _Callback | str | None:
    """A name bound to a def of this file (module-level or nested); None otherwise."""
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    if isinstance(bound, ast.FunctionDef | ast.AsyncFunctionDef):
        return _Callback(keyword, bound)
    return None


SHAPE = Shape(
    name="functions (module-level or nested)",
    planner="confluent",
    recognises=(
        "on_assign=/on_revoke=/on_lost= naming a def of this file (Bindings.binding is a "
        "FunctionDef)"
    ),
    plan=("gather (a RebalanceListener class at the first def) + resubscribe"),
    fixtures=(
        "tests/codemods/test_confluent.py",
        "tests/codemods/test_confluent_aio.py",
        "tests/codemods/fixtures/partial_in_a_worker.py",
    ),
)
