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

#: The calls a helper may make on the view, given the facts of the helper's own file:
#: ``calls(facts)(call, method)`` (one decision per planner: :func:`offered_by_view`).
ViewCalls = Callable[[FileFacts], Callable[[ast.Call, str], bool]]


def helper_takes_view(use: ast.AST, facts: FileFacts, calls: ViewCalls, depth: int = 0) -> bool:
    """Whether ``use`` (the callback's consumer) is handed to a function of this file (or,
    in repository mode, one imported from another module of the repository) that only calls
    methods the view offers on it (``calls``), shows it, or hands it on the same way:
    ``commit_all(consumer)``, ``_check_partitions_at_eof(consumer, partitions)``.

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
    found = _helper_called(parent.func, facts)
    if found is None:
        return False
    home, helper = found
    if helper.decorator_list or _generator(helper):
        return False  # a generator's body runs when it is iterated: maybe after the callback
    if isinstance(helper, ast.AsyncFunctionDef) and not isinstance(facts.parent(parent), ast.Await):
        return False
    param = _parameter(helper, isinstance(home.parent(helper), ast.ClassDef), parent, use, keyword)
    if param is None or param.annotation is not None:
        return False
    refs = home.bindings.references(param, param.arg)
    if refs is None:
        return False
    call_ok = calls(home)
    for ref in refs:
        if _deferred(ref, helper, home):
            return False  # a nested def, lambda or generator may run after the callback
        method = home.parent(ref)
        call = home.parent(method) if method is not None else None
        if only_displayed(ref, home) or (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and isinstance(call, ast.Call)
            and call.func is method
            and call_ok(call, method.attr)
        ):
            continue
        if depth < 2 and helper_takes_view(ref, home, calls, depth + 1):
            continue
        return False
    return True


def _generator(helper: FunctionNode) -> bool:
    """Whether ``helper`` itself (not a function nested in it) yields."""
    stack: list[ast.AST] = list(helper.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _deferred(ref: ast.AST, helper: FunctionNode, home: FileFacts) -> bool:
    """Whether ``ref`` (in ``helper``) sits in code that need not run while ``helper`` does:
    a nested def or lambda, a generator expression."""
    node = home.parent(ref)
    while node is not None and node is not helper:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.GeneratorExp):
            return True
        node = home.parent(node)
    return False


def _parameter(
    helper: FunctionNode, method: bool, call: ast.Call, use: ast.AST, keyword: str | None
) -> ast.arg | None:
    """The parameter of ``helper`` (a ``method`` called through ``self``, or a function)
    that ``use``, an argument of ``call``, binds."""
    if keyword is not None:
        named = [*helper.args.args, *helper.args.kwonlyargs]
        return next((p for p in named if p.arg == keyword), None)
    positional = [*helper.args.posonlyargs, *helper.args.args][1 if method else 0 :]
    index = next((i for i, arg in enumerate(call.args) if arg is use), None)
    if index is None or any(isinstance(a, ast.Starred) for a in call.args[:index]):
        return None
    return positional[index] if index < len(positional) else None


def _helper_called(func: ast.expr, facts: FileFacts) -> tuple[FileFacts, FunctionNode] | None:
    """The function ``helper(...)`` or ``self.helper(...)`` calls, with the facts of its file:
    a def bound once where it is called, a method of the class whose method makes the call,
    or (repository mode) a module-level function imported from another module."""
    if isinstance(func, ast.Name):
        found = facts.bindings.binding(func)
        if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
            return facts, found
        return _imported(func, facts) if isinstance(found, ast.Import | ast.ImportFrom) else None
    if isinstance(func, ast.Attribute):
        owner = self_class(func.value, facts)
        if owner is not None:
            method = methods_of(owner).get(func.attr)
            return (facts, method) if method is not None else None
        head = func.value
        while isinstance(head, ast.Attribute):
            head = head.value
        if isinstance(head, ast.Name) and isinstance(
            facts.bindings.binding(head), ast.Import | ast.ImportFrom
        ):
            return _imported(func, facts)  # offsets.commit_all(consumer)
    return None


def _imported(func: ast.expr, facts: FileFacts) -> tuple[FileFacts, FunctionNode] | None:
    """The module-level function of another module ``func`` names, bound once there."""
    found = facts.imported(func)
    if found is None:
        return None
    home, helper = found
    if home.bindings.module.assignments.get(helper.name) != [helper]:
        return None
    return found


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
