"""Shape: factory-made listeners: ``listener=self.make_listener(...)`` where the factory (a
function or a method of the file, called nowhere else) ends in its one ``return Cls(...)``
(REAL_WORLD.md: a listener class defined inside a method)."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.listener_state import _State
from rebalance_lint.analysis.migration_facts import methods_of, own_returns, self_class
from rebalance_lint.analysis.shape import Shape


def _factory_creation(call: ast.Call, state: _State) -> ast.Call | None:
    """``listener=self.make_listener(...)`` where ``make_listener`` (a function or a method
    of the class of the file, called nowhere else) ends in its one ``return Cls(...)``:
    that creation (REAL_WORLD.md: a listener class defined inside a method)."""
    facts = state.facts
    func = call.func
    factory: ast.AST | None = None
    if isinstance(func, ast.Name):
        factory = facts.bindings.binding(func)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = self_class(func.value, facts)
        factory = methods_of(owner).get(func.attr) if owner is not None else None
    if not isinstance(factory, ast.FunctionDef) or factory.decorator_list:
        return None
    returns = own_returns(factory)
    last = factory.body[-1]
    if (
        returns != [last]
        or not isinstance(last, ast.Return)
        or not isinstance(last.value, ast.Call)
    ):
        return None
    calls = [
        c
        for c in facts.index.calls
        if (isinstance(c.func, ast.Name) and c.func.id == factory.name)
        or (isinstance(c.func, ast.Attribute) and c.func.attr == factory.name)
    ]
    return last.value if calls == [call] else None


SHAPE = Shape(
    name="factory-made listeners",
    planner="listeners",
    recognises=(
        "a listener= call of an undecorated def whose only return is its last statement, "
        "return Cls(...), called only there"
    ),
    plan=("the class's plan, the creation inside the factory"),
    fixtures=("tests/codemods/test_closure_listener.py",),
)
