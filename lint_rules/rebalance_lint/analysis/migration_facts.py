"""What the migration planner reads about one file, beyond the rules' model: an index of
classes, calls and attributes in source order (:mod:`.file_index`), name bindings, and small
expression tests.

Built only for a file whose model has a migration candidate (``analysis.migration``). What a
shape decides from these facts lives in its module under :mod:`.shapes`.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.file_index import FileIndex, build_index
from rebalance_lint.analysis.file_index import names_in as names_in  # re-exported
from rebalance_lint.analysis.file_index import source_order as source_order  # re-exported
from rebalance_lint.analysis.imports import ImportMap
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.scopes import Bindings

VIEW_NAMES = ("consumer", "rebalance_consumer", "view")


@dataclass
class FileFacts:
    """The planner's view of one file."""

    tree: ast.Module
    lines: list[str]
    imports: ImportMap
    index: FileIndex
    bindings: Bindings
    #: repository mode: the module-level function a name imported from another module of
    #: the repository means there, with that module's facts (single-file mode: always None)
    imported: Callable[[ast.expr], tuple[FileFacts, FunctionNode] | None] = lambda _: None
    #: repository mode: the calls of a module-level function of this file in the other
    #: modules, each with that module's facts, or why not all its uses there are calls
    #: (single-file mode: None, nothing known)
    callers: Callable[[FunctionNode], list[tuple[str, FileFacts, ast.Call]] | str] | None = None

    def qualnames(self, expr: ast.expr) -> set[str]:
        """Fully qualified names ``expr`` was imported as (empty when not imported)."""
        found = self.imports.resolve(expr)
        return {found} if found else set()

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.bindings.parent.get(node)

    def sole_assignment(self, name: ast.Name) -> tuple[ast.AST, ast.expr] | None:
        """The binding ``name`` reads and the value it gets, when that binding is the one
        target of a plain ``=`` (``name = value``); else None."""
        target = self.bindings.binding(name)
        assign = self.parent(target) if target is not None else None
        if (
            target is not None
            and isinstance(assign, ast.Assign)
            and len(assign.targets) == 1
            and assign.targets[0] is target
        ):
            return target, assign.value
        return None


def file_facts(tree: ast.Module, text: str, imports: ImportMap) -> FileFacts:
    lines = re.split("\r\n|\r|\n", text)
    if _SHARED:
        index = _SHARED[-1].index(tree)
        # each planning run claims import names of its own
        index = dataclasses.replace(index, claimed={})
    else:
        index = build_index(tree)
    return FileFacts(tree, lines, imports, index, bindings_of(tree))


def bindings_of(tree: ast.Module) -> Bindings:
    """The :class:`Bindings` of ``tree``: built once per tree inside :func:`facts_shared`."""
    return _SHARED[-1].bindings(tree) if _SHARED else Bindings(tree)


@dataclass
class _Built:
    """Each tree's index and bindings, by the tree's id (the tree kept alive with them)."""

    indexes: dict[int, tuple[ast.Module, FileIndex]] = field(default_factory=dict)
    bindings_by_tree: dict[int, tuple[ast.Module, Bindings]] = field(default_factory=dict)

    def index(self, tree: ast.Module) -> FileIndex:
        found = self.indexes.get(id(tree))
        if found is None or found[0] is not tree:
            found = self.indexes[id(tree)] = (tree, build_index(tree))
        return found[1]

    def bindings(self, tree: ast.Module) -> Bindings:
        found = self.bindings_by_tree.get(id(tree))
        if found is None or found[0] is not tree:
            found = self.bindings_by_tree[id(tree)] = (tree, Bindings(tree))
        return found[1]


#: What :func:`facts_shared` keeps while inside it (innermost last).
_SHARED: list[_Built] = []


@contextmanager
def facts_shared() -> Iterator[None]:
    """Build each tree's index and bindings once while inside: repository mode plans a file
    defining a listener class used elsewhere twice, and finds the uses of its classes in
    modules it also plans (:mod:`.references`). Nothing is kept after it."""
    _SHARED.append(_Built())
    try:
        yield
    finally:
        _SHARED.pop()


def view_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """A parameter name for the view that nothing in ``function`` already uses."""
    taken = names_in(function)
    return next((name for name in VIEW_NAMES if name not in taken), None)


def guard_name(
    facts: FileFacts, taken: set[str], module: str, obj: str, plan: MigrationPlan
) -> str:
    """Schedule ``from module import obj`` and return the name to use for it.

    A name the file already uses for something else, anywhere (the aiokafka docs call their
    own listener class ``RebalanceListener``; a function may have a local ``subscribe``), or
    one this run already gave to another client's symbol (a file using kafka-python and
    aiokafka needs two ``set_rebalance_listener``), gets the import aliased, not shadowed.
    """
    claimed = facts.index.claimed
    wanted = f"{module}.{obj}"
    client = module.rpartition(".")[2]
    if obj[:1].isupper():
        aliases = [f"Guard{obj}", "".join(p.title() for p in client.split("_")) + obj]
    else:
        aliases = [f"guard_{obj}", f"{client}_{obj}"]
    local = f"_rg_{client}_{obj}"
    for candidate in (obj, *aliases):
        if claimed.get(candidate, wanted) != wanted:
            continue
        if candidate in claimed or candidate not in taken:
            local = candidate
            break
        if _module_binds_only(facts, candidate, wanted):
            local = candidate
            break
    claimed[local] = wanted
    plan.imports.add((module, obj, None if local == obj else local))
    return local


