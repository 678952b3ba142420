"""KRB105 and KRB108: calls that block where a rebalance callback must not block."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import KAFKA_PYTHON_BLOCKING
from rebalance_lint.analysis.model import Analysis, Callback
from rebalance_lint.rules.registry import Hit, consumer_method, on

_HTTP_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "request")
#: Fully qualified functions that block the calling thread for I/O or time.
BLOCKING_FUNCTIONS = frozenset(
    {"time.sleep", "urllib.request.urlopen", "socket.create_connection"}
    | {f"{lib}.{verb}" for lib in ("requests", "httpx") for verb in _HTTP_VERBS}
    | {f"subprocess.{f}" for f in ("run", "call", "check_call", "check_output")}
)


@on(ast.Call)
def blocking_on_io_thread(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    if callback.client != "kafka_python" or callback.api != "legacy":
        return
    found = consumer_method(node, callback)
    if found is not None and found[0] in KAFKA_PYTHON_BLOCKING and found[1] == "injected":
        yield Hit(node, "KRB105", {"method": found[0], "callback": callback.label})


@on(ast.Call)
def blocking_work(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    assert isinstance(node, ast.Call)
    qualname = analysis.imports.resolve(node.func)
    if qualname not in BLOCKING_FUNCTIONS:
        return
    if isinstance(callback.func, ast.AsyncFunctionDef):
        why = "it blocks the event loop, heartbeats included (await an async equivalent)"
    else:
        why = "the consumer can neither poll nor finish the rebalance meanwhile"
    yield Hit(node, "KRB108", {"call": qualname or "", "callback": callback.label, "why": why})
