"""KRB106: an aiokafka consumer coroutine called and dropped inside a callback."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import AIOKAFKA_COROUTINES
from rebalance_lint.analysis.model import Analysis, Callback
from rebalance_lint.rules.registry import Hit, consumer_method, on


@on(ast.Expr)
def coroutine_dropped(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    assert isinstance(node, ast.Expr)
    if callback.client != "aiokafka" or not isinstance(node.value, ast.Call):
        return
    found = consumer_method(node.value, callback)
    if found is None or found[0] not in AIOKAFKA_COROUTINES:
        return
    method = found[0]
    effect = "commit" if "commit" in method else ("seek" if "seek" in method else "call")
    if isinstance(callback.func, ast.AsyncFunctionDef):
        fix = f"write await {method}(...)"
    else:
        fix = f"make the callback async def and await {method}(...)"
    fields = {"method": method, "callback": callback.label, "effect": effect, "fix": fix}
    yield Hit(node.value, "KRB106", fields)
