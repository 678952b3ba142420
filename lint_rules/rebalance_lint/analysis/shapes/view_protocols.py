"""Shape: a helper's consumer parameter annotated with a ``Protocol`` class of its own file
(``class OffsetSeeker(Protocol): async def end_offsets(...); def seek(...)``, then
``async def seek_assigned_to_end(consumer: OffsetSeeker, assigned)``; held_out_7 002), every
member of which is a method the helper calls on that parameter.

The helper's calls are checked as any helper's are (:mod:`.helpers_take_view`: only what the
view offers, awaited where a coroutine), so the view has every member the protocol asks for
and the annotation can stay: both the poll loop's consumer and the view satisfy it. Any other
annotation keeps :mod:`.helpers_take_view`'s refusal, which says what to write."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

_PROTOCOL_BASES = frozenset({"typing.Protocol", "typing_extensions.Protocol"})


def view_meets_protocol(param: ast.arg, helper: FunctionNode, home: FileFacts) -> bool:
    """Whether ``param``'s annotation names a plain ``Protocol`` class of ``home`` whose
    members are all methods ``helper`` calls on ``param`` (each then checked as the view's)."""
    annotation = param.annotation
    if not isinstance(annotation, ast.Name):
        return False
    cls = home.bindings.binding(annotation)
    if not isinstance(cls, ast.ClassDef) or cls.keywords or cls.decorator_list:
        return False
    if not cls.bases or not all(home.qualnames(base) & _PROTOCOL_BASES for base in cls.bases):
        return False
    members: set[str] = set()
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.decorator_list:
                return False  # a property or an overload: not a plain method
            members.add(statement.name)
        elif not isinstance(statement, ast.Pass) and not (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        ):
            return False  # an attribute: the view has none
    return bool(members) and members <= _called_on(param, helper, home)


def _called_on(param: ast.arg, helper: FunctionNode, home: FileFacts) -> set[str]:
    """The methods ``helper`` calls on ``param`` (``param.<name>(...)``)."""
    called: set[str] = set()
    for ref in home.bindings.references(param, param.arg) or ():
        method = home.parent(ref)
        call = home.parent(method) if method is not None else None
        if isinstance(method, ast.Attribute) and isinstance(call, ast.Call) and call.func is method:
            called.add(method.attr)
    return called


SHAPE = Shape(
    name="helpers annotated with a protocol the view meets",
    planner="shared",
    recognises=(
        "a helper's consumer parameter annotated with a Protocol class of its file whose "
        "members are all methods the helper calls on it"
    ),
    plan="none: the annotation stays, the helper is called with the view",
    fixtures=(
        "tests/codemods/test_view_protocols.py",
        "tests/codemods/fixtures/view_protocols.py",
    ),
)
