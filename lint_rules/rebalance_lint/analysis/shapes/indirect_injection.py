"""Shape: a migrated listener whose callbacks still reach a consumer through an owner
(REAL_WORLD.md's indirect injection: ``self.runner.consumer.pause(...)``), or that was also
handed a consumer it keeps: the class migrates, the site says what is left by hand."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.edits import MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.model import Analysis, IndirectInjection
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.owner_method_takes_view import plan_owner_methods


def _private_read(found: IndirectInjection) -> str | None:
    """The first private attribute (``_coordinator``) the class's code reads on ``found.path``:
    the view offers only the consumer's public methods, so passing it along cannot serve it."""
    for node in ast.walk(found.listener.node):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and ast.unparse(node.value) == found.path
        ):
            return node.attr
    return None


def _indirect_reason(found: IndirectInjection, step: str) -> str:
    """Why a migrated class still reaches a consumer of its own, and what to do about it
    (``step``: the next step the owner's-methods shape gives, or its general one)."""
    private = _private_read(found)
    if private is not None:  # REAL_WORLD.md: self._thread._ensure_consumer()._coordinator
        return (
            f"listener class {found.listener.node.name} is migrated, but its callbacks still "
            f"reach a consumer through {found.path} and read its private {private}, which the "
            "view does not offer; read it outside the callbacks (in the poll loop) or drop that "
            "read, by hand"
        )
    return (
        f"listener class {found.listener.node.name} is migrated, but its callbacks still reach "
        f"a consumer through {found.path}, which the codemod cannot turn into the view; {step}"
    )


def refuse_what_stays(
    analysis: Analysis,
    legacy: Mapping[ast.ClassDef, tuple[ClientFacts, str]],
    plan: MigrationPlan,
    facts: FileFacts,
) -> None:
    """For each migrated class of ``legacy``: a consumer its callbacks still reach through an
    owner's method, passed the view where :mod:`.owner_method_takes_view` can; else that, and
    a consumer handed to its ``__init__`` that the plan keeps, each refused at its line with
    the step left by hand (the class itself stays migrated)."""
    for found in analysis.indirect:
        cls = found.listener.node
        if cls in legacy and span(cls) in plan.planned and span(found.anchor) not in plan.planned:
            step = None
            if _private_read(found) is None:
                step = plan_owner_methods(found, analysis, legacy[cls][0], facts, plan)
            if step is not None or _private_read(found) is not None:
                line = getattr(found.anchor, "lineno", cls.lineno)
                plan.refuse(line, _indirect_reason(found, step or ""))
    refused = {line for line, _ in plan.manual}
    for listener, arg in analysis.injected:  # e.g. a wrapper registering itself, also handed one
        cls = listener.node
        if (
            cls in legacy
            and span(cls) in plan.planned
            and span(arg) not in plan.planned
            and arg.lineno not in refused
        ):
            plan.refuse(
                arg.lineno,
                f"listener class {cls.name} is migrated, but the consumer handed to its "
                f"__init__ ({arg.arg}) stays; drop it by hand where nothing else uses it",
            )


SHAPE = Shape(
    name="indirect injection",
    planner="listeners",
    recognises=(
        "the model's IndirectInjection and injected parameters of a migrated class whose "
        "anchor the plan did not rewrite"
    ),
    plan=("refusal (the class is migrated)"),
    fixtures=(
        "tests/codemods/test_refusals.py::test_a_migrated_listener_that_still_reaches_a_consumer_through_an_owner_says_so",
        "tests/codemods/test_refusals.py::test_a_private_read_through_an_owner_says_the_view_lacks_it",
    ),
)
