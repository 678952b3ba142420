"""Shape: a consumer coroutine called without ``await`` in a callback (KRB106): the call
never ran; moved to the view it would become a new type error and still not run, so it is
refused until the await is added."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def dropped_coroutine(
    call: ast.Call, name: str, client: ClientFacts, facts: FileFacts
) -> str | None:
    """Why ``consumer.<name>()`` as a bare statement cannot move to the view: the client's
    method is a coroutine nobody awaits, so the call never ran (KRB106); as the view's it
    would show up as a new type error (an unused coroutine) and still not run."""
    if name in client.coroutine_methods and isinstance(facts.parent(call), ast.Expr):
        return (
            f"calls consumer.{name}() without await (line {call.lineno}), so the call never "
            "ran (KRB106); add the await first"
        )
    return None


SHAPE = Shape(
    name="unawaited consumer coroutines",
    planner="shared",
    recognises=(
        "a bare-statement call of a coroutine method of the client on the consumer a "
        "callback reaches"
    ),
    plan=("refusal"),
    fixtures=(
        "tests/codemods/test_listener_attribute.py",
        "tests/codemods/test_confluent_aio.py",
    ),
)
