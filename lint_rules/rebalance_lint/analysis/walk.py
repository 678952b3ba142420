"""Iterate the nodes a function body executes itself (nested defs are yielded, not entered)."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

#: Node types that hold only a value or an operator, never another node or a name:
#: constants, operators and the load/store/del markers.
LEAVES = frozenset(
    {ast.Constant, *(t for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop,
                                    ast.boolop) for t in base.__subclasses__())}
)  # fmt: skip


def body_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> Iterator[ast.AST]:
    """Nodes of ``func``'s body in source order; nested functions/classes are not entered.
    Inside :func:`bodies_kept` each function is walked once (the model's passes and the
    rules walk a callback's body seven times or so)."""
    if not _KEPT:
        return _body_nodes(func)
    kept = _KEPT[-1]
    found = kept.get(id(func))
    if found is None or found[0] is not func:
        found = kept[id(func)] = (func, tuple(_body_nodes(func)))
    return iter(found[1])


def is_generator(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``func`` itself yields (not a function nested in it): its body runs when it is
    iterated, maybe after the rebalance callback that called it returned."""
    return any(isinstance(node, ast.Yield | ast.YieldFrom) for node in body_nodes(func))


#: Inside :func:`bodies_kept`: id of a function -> (the function, its body's nodes).
_KEPT: list[dict[int, tuple[ast.AST, tuple[ast.AST, ...]]]] = []


@contextmanager
def bodies_kept() -> Iterator[None]:
    """Keep each function's body nodes while inside (one repository's check: its trees are
    neither changed nor freed meanwhile); nothing is kept after it."""
    _KEPT.append({})
    try:
        yield
    finally:
        _KEPT.pop()


def _body_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> Iterator[ast.AST]:
    roots: list[ast.AST] = [func.body] if isinstance(func, ast.Lambda) else list(func.body)
    stack = roots[::-1]
    push, extend = stack.append, stack.extend
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            continue
        # ast.iter_child_nodes's children (field order), pushed last first; read directly
        for name in reversed(node._fields):
            value = getattr(node, name, None)
            if isinstance(value, list):
                extend(item for item in reversed(value) if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                push(value)


def nested_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, nested functions included (for closure checks)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(ast.iter_child_nodes(current))


def breadth_first(root: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(root)``'s nodes in its order, but none of the :data:`LEAVES` (they are
    most of a tree's nodes, and nothing that looks for names, calls or imports needs them)."""
    queue = deque([root])
    popleft, append = queue.popleft, queue.append
    while queue:
        node = popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and type(item) not in LEAVES:
                        append(item)
            elif isinstance(value, ast.AST) and type(value) not in LEAVES:
                append(value)
        yield node
