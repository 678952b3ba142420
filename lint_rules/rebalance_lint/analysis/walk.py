"""Iterate the nodes a function body executes itself (nested defs are yielded, not entered)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def body_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> Iterator[ast.AST]:
    """Nodes of ``func``'s body in source order; nested functions/classes are not entered."""
    roots: list[ast.AST] = [func.body] if isinstance(func, ast.Lambda) else list(func.body)
    stack = roots[::-1]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED):
            continue
        children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


def nested_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node``, nested functions included (for closure checks)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(ast.iter_child_nodes(current))
