"""Plan first, then rewrite: the analysis decides every edit before the tree is touched.

A migration is all-or-nothing per listener (its class, its constructor calls, its
``subscribe()`` sites), so planners stage edits in a :class:`Plan` and merge them only when
every part of the unit is safe; a refused unit leaves its source byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from rebalance_codemods.api import ManualSite

Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]
#: An edit receives the updated node (children already rewritten) and returns its replacement.
Edit = Callable[[cst.CSTNode], Replacement]


@dataclass
class Plan:
    """Edits keyed by original node, imports to add or drop, and what was refused."""

    edits: dict[cst.CSTNode, list[Edit]] = field(default_factory=dict)
    imports: set[tuple[str, str, str | None]] = field(default_factory=set)
    unused_import_nodes: list[cst.CSTNode] = field(default_factory=list)
    manual: list[ManualSite] = field(default_factory=list)
    sites: int = 0

    def edit(self, node: cst.CSTNode, edit: Edit) -> None:
        self.edits.setdefault(node, []).append(edit)

    def refuse(self, line: int, reason: str) -> None:
        self.manual.append(ManualSite(line, reason))

    def merge(self, other: Plan) -> None:
        for node, edits in other.edits.items():
            self.edits.setdefault(node, []).extend(edits)
        self.imports |= other.imports
        self.unused_import_nodes.extend(other.unused_import_nodes)
        self.manual.extend(other.manual)
        self.sites += other.sites


def apply(edits: list[Edit], node: cst.CSTNode) -> Replacement:
    """Run ``edits`` in order; a removal or split ends the chain."""
    result: Replacement = node
    for edit in edits:
        if not isinstance(result, cst.CSTNode):
            break
        result = edit(result)
    return result
