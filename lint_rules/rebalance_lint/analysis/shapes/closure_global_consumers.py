"""Shape: the registering consumer reached as a variable bound outside the class: a
closure's (a listener defined inside a method, capturing the consumer) or a module global.

When every instance of the class is registered on that very variable, its uses in the
callbacks become the view; otherwise they would keep driving the consumer itself."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import _State
from rebalance_lint.analysis.migration_facts import methods_of
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
    receivers: set[ast.AST] = set()
    for creation in creations:
        call = state.registration_calls.get(creation)
        receiver = (
            call.func.value if call is not None and isinstance(call.func, ast.Attribute) else None
        )
        binding = facts.bindings.binding(receiver) if isinstance(receiver, ast.Name) else None
        if binding is not None:
            receivers.add(binding)
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
            if binding is None or binding not in receivers:
                if is_closure:
                    assert closure is not None
                    return _closure_reason(closure, "an instance is registered on another consumer")
                continue
            if len(receivers) != 1 or len(creations) != len(
                [c for c in creations if c in state.registration_calls]
            ):
                return (
                    f"a callback uses the consumer {node.id} (line {node.lineno}), and the "
                    "instances are not all registered on it; migrate it by hand"
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
        "registered on (IndirectInjection how='closure')"
    ),
    plan=("replace_with_name (the view)"),
    fixtures=("tests/codemods/test_closure_listener.py",),
)
