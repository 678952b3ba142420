"""Shape: a callback handing its consumer to a helper of the same file
(``_check_partitions_at_eof(consumer, partitions)``, ``self.warm(consumer, partitions)``).

The helper stays and gets the view when it only calls what the view offers on it (awaited
where a coroutine), shows it, or hands it on the same way, its parameter unannotated."""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.displayed_consumer import only_displayed


def helper_takes_view(
    use: ast.AST, facts: FileFacts, call_ok: Callable[[ast.Call, str], bool], depth: int = 0
) -> bool:
    """Whether ``use`` (the callback's consumer) is handed to a function of this file that
    only calls methods the view offers on it (``call_ok``), shows it, or hands it on the same
    way: ``commit_all(consumer)``, ``_check_partitions_at_eof(consumer, partitions)``.

    The helper stays as it is and gets the view instead; that is sound only when the helper's
    parameter has no annotation (a type checker would reject the view for ``Consumer``) and an
    async helper is awaited inside the callback (else it would run after the view expired).
    """
    parent = facts.parent(use)
    keyword = parent.arg if isinstance(parent, ast.keyword) else None
    if isinstance(parent, ast.keyword):
        parent = facts.parent(parent)
    if not isinstance(parent, ast.Call):
        return False
    helper = _helper_called(parent.func, facts)
    if helper is None or helper.decorator_list:
        return False
    if isinstance(helper, ast.AsyncFunctionDef) and not isinstance(facts.parent(parent), ast.Await):
        return False
    positional = [*helper.args.posonlyargs, *helper.args.args]
    if isinstance(parent.func, ast.Attribute):
        positional = positional[1:]  # self.helper(consumer): the method's self comes first
    if keyword is not None:
        named = [*helper.args.args, *helper.args.kwonlyargs]
        param = next((p for p in named if p.arg == keyword), None)
    else:
        index = next((i for i, arg in enumerate(parent.args) if arg is use), None)
        if index is None or any(isinstance(a, ast.Starred) for a in parent.args[:index]):
            return False
        param = positional[index] if index < len(positional) else None
    if param is None or param.annotation is not None:
        return False
    refs = facts.bindings.references(param, param.arg)
    if refs is None:
        return False
    for ref in refs:
        method = facts.parent(ref)
        call = facts.parent(method) if method is not None else None
        if only_displayed(ref, facts) or (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and isinstance(call, ast.Call)
            and call.func is method
            and call_ok(call, method.attr)
        ):
            continue
        if depth < 2 and helper_takes_view(ref, facts, call_ok, depth + 1):
            continue
        return False
    return True


def _helper_called(func: ast.expr, facts: FileFacts) -> FunctionNode | None:
    """The function ``helper(...)`` or ``self.helper(...)`` calls: a def bound once where it
    is called, or a method of the class whose method makes the call."""
    if isinstance(func, ast.Name):
        found = facts.bindings.binding(func)
        return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None
    if isinstance(func, ast.Attribute):
        owner = self_class(func.value, facts)
        return methods_of(owner).get(func.attr) if owner is not None else None
    return None


def offered_by_view(client: ClientFacts, facts: FileFacts) -> Callable[[ast.Call, str], bool]:
    """Whether ``consumer.<name>(...)`` works the same on the client's view: a method the view
    offers, awaited where it is a coroutine (:func:`helper_takes_view`)."""

    def ok(call: ast.Call, name: str) -> bool:
        return name in client.view_methods and (
            name not in client.coroutine_methods or isinstance(facts.parent(call), ast.Await)
        )

    return ok


SHAPE = Shape(
    name="helpers that take the view",
    planner="shared",
    recognises=("the consumer passed as an argument to a def or an own method of the file"),
    plan=("none: the helper is called with the view"),
    fixtures=("tests/codemods/test_consumer_helpers.py",),
)
