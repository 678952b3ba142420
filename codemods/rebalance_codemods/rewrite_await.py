"""LibCST editor for the kafka-python async listener shape: a call of a method that is a
coroutine on the async view (``consumer.commit()``) becomes ``await consumer.commit()``."""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import Editor, NodeEdit, _Finder


def _await_call(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``f(x)`` -> ``await f(x)``; ``(await f(x))`` where it is the operand of an attribute,
    a subscript or a call (``await`` binds looser than those)."""

    def change(node: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(node, cst.Call)
        inner = node.with_changes(lpar=(), rpar=())
        if edit.index == 1:
            return cst.Await(inner, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Await(inner, lpar=node.lpar, rpar=node.rpar)

    return finder.find(edit.target, cst.Call), change


EDITORS: dict[str, Editor] = {"await_call": _await_call}
