"""The migration planner's index of one file (:class:`FileIndex`): its classes, calls and
attributes in source order, the names it binds or uses, the packages it imports and which of
them only inside ``try: ... except ImportError``, all from one walk of the tree
(:func:`build_index`). :mod:`.migration_facts` builds it with the file's bindings.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from rebalance_lint.analysis.walk import LEAVES


@dataclass
class FileIndex:
    """Nodes collected in one source-order walk (the order edits and aliases are decided in)."""

    classes: list[ast.ClassDef] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    method_calls: dict[str, list[ast.Call]] = field(default_factory=dict)
    attributes: dict[str, list[ast.Attribute]] = field(default_factory=dict)
    packages: set[str] = field(default_factory=set)  # top-level packages imported absolutely
    names: set[str] = field(default_factory=set)  # every name the file binds or uses
    claimed: dict[str, str] = field(default_factory=dict)  # local name -> imported symbol
    #: top-level packages every import of which sits in ``try:`` ... ``except ImportError``
    optional: set[str] = field(default_factory=set)


def source_order(root: ast.AST) -> list[ast.AST]:
    """Every node under ``root`` in source order (decorators before the ``def``/``class``)."""
    out: list[ast.AST] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(_children(node)))
    return out


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _children(node: ast.AST) -> list[ast.AST]:
    """``node``'s children in source order: ``ast.iter_child_nodes``'s, but a definition's
    decorators first (read from ``_fields`` directly: the index walks every node)."""
    children: list[ast.AST] = []
    fields = node._fields
    if isinstance(node, _DEFINITIONS):
        children.extend(node.decorator_list)
        fields = tuple(name for name in fields if name != "decorator_list")
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            children.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


def build_index(tree: ast.Module) -> FileIndex:
    """The :class:`FileIndex` of ``tree``, in one source-order walk: its nodes, the names it
    binds or uses (:func:`names_in`), and which imports sit in a ``try:`` body that catches
    ImportError (:attr:`FileIndex.optional`). Leaves that hold none of these (constants,
    operators, load/store markers) are not visited."""
    index = FileIndex()
    names = index.names
    guarded: set[str] = set()
    required: set[str] = set()
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, inside = pop()
        if isinstance(node, ast.Name):
            names.add(node.id)
            continue  # its only child is its context
        if isinstance(node, ast.Call):
            index.calls.append(node)
            if isinstance(node.func, ast.Attribute):
                index.method_calls.setdefault(node.func.attr, []).append(node)
        elif isinstance(node, ast.Attribute):
            index.attributes.setdefault(node.attr, []).append(node)
        elif isinstance(node, ast.ClassDef):
            index.classes.append(node)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            packages = _imported_packages(node)
            index.packages |= packages
            (guarded if inside else required).update(packages)
        if type(node) in _NAMING:
            _add_names(node, names)
        children = _children(node)
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            body = {id(stmt) for stmt in node.body}
            for child in reversed(children):
                if type(child) not in LEAVES:
                    push((child, inside or id(child) in body))
        else:
            for child in reversed(children):
                if type(child) not in LEAVES:
                    push((child, inside))
    index.optional = guarded - required
    return index


#: Node types that bind or use a name themselves (:func:`_add_names`).
_NAMING = frozenset(
    {ast.Name, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.arg, ast.alias,
     ast.ImportFrom, ast.Global, ast.Nonlocal, ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
     ast.MatchMapping}
)  # fmt: skip


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _imported_packages(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The top-level packages an import statement imports absolutely."""
    if isinstance(node, ast.Import):
        return {alias.name.partition(".")[0] for alias in node.names}
    if node.module and not node.level:
        return {node.module.partition(".")[0]}
    return set()


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(
        (isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS)
        or (isinstance(n, ast.Attribute) and n.attr in _IMPORT_ERRORS)
        for n in names
    )


def names_in(root: ast.AST) -> set[str]:
    """Every name ``root`` binds or uses (``x.consumer`` and ``f(consumer=...)`` take none)."""
    names: set[str] = set()
    for node in ast.walk(root):
        _add_names(node, names)
    return names


def _add_names(node: ast.AST, names: set[str]) -> None:
    """The names ``node`` itself binds or uses (not its children's)."""
    if isinstance(node, ast.Name):
        names.add(node.id)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        names.add(node.name)
    elif isinstance(node, ast.arg):
        names.add(node.arg)
    elif isinstance(node, ast.alias):
        names.add(node.name.partition(".")[0])
        if node.asname:
            names.add(node.asname)
    elif isinstance(node, ast.ImportFrom) and node.module:
        names.add(node.module.partition(".")[0])
    elif isinstance(node, ast.Global | ast.Nonlocal):
        names.update(node.names)
    elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        names.add(node.name)
    elif isinstance(node, ast.MatchMapping) and node.rest:
        names.add(node.rest)
