"""Shape (auto-fix): what a lost handler does: the revocation's logging, when the revocation
does nothing but commit and log (commits, ``pass``, docstrings, side-effect-free local values,
``if`` over side-effect-free tests holding such statements, logging calls on lines of their
own); and whether another lost-path callback calls the revocation by name."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from rebalance_guard._client_facts import COMMIT_METHODS as COMMITS

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.fix_plan import FixContext, _names
from rebalance_lint.analysis.model import Callback
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.walk import body_nodes

#: Consumer methods that only read (allowed in the arguments of a commit the lost path drops).
_READS = frozenset(
    {"position", "committed", "assignment", "paused", "beginning_offsets", "end_offsets",
     "highwater", "get_watermark_offsets", "offsets_for_times", "partitions_for_topic",
     "topics", "list_topics", "memberid", "consumer_group_metadata", "group_metadata"}
)  # fmt: skip


#: Calls that build values without changing anything (also allowed there).
_PURE_FUNCTIONS = frozenset(
    {"dict", "list", "set", "frozenset", "tuple", "len", "sorted", "min", "max", "int", "str",
     "bool", "range", "enumerate", "zip", "reversed", "isinstance"}
)  # fmt: skip


_PURE_METHODS = frozenset({"items", "keys", "values", "get", "copy"}) | _READS


_NOT_PURE = (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


def lost_body(planner: FixContext, callback: Callback, func: FunctionNode) -> tuple[int, ...] | str:
    """What the lost handler does: the revocation's top-level logging statements (their
    indexes in its body), so the lost path does what it did minus the commit; or why
    that is not all (the revocation does more than commit and log)."""
    commits = {
        id(e.node) for e in callback.effects if e.kind == "call" and e.name in COMMITS and not e.via
    }
    declared = {
        name
        for node in body_nodes(func)
        if isinstance(node, ast.Global | ast.Nonlocal)
        for name in node.names
    }
    kept: list[int] = []
    lines = [stmt.lineno for stmt in func.body]
    for index, stmt in enumerate(func.body):
        if _logs(stmt) and lines.count(stmt.lineno) == 1 and stmt.lineno != func.lineno:
            kept.append(index)
            continue
        for other in _statements([stmt], commits, declared):
            text = ast.unparse(other).splitlines()[0]
            text = text if len(text) <= 60 else text[:57] + "..."
            return (
                f"{callback.label} does more than commit ({text}); the lost handler needs "
                "that without the commit: write it by hand"
            )
    return tuple(kept)


def called_on_loss(planner: FixContext, callback: Callback, func: FunctionNode) -> str | None:
    """Another callback that runs on loss and calls this one by name (so it stays on the
    lost path whatever handler is added)."""
    parent = callback.scope.parent
    cls = parent.node if parent is not None and parent.is_class_body else None
    family = {cls, *planner.subclasses(cls)} if isinstance(cls, ast.ClassDef) else set()
    for other in planner.analysis.callbacks:
        if other is callback or "lost" not in other.kinds:
            continue
        self_name = other.scope.self_name
        for node in body_nodes(other.func):
            if not isinstance(node, ast.Call) or not _names(node.func, func.name):
                continue
            target = node.func
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == self_name
                and other.scope.cls not in family
            ):
                continue  # self.on_partitions_revoked() of another class: not this one
            if isinstance(target, ast.Name) and callback.is_method:
                continue  # a function of that name, not this method
            return (
                f"{other.label} also calls {func.name}() when partitions are lost; keep "
                "the commit off that path by hand"
            )
    return None


#: Receivers of logging calls: ``log``, ``logger``, ``logging``, ``LOG``, ``self._logger`` ...
_LOGGER = re.compile(r"^_*(?:\w+_)?(?:log|logger|logging)$", re.IGNORECASE)


_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)


def _logs(stmt: ast.stmt) -> bool:
    """A statement that only logs (``log.info(...)``, ``print(...)``) with side-effect-free
    arguments: the lost path keeps doing it, so the lost handler keeps it too."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    call = stmt.value
    func = call.func
    if isinstance(func, ast.Name):
        logs = func.id == "print"
    elif isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS:
        receiver = func.value
        name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        logs = bool(_LOGGER.match(name))
    else:
        logs = False
    return logs and all(_pure(arg) for arg in [*call.args, *(kw.value for kw in call.keywords)])


def _statements(body: list[ast.stmt], commits: set[int], declared: set[str]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that do something besides the commits ``commits`` and
    side-effect-free assignments to local names (not ``declared`` global or nonlocal)."""
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr):
            value = stmt.value.value if isinstance(stmt.value, ast.Await) else stmt.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                continue  # a docstring, or a string used as a comment
            if (
                isinstance(value, ast.Call)
                and id(value) in commits
                and all(_pure(arg) for arg in [*value.args, *(kw.value for kw in value.keywords)])
            ):
                continue
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and _local(stmt, declared):
            continue  # offsets = [...]: a local value for the commit
        elif isinstance(stmt, ast.If) and _pure(stmt.test):
            inner = [
                *_statements(stmt.body, commits, declared),
                *_statements(stmt.orelse, commits, declared),
            ]
            if not inner:
                continue
            yield inner[0]
            continue
        yield stmt


def _local(stmt: ast.Assign | ast.AnnAssign, declared: set[str]) -> bool:
    """``name = <side-effect-free value>``: it changes nothing outside the function (the
    name is not ``declared`` global or nonlocal)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if stmt.value is None or not _pure(stmt.value):
        return False
    return all(isinstance(t, ast.Name) and t.id not in declared for t in targets)


def _pure(expr: ast.expr) -> bool:
    """Evaluating ``expr`` changes nothing: no await, yield or assignment expression, and calls
    only of value builders (``dict``, ``sorted``, a class such as ``OffsetAndMetadata``) or of
    reading methods (``.items()``, ``consumer.position(tp)``)."""
    for node in ast.walk(expr):
        if isinstance(node, _NOT_PURE):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else None
            attr = func.attr if isinstance(func, ast.Attribute) else None
            if name is not None and (name in _PURE_FUNCTIONS or name[:1].isupper()):
                continue
            if attr is not None and (attr in _PURE_METHODS or attr[:1].isupper()):
                continue
            return False
    return True


SHAPE = Shape(
    name="lost handler body",
    planner="fixes",
    recognises=(
        "the statements of a committing revocation, and the other callbacks that run on loss"
    ),
    plan=("the kept logging statements of add_stub_after"),
    fixtures=(
        "tests/codemods/fixtures/fixes",
        "tests/codemods/test_fixes.py",
        "tests/codemods/test_fix_cli.py",
    ),
)
