"""Turn a migration plan's edits into LibCST changes: find each span's node, then edit it.

The plan (``rebalance_lint.analysis.migration``, or ``rebalance_lint.analysis.fixes`` for the
KRB103/KRB104 auto-fixes) decided everything from the ``ast`` model;
this module only locates the planned nodes in the LibCST tree (an ``ast`` span converted from
UTF-8 byte columns to LibCST's code-point columns, and the node kind the action expects) and
builds the replacement. Nothing here decides whether a site may be migrated.

The editors live by the shapes whose actions they apply (:mod:`.rewrite_listeners`,
:mod:`.rewrite_gather`, :mod:`.rewrite_forward`, :mod:`.rewrite_owner`, :mod:`.rewrite_fixes`,
:mod:`.rewrite_await`, :mod:`.rewrite_owner_methods`); the import block is
tidied by :mod:`.rewrite_imports`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange
from rebalance_lint.analysis.edits import MigrationPlan

from rebalance_codemods import (
    rewrite_await,
    rewrite_fixes,
    rewrite_forward,
    rewrite_gather,
    rewrite_imports,
    rewrite_listeners,
    rewrite_owner,
    rewrite_owner_methods,
)
from rebalance_codemods.rewrite_base import (
    _EXPRESSION,
    Editor,
    NodeEdit,
    PlanMismatch,
    Replacement,
    _Finder,
)
from rebalance_codemods.rewrite_imports import tidy_imports


@dataclass
class Located:
    """The plan's edits keyed by the original LibCST nodes they apply to."""

    edits: dict[cst.CSTNode, list[NodeEdit]]
    unused_imports: list[cst.BaseExpression]


def locate(
    plan: MigrationPlan,
    module: cst.Module,
    positions: Mapping[cst.CSTNode, CodeRange],
    parents: Mapping[cst.CSTNode, cst.CSTNode],
) -> Located:
    """Key every edit of ``plan`` by its node in ``module`` (positions from PositionProvider)."""
    finder = _Finder(module, positions, parents)
    edits: dict[cst.CSTNode, list[NodeEdit]] = {}
    for edit in plan.edits:
        node, change = _EDITORS[edit.action](edit, finder)
        edits.setdefault(node, []).append(change)
    unused = [finder.find(span, _EXPRESSION) for span in plan.unused_imports]
    return Located(edits, unused)


def apply(edits: list[NodeEdit], node: cst.CSTNode) -> Replacement:
    """Run ``edits`` in order; a removal or split ends the chain."""
    result: Replacement = node
    for edit in edits:
        if not isinstance(result, cst.CSTNode):
            break
        result = edit(result)
    return result


#: Every action's editor, from the editor modules.
_EDITORS: dict[str, Editor] = {
    **rewrite_listeners.EDITORS,
    **rewrite_gather.EDITORS,
    **rewrite_forward.EDITORS,
    **rewrite_imports.EDITORS,
    **rewrite_owner.EDITORS,
    **rewrite_owner_methods.EDITORS,
    **rewrite_fixes.EDITORS,
    **rewrite_await.EDITORS,
}

__all__ = ["Located", "NodeEdit", "PlanMismatch", "Replacement", "apply", "locate", "tidy_imports"]
