"""Shape: a confluent callback registered through a variable naming a def of this file
(``cb = on_assign_handler; consumer.subscribe(topics, on_assign=cb)``).

The variable is only a second name for the function: where it is bound once, in the block
of the def (where the listener class goes), as a statement of its own, and read only as this
``subscribe()``'s argument, the def is migrated as if it were passed by its own name
(:mod:`.confluent_functions`, or kept and called when something else uses it:
:mod:`.shared_callbacks`) and the assignment goes with it (``gather``'s ``dropped``).
Otherwise the registration is refused, naming the variable and the next step.
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import _argument_of, _block_of, _Callback
from rebalance_lint.analysis.edits import Span, span
from rebalance_lint.analysis.migration_facts import FileFacts, statement_layout
from rebalance_lint.analysis.shape import Shape


def resolve(
    keyword: str, value: ast.expr, client: ClientFacts, facts: FileFacts
) -> _Callback | str | None:
    """``value`` a name bound by ``name = <a def of this file>``; None otherwise."""
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    assign = facts.parent(bound) if isinstance(bound, ast.Name) else None
    if not (
        isinstance(bound, ast.Name)
        and isinstance(assign, ast.Assign)
        and assign.targets == [bound]
        and isinstance(assign.value, ast.Name)
    ):
        return None
    function = facts.bindings.binding(assign.value)
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return _Callback(keyword, function, variable=bound)


def alias_value(callback: _Callback, facts: FileFacts) -> ast.expr | None:
    """The def's name read by the variable's assignment (``handler`` in ``cb = handler``),
    which is no use of its own: the assignment goes with the def."""
    if isinstance(callback.function, ast.Lambda) or callback.variable is None:
        return None
    assign = facts.parent(callback.variable)
    return assign.value if isinstance(assign, ast.Assign) else None


def dropped_aliases(
    callbacks: list[_Callback], call: ast.Call, anchor: ast.AST, facts: FileFacts
) -> tuple[Span, ...] | str:
    """The variables' assignments that go with the defs, or why one cannot."""
    spans: list[Span] = []
    for callback in callbacks:
        if alias_value(callback, facts) is None:
            continue
        variable = callback.variable
        assert variable is not None
        assign = facts.parent(variable)
        assert assign is not None
        refs = facts.bindings.references(variable, variable.id)
        line = variable.lineno
        if refs is None or not all(_argument_of(r, call, facts) for r in refs):
            return (
                f"{callback.keyword}= is the variable {variable.id} (line {line}), which is "
                f"bound again or used elsewhere too; pass {callback.label} to subscribe() "
                "directly first"
            )
        if _block_of(assign, facts) != _block_of(anchor, facts) or (
            statement_layout(assign, facts) != "own"
        ):
            return (
                f"{callback.keyword}= is the variable {variable.id} (line {line}), assigned "
                f"outside the block defining {callback.label} (where the listener class "
                f"goes) or not on a line of its own; pass {callback.label} to subscribe() "
                "directly first"
            )
        spans.append(span(assign))
    return tuple(spans)


SHAPE = Shape(
    name="callback variables naming a def",
    planner="confluent",
    recognises=(
        "on_assign=/on_revoke=/on_lost= naming a variable bound once by name = <a def of this file>"
    ),
    plan="gather with the variable's assignment in dropped + resubscribe",
    fixtures=(
        "tests/codemods/test_callback_variables.py",
        "tests/codemods/fixtures/callback_variable_def.py",
    ),
)
