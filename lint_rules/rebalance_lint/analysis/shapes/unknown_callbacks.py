"""Shape: callbacks the planner cannot see the definition of: imported, attributes of other
objects, container items, calls, or ``on_assign=`` variables assigned from something other
than a lambda or a def's name (:mod:`.lambdas`, :mod:`.callback_variables`). A refusal
naming the next step (define or pass the function directly)."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def _not_a_def(keyword: str, value: ast.expr, facts: FileFacts) -> str:
    """Why a registered callback is not a function, lambda or partial of this file, and the
    next step."""
    fix = (
        f"define it with def {keyword}(consumer, partitions) next to the subscribe() and "
        "pass its name, then run migrate again"
    )
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    if isinstance(bound, ast.Import | ast.ImportFrom):
        return (
            f"{keyword}= is imported ({ast.unparse(value)}); the codemod migrates callbacks "
            f"defined in the file that registers them: {fix}"
        )
    if isinstance(bound, ast.arg):
        owner = next(
            (
                f
                for f in facts.bindings.ancestors(value)
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                and any(a is bound for a in ast.walk(f.args))
            ),
            None,
        )
        where = (
            "a lambda"
            if not isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef)
            else (f"{owner.name}()")
        )
        return (
            f"{keyword}= is {bound.arg}, a parameter of {where}: the callback is whatever its "
            "callers pass, which this subscribe() cannot be rewritten for; call subscribe() "
            "where the callbacks are defined (or take a listener there) first"
        )
    if isinstance(bound, ast.Name) and isinstance(facts.parent(bound), ast.Assign):
        return (
            f"{keyword}= is the variable {bound.id}, assigned at line {bound.lineno} from "
            "something other than a lambda or a def's name; pass that function, lambda or "
            "functools.partial(...) to subscribe() directly first"
        )
    return (
        f"{keyword}= is not a function, lambda or functools.partial defined in this file "
        f"(imported, an attribute, a container item, a call); {fix}"
    )


SHAPE = Shape(
    name="callbacks defined elsewhere",
    planner="confluent",
    recognises=("a registered value no other confluent shape resolves"),
    plan=("refusal"),
    fixtures=("tests/codemods/test_refusals.py",),
)
