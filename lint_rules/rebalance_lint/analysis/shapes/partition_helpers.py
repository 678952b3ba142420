"""Shape: a migrated callback whose partitions annotation :mod:`.partition_annotations`
changed (``revoked: set[TopicPartition]`` -> ``AbstractSet[TopicPartition]`` on aiokafka)
hands its partitions to a helper of the file annotated with the old collection
(``def _drop_pending(self, revoked: set[TopicPartition])``, the application samples' sensor):
the call no longer type-checks (mypy ``[arg-type]``) though nothing changed at run time.

The helper's annotation gets the same collection when the helper only reads the partitions
in ways every collection the base declares supports: iterating them (``for``, a
comprehension), membership (``x in p``), truth (``if not p``), ``len(p)``, copying them
(``list(p)``, ``set(p)``, ``sorted(p)``, ``frozenset(p)``, ``tuple(p)``) or displaying them
(an f-string, a print or logging argument). Widening a parameter never breaks a caller;
the helper is found by name (the one def of that name in the file: the annotation is all that
changes, so an object of another class whose method shares the name costs nothing at run
time). A helper doing anything else with them keeps its annotation (the type error stays,
as before)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: Builtins that only iterate or copy the collection they are given.
_READERS = frozenset({"len", "list", "set", "sorted", "frozenset", "tuple", "print", "repr", "str"})
#: Logging methods (``log.info("%s", p)``): they format their arguments.
_LOGGING = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def widen_helpers(
    fn: Function,
    collection: str,
    is_wrong: Callable[[ast.expr], bool],
    facts: FileFacts,
    plan: MigrationPlan,
) -> None:
    """Stage ``collection[...]`` for the partitions parameter of each helper ``fn`` hands
    its partitions to, annotated with a collection ``is_wrong(head)`` says the base does not
    declare, which only reads them (see the module docstring)."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    if len(params) < 2:
        return
    for call, position, keyword in _handed(fn, params[1], facts):
        helper = _only_def(call, facts)
        if helper is None:
            continue
        param = _parameter(helper, call, position, keyword)
        annotation = param.annotation if param is not None else None
        if param is None or annotation is None:
            continue
        head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        if not is_wrong(head) or not _only_read(helper, param, facts):
            continue
        element = (
            f"[{ast.unparse(annotation.slice)}]" if isinstance(annotation, ast.Subscript) else ""
        )
        plan.edit(Edit("replace_with_expression", span(annotation), value=collection + element))


def _handed(
    fn: Function, partitions: ast.arg, facts: FileFacts
) -> list[tuple[ast.Call, int | None, str | None]]:
    """Each call in ``fn`` given the partitions parameter itself: (call, position, keyword)."""
    found: list[tuple[ast.Call, int | None, str | None]] = []
    for ref in facts.bindings.references(partitions, partitions.arg) or ():
        parent = facts.parent(ref)
        if isinstance(parent, ast.Call) and ref in parent.args:
            found.append((parent, parent.args.index(ref), None))
        elif isinstance(parent, ast.keyword) and parent.arg is not None:
            call = facts.parent(parent)
            if isinstance(call, ast.Call):
                found.append((call, None, parent.arg))
    return found


def _only_def(call: ast.Call, facts: FileFacts) -> Function | None:
    """The one def of the file named as ``call`` calls it, a method for ``x._drop(...)``, a
    function for ``drop(...)``; not decorated (a staticmethod aside), taking no ``*args``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    defs = [
        node
        for node in ast.walk(facts.tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
    ]
    if len(defs) != 1:
        return None
    helper = defs[0]
    if helper.args.vararg or any(ast.unparse(d) != "staticmethod" for d in helper.decorator_list):
        return None
    is_method = isinstance(facts.parent(helper), ast.ClassDef)
    return helper if is_method == isinstance(func, ast.Attribute) else None


def _parameter(
    helper: Function, call: ast.Call, position: int | None, keyword: str | None
) -> ast.arg | None:
    params = [*helper.args.posonlyargs, *helper.args.args]
    if keyword is not None:
        return next((p for p in [*params, *helper.args.kwonlyargs] if p.arg == keyword), None)
    assert position is not None
    method = isinstance(call.func, ast.Attribute) and not helper.decorator_list
    index = position + 1 if method else position
    return params[index] if index < len(params) else None


def _only_read(helper: Function, param: ast.arg, facts: FileFacts) -> bool:
    refs = facts.bindings.references(param, param.arg)
    return refs is not None and all(_read(ref, facts) for ref in refs)


def _read(ref: ast.AST, facts: FileFacts) -> bool:
    parent = facts.parent(ref)
    if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return parent.iter is ref
    if isinstance(parent, ast.Compare):
        return ref in parent.comparators and all(
            isinstance(op, ast.In | ast.NotIn) for op in parent.ops
        )
    if isinstance(parent, ast.BoolOp):  # ``not p or ...``: only its truth, where tested
        ref, parent = parent, facts.parent(parent)
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        return True
    if isinstance(parent, ast.If | ast.While | ast.IfExp):
        return parent.test is ref
    if isinstance(parent, ast.FormattedValue):
        return True
    if isinstance(parent, ast.Call) and ref in parent.args:
        func = parent.func
        if isinstance(func, ast.Name):
            return func.id in _READERS and facts.bindings.binding(func) is None
        return isinstance(func, ast.Attribute) and func.attr in _LOGGING
    return False


SHAPE = Shape(
    name="partition helpers",
    planner="listeners",
    recognises=(
        "a migrated callback handing its re-annotated partitions to a helper of the file "
        "annotated with the old collection, which only iterates, tests, counts or shows them"
    ),
    plan="replace_with_expression (the helper's annotation -> the base's collection)",
    fixtures=(
        "tests/codemods/test_partition_annotations.py",
        "tests/codemods/fixtures/partition_annotations.py",
    ),
)
