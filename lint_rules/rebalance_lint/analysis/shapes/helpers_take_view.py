"""Shape: a callback handing its consumer to a helper
(``_check_partitions_at_eof(consumer, partitions)``, ``self.warm(consumer, partitions)``,
``commit_all(consumer, pending)`` imported from another module of the repository).

The helper stays and gets the view when it only calls what the view offers on it (awaited
where a coroutine, never later: not from a nested function or a generator), shows it, or hands
it on the same way, its parameter unannotated (or annotated with the consumer class, widened:
:mod:`.annotated_helpers`). Otherwise the refusal names what in the helper stops it and the
step that fixes it (:func:`helper_refusal`)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.annotated_helpers import Widen, names_consumer_class
from rebalance_lint.analysis.shapes.displayed_consumer import only_displayed
from rebalance_lint.analysis.shapes.view_protocols import view_meets_protocol
from rebalance_lint.analysis.walk import is_generator

#: The calls a helper may make on the view, given the facts of the helper's own file:
#: ``calls(facts)(call, method)`` (one decision per planner: :func:`offered_by_view`).
ViewCalls = Callable[[FileFacts], Callable[[ast.Call, str], bool]]


#: annotations any value meets, the view too: the helper takes it with its annotation unchanged
_ANY = frozenset({"typing.Any", "typing_extensions.Any"})


def helper_takes_view(
    use: ast.AST, facts: FileFacts, calls: ViewCalls, widen: Widen | None = None
) -> bool:
    """Whether ``use`` (the callback's consumer) is handed to a function of this file (or,
    in repository mode, one imported from another module of the repository) that only calls
    methods the view offers on it (``calls``), shows it, or hands it on the same way:
    ``commit_all(consumer)``, ``_check_partitions_at_eof(consumer, partitions)``.

    The helper stays as it is and gets the view instead; that is sound only when the helper's
    parameter has no annotation (a type checker would reject the view for ``Consumer``; with
    ``widen``, a same-file helper's ``consumer: Consumer`` is noted there to become
    ``Consumer | RebalanceConsumer``, :mod:`.annotated_helpers`), and an async helper is
    awaited inside the callback (else it would run after the view expired).
    """
    return helper_refusal(use, facts, calls, widen) is None


def helper_refusal(
    use: ast.AST, facts: FileFacts, calls: ViewCalls, widen: Widen | None = None, depth: int = 0
) -> str | None:
    """Why the helper ``use`` is handed to cannot take the view, as the tail of a refusal
    (``passes it to f(), which ...; <next step>, then run migrate again``); None when it can
    (:func:`helper_takes_view`), "" when ``use`` is not an argument of a helper call at all."""
    parent = facts.parent(use)
    keyword = parent.arg if isinstance(parent, ast.keyword) else None
    if isinstance(parent, ast.keyword):
        parent = facts.parent(parent)
    if not isinstance(parent, ast.Call) or parent.func is use:
        return ""
    name = f"{ast.unparse(parent.func)}()"
    found = _helper_called(parent.func, facts)
    if found is None:
        if _names_import(parent.func, facts):
            return (
                f"passes it to {name}, imported, which the codemod follows only to a def at the "
                "top level of a module in the directory migrated; run rebalance-guard migrate "
                "on a directory holding that module too (or call the consumer's methods in the "
                "callback itself), then run migrate again"
            )
        if isinstance(parent.func, ast.Attribute) and not isinstance(parent.func.value, ast.Call):
            return (
                f"passes it to {name}, a method of another object, which the codemod cannot "
                "follow to the one definition that runs (its class, or a subclass elsewhere, "
                f"decides); {_INLINE}"
            )
        return ""
    home, helper = found
    owner = home.parent(helper)
    hook = _overridable(helper, owner, home) if isinstance(owner, ast.ClassDef) else None
    if hook is not None:
        return f"passes it to {name}, {hook}, which the codemod cannot check; {_INLINE}"
    if helper.decorator_list or is_generator(helper):
        what = "is decorated" if helper.decorator_list else "is a generator (it runs later)"
        return f"passes it to {name}, which {what}; {_INLINE}"
    if isinstance(helper, ast.AsyncFunctionDef) and not isinstance(facts.parent(parent), ast.Await):
        return (
            f"passes it to {name}, a coroutine not awaited there, which may run after the "
            f"view expired; await it in the callback, then run migrate again"
        )
    param = _parameter(helper, isinstance(owner, ast.ClassDef), parent, use, keyword)
    if param is None:
        return f"passes it to {name}, whose parameter for it the codemod cannot tell; {_INLINE}"
    if (
        param.annotation is not None
        and not names_consumer_class(param.annotation, home, _ANY)  # Any takes the view as is
        and not (widen is not None and widen.note(param.annotation, home, facts))
        and not view_meets_protocol(param, helper, home)  # shapes/view_protocols.py
    ):
        shown, wanted = _annotation_texts(param.annotation, home)
        return (
            f"passes it to {name}, whose parameter {param.arg} is annotated {shown}, which the "
            f"view is not; annotate it {wanted} (or drop the annotation), then run migrate again"
        )
    refs = home.bindings.references(param, param.arg)
    if refs is None:
        return f"passes it to {name}, which rebinds {param.arg}; {_INLINE}"
    call_ok = calls(home)
    for ref in refs:
        line = ref.lineno
        if _deferred(ref, helper, home):
            return (
                f"passes it to {name}, which uses {param.arg} in a nested function or "
                f"generator (line {line}) that may run after the callback; {_INLINE}"
            )
        method = home.parent(ref)
        call = home.parent(method) if method is not None else None
        if only_displayed(ref, home):
            continue
        if isinstance(method, ast.Attribute) and method.value is ref:
            if isinstance(call, ast.Call) and call.func is method and call_ok(call, method.attr):
                continue
            if method.attr in _ASSIGNS:
                return (
                    f"passes it to {name}, which calls {param.arg}.{method.attr}() (line {line}), "
                    "which only the callback's own last statement may do (the adapter does it "
                    f"after the callback); leave that call out of {name} and make it the last "
                    "statement of the callback (a def), then run migrate again"
                )
            return (
                f"passes it to {name}, which uses {param.arg}.{method.attr} (line {line}) other "
                f"than as a call the view offers as written; move that out of {name} (or call "
                "the consumer's methods in the callback itself), then run migrate again"
            )
        inner = helper_refusal(ref, home, calls, widen, depth + 1) if depth < 2 else ""
        if inner is None:
            continue
        return (
            f"passes it to {name}, which {inner}"
            if inner
            else f"passes it to {name}, which uses {param.arg} other than to call a method "
            f"(line {line}); {_INLINE}"
        )
    return None


_ASSIGNS = frozenset({"assign", "incremental_assign", "unassign", "incremental_unassign"})

_INLINE = (
    "call the consumer's methods in the callback itself (inline that call, or make it return "
    "what the callback should do), then run migrate again"
)


def _overridable(method: FunctionNode, owner: ast.ClassDef, facts: FileFacts) -> str | None:
    """Why ``self.<method>(...)`` may run another method than ``owner``'s own: a class of the
    file deriving from ``owner`` overrides it, or its body does nothing (a hook for subclasses,
    which may live anywhere, to override)."""
    for node in facts.index.classes:
        if node is owner or method.name not in methods_of(node):
            continue
        bases = {
            b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases
        }
        if owner.name in bases:
            return f"which class {node.name} (line {node.lineno}) overrides"
    body = [
        stmt
        for stmt in method.body
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
    ]
    if all(isinstance(stmt, ast.Pass) or _raises_not_implemented(stmt) for stmt in body):
        return "a method that does nothing here (a hook for subclasses to override)"
    return None


def _raises_not_implemented(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _annotation_texts(annotation: ast.expr, facts: FileFacts) -> tuple[str, str]:
    """The annotation as written, and the one that also accepts the view."""
    shown = ast.unparse(annotation)
    if annotation.lineno == annotation.end_lineno:
        line = facts.lines[annotation.lineno - 1].encode()
        shown = line[annotation.col_offset : annotation.end_col_offset].decode(errors="replace")
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return shown, f'"{annotation.value} | RebalanceConsumer"'
    return shown, f"{shown} | RebalanceConsumer"


def _names_import(func: ast.expr, facts: FileFacts) -> bool:
    """Whether ``func`` (``f``, ``mod.f``) starts with a name bound by an import."""
    head = func
    while isinstance(head, ast.Attribute):
        head = head.value
    return isinstance(head, ast.Name) and isinstance(
        facts.bindings.binding(head), ast.Import | ast.ImportFrom
    )


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
        if _names_import(func.value, facts):
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
    recognises=(
        "the consumer passed as an argument to a def or an own method of the file, or (migrate "
        "DIR) to a top-level def imported from another module of the repository"
    ),
    plan=("none: the helper is called with the view"),
    fixtures=(
        "tests/codemods/test_consumer_helpers.py",
        "tests/codemods/test_imported_helpers.py",
    ),
)
