"""Local names for imported ``rebalance_guard`` symbols and for the view parameter."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Scope

from rebalance_codemods.plan import Plan

VIEW_NAMES = ("consumer", "rebalance_consumer", "view")


def guard_name(
    scope: Scope | None, taken: set[str], claimed: dict[str, str], module: str, obj: str, plan: Plan
) -> str:
    """Schedule ``from module import obj`` and return the name to use for it.

    A name the file already uses for something else, anywhere (the aiokafka docs call their
    own listener class ``RebalanceListener``; a function may have a local ``subscribe``), or
    one this run already gave to another client's symbol (a file using kafka-python and
    aiokafka needs two ``set_rebalance_listener``), gets the import aliased, not shadowed.
    """
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
        if (
            scope is not None
            and candidate in scope
            and {q.name for q in scope.get_qualified_names_for(candidate)} == {wanted}
        ):
            local = candidate
            break
    claimed[local] = wanted
    plan.imports.add((module, obj, None if local == obj else local))
    return local


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # ``x.consumer`` does not take the name ``consumer``
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # neither does ``f(consumer=...)``
        return False


def names_in(node: cst.CSTNode) -> set[str]:
    collector = _Names()
    node.visit(collector)
    return collector.names


def view_name(function: cst.FunctionDef) -> str | None:
    """A parameter name for the view that nothing in ``function`` already uses."""
    taken = names_in(function)
    return next((name for name in VIEW_NAMES if name not in taken), None)
