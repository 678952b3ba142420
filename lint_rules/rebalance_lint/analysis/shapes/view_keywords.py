"""The keyword-only view parameter that helper methods taking the callback's view get
(:mod:`.owner_method_takes_view`, :mod:`.owner_helper_methods`,
:mod:`.listener_helper_methods`): one way to write it, annotated where the method is."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef


def stage_view_keywords(
    names: dict[Function, str],
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
    *,
    required: bool = False,
) -> None:
    """Each method of ``names`` gets its keyword-only view parameter: ``name=None``
    (``RebalanceConsumer | None`` where the method is typed), or with ``required`` no default
    (``RebalanceConsumer``)."""
    protocol = ""
    for method, name in names.items():
        if typed(method) and not protocol:
            taken = facts.index.names
            protocol = guard_name(facts, taken, client.guard_module, "RebalanceConsumer", plan)
        annotation = ""
        if typed(method):
            annotation = protocol if required else f"{protocol} | None"
        extra = "required" if required else ""
        plan.edit(
            Edit("keyword_param", span(method), value=name, annotation=annotation, extra=extra)
        )


def typed(method: Function) -> bool:
    """Whether a type checker reads ``method`` as annotated (a new parameter then needs one)."""
    args = method.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return method.returns is not None or any(p.annotation is not None for p in params)


SHAPE = Shape(
    name="the view as a keyword parameter of helper methods",
    planner="shared",
    recognises="helper methods the three view-passing shapes rewrite",
    plan="keyword_param",
    fixtures=(
        "tests/codemods/test_owner_helper_methods.py",
        "tests/codemods/test_owner_method_takes_view.py",
        "tests/codemods/test_listener_helper_methods.py",
    ),
)
