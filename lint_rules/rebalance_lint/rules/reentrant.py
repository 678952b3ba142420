"""KRB101 and KRB110: consumer calls that re-enter or reshape a rebalance from inside it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import FORBIDDEN
from rebalance_lint.analysis.model import Analysis, Callback, dotted
from rebalance_lint.rules.registry import Hit, consumer_method, on

_WHY = {
    **dict.fromkeys(
        ("poll", "consume", "getone", "getmany"), "(re-entrant poll inside the rebalance)"
    ),
    **dict.fromkeys(("close", "stop"), "(closes the consumer mid-rebalance)"),
    "start": "(restarts the consumer mid-rebalance)",
    **dict.fromkeys(
        ("subscribe", "unsubscribe", "assign", "unassign", "incremental_assign",
         "incremental_unassign"),
        "(changes the subscription or assignment mid-rebalance)",
    ),
    **dict.fromkeys(("wakeup", "enforce_rebalance"), "(interrupts the rebalance in progress)"),
}  # fmt: skip
_CONFLUENT_ASSIGNMENT = {
    "assign": "set start offsets with seek() on the rebalance view",
    "incremental_assign": "set start offsets with seek() on the rebalance view",
    "unassign": "drop the call, the client releases the partitions itself",
    "incremental_unassign": "drop the call, the client releases the partitions itself",
}


@on(ast.Call)
def forbidden_call(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    found = consumer_method(node, callback)
    if found is None or found[0] not in FORBIDDEN:
        return
    method = found[0]
    if callback.api == "confluent" and method in _CONFLUENT_ASSIGNMENT:
        fields = {
            "method": method,
            "callback": callback.label,
            "fix": _CONFLUENT_ASSIGNMENT[method],
        }
        yield Hit(node, "KRB110", fields)
        return
    yield Hit(
        node, "KRB101", {"method": f"{method}()", "callback": callback.label, "why": _WHY[method]}
    )


@on(ast.For, ast.AsyncFor)
def iteration(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    assert isinstance(node, ast.For | ast.AsyncFor)
    if dotted(node.iter) in callback.receivers:
        yield Hit(
            node.iter,
            "KRB101",
            {"method": "iterating", "callback": callback.label, "why": _WHY["poll"]},
        )