def _module_binds_only(facts: FileFacts, name: str, wanted: str) -> bool:
    """Whether every module-level binding of ``name`` imports exactly ``wanted``."""
    found = facts.bindings.module.assignments.get(name, [])
    qualnames: set[str] = set()
    for node in found:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            qualnames |= {
                f"{node.module}.{a.name}" for a in node.names if (a.asname or a.name) == name
            }
        elif isinstance(node, ast.Import):
            qualnames |= {a.name for a in node.names if (a.asname or a.name) == name}
        else:
            return False
    return bool(found) and qualnames == {wanted}


Layout = Literal["own", "shared", "suite"]


def statement_layout(stmt: ast.AST, facts: FileFacts) -> Layout:
    """``own``: alone on its line(s); ``shared``: ``a; b``; ``suite``: ``if x: a`` (one line)."""
    parent = facts.parent(stmt)
    body = containing_list(parent, stmt) if parent is not None else None
    if body is None:
        return "own"
    i = next(n for n, item in enumerate(body) if item is stmt)
    first = i
    while first > 0 and body[first - 1].end_lineno == body[first].lineno:
        first -= 1
    head = body[first]
    prefix = facts.lines[head.lineno - 1].encode()[: head.col_offset]
    if prefix.strip():
        return "suite"
    last = i
    while last + 1 < len(body) and body[last + 1].lineno == body[last].end_lineno:
        last += 1
    return "own" if first == last else "shared"


def containing_list(parent: ast.AST, stmt: ast.AST) -> list[ast.stmt] | None:
    for _name, value in ast.iter_fields(parent):
        if isinstance(value, list) and any(item is stmt for item in value):
            return value
    return None


def self_attr(node: ast.AST, self_name: str) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    ):
        return node.attr
    return None


def first_param(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    params = [*fn.args.posonlyargs, *fn.args.args]
    return params[0].arg if params else ""


def methods_of(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {
        stmt.name: stmt
        for stmt in cls.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def own_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The ``return`` statements of ``fn`` itself, not of functions or classes inside it."""
    found: list[ast.Return] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            stack.extend(ast.iter_child_nodes(node))
    return found


def returned_value(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Return | None:
    """A ``return <value>`` of ``fn`` itself (not of a nested function), if any: listener
    methods return nothing (or, where the client awaits them, an awaitable of nothing)."""
    return next((r for r in own_returns(fn) if r.value is not None and not is_none(r.value)), None)


def self_class(expr: ast.expr, facts: FileFacts) -> ast.ClassDef | None:
    """The class whose instance ``expr`` is when it is the ``self`` (first parameter) of one of
    that class's own methods, possibly used from a nested function. A ``staticmethod`` or
    ``classmethod`` has no ``self``; any other decorator (``@retry``, ``@log_errors``: real
    code decorates the method that subscribes) wraps a method still called with its instance."""
    if not isinstance(expr, ast.Name):
        return None
    param = facts.bindings.binding(expr)
    method = next(
        (
            node
            for node in facts.bindings.ancestors(expr)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.args.args[:1] == [param]
        ),
        None,
    )
    owner = facts.parent(method) if method is not None else None
    if (
        method is not None
        and isinstance(owner, ast.ClassDef)
        and method in owner.body
        and not any(takes_no_self(d) for d in method.decorator_list)
    ):
        return owner
    return None


def stored_once(value: ast.Attribute, facts: FileFacts) -> ast.Call | None:
    """The ``Cls(...)`` call ``self.<attr>`` holds when the file stores ``.<attr>`` exactly
    once, as ``self.<attr> = Cls(...)`` in a method of the class ``value``'s ``self`` is of
    (real code keeps a listener or a rebalance handler that way: ``self._rebalance_handler =
    RebalanceHandler(...)``)."""
    owner = self_class(value.value, facts)
    if owner is None:
        return None
    stores = [
        node
        for node in facts.index.attributes.get(value.attr, [])
        if isinstance(node.ctx, ast.Store | ast.Del)
    ]
    store = stores[0] if len(stores) == 1 else None
    assign = facts.parent(store) if store is not None else None
    if (
        store is None
        or self_class(store.value, facts) is not owner
        or not isinstance(assign, ast.Assign)
        or assign.targets != [store]
        or not isinstance(assign.value, ast.Call)
    ):
        return None
    return assign.value


def takes_no_self(decorator: ast.expr) -> bool:
    """``@staticmethod``/``@classmethod`` (however spelled): the method has no ``self``."""
    name = decorator.func if isinstance(decorator, ast.Call) else decorator
    last = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
    return last.endswith(("staticmethod", "classmethod"))
