"""What the LibCST editors share: how a planned span is found in the LibCST tree (an ``ast``
span converted from UTF-8 byte columns to LibCST's code-point columns, and the node kind the
action expects), and the types of an edit."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

import libcst as cst
from libcst.metadata import CodeRange
from rebalance_lint.analysis.edits import Edit, Span

Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]


#: An edit receives the updated node (children already rewritten) and returns its replacement.
NodeEdit = Callable[[cst.CSTNode], Replacement]


Key = tuple[int, int, int, int]


T = TypeVar("T", bound=cst.CSTNode)


#: ``find`` takes a concrete type; every expression node derives from this one.
_EXPRESSION: type[cst.BaseExpression] = cst.BaseExpression  # type: ignore[type-abstract]


LISTENER_POSITION = 2  # subscribe(topics=(), pattern=None, listener=None) in both clients


class PlanMismatch(Exception):
    """A planned span has no node of the expected kind: the plan and the tree disagree."""


class _Finder:
    def __init__(
        self,
        module: cst.Module,
        positions: Mapping[cst.CSTNode, CodeRange],
        parents: Mapping[cst.CSTNode, cst.CSTNode],
    ) -> None:
        self._lines = re.split("\r\n|\r|\n", module.code)
        self._parents = parents
        self._by_range: dict[Key, list[cst.CSTNode]] = {}
        for node, where in positions.items():
            key = (where.start.line, where.start.column, where.end.line, where.end.column)
            self._by_range.setdefault(key, []).append(node)

    def _column(self, line: int, byte_col: int) -> int:
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def find(self, span: Span, kind: type[T]) -> T:
        key = (
            span.line,
            self._column(span.line, span.col),
            span.end_line,
            self._column(span.end_line, span.end_col),
        )
        for node in self._by_range.get(key, ()):
            if isinstance(node, kind):
                return node
        raise PlanMismatch(f"no {kind.__name__} at {span}")

    def parent(self, node: cst.CSTNode) -> cst.CSTNode:
        return self._parents[node]


Editor = Callable[[Edit, _Finder], tuple[cst.CSTNode, NodeEdit]]


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _dotted(name: str) -> cst.Name | cst.Attribute:
    head, _, attr = name.rpartition(".")
    if not head:
        return cst.Name(name)
    return cst.Attribute(value=_dotted(head), attr=cst.Name(attr))
