"""KRB106: an aiokafka consumer coroutine called and dropped inside a callback."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import AIOKAFKA_COROUTINES
from rebalance_lint.analysis.model import Analysis, Callback
from rebalance_lint.rules.rule import Hit, Rule, consumer_method

COROUTINE_NOT_AWAITED = Rule(
    code="KRB106",
    name="consumer-coroutine-not-awaited",
    template=(
        "{method}() returns a coroutine that {callback} never awaits: the {effect} "
        "silently never happens; {fix}"
    ),
    rationale=(
        "aiokafka's `commit`, `seek_to_*`, `position`, `committed` and offset queries are "
        "coroutines. Calling one without `await` creates a coroutine object and drops it: "
        "nothing is committed or moved, and the only trace is a RuntimeWarning."
    ),
    fix=(
        "`await` every aiokafka consumer coroutine; a callback that needs one must be `async def`."
    ),
    invalid=(
        """\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    valid=(
        """\
from aiokafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked):
        await self.consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
""",
    ),
)


@COROUTINE_NOT_AWAITED.in_callbacks(ast.Expr)
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
    yield COROUTINE_NOT_AWAITED.hit(
        node.value, method=method, callback=callback.label, effect=effect, fix=fix
    )
