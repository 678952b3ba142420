"""Shape: callbacks passed positionally to confluent's ``AIOConsumer.subscribe()``
(REAL_WORLD.md: ``await consumer.subscribe([topic], None, on_revoke_digest)``).

``AIOConsumer.subscribe(*args, **kwargs)`` wraps only the ``on_assign``/``on_revoke``/
``on_lost`` keywords; its positional arguments go unwrapped to the underlying
``Consumer.subscribe(topics, on_assign=None, on_revoke=None, on_lost=None)``, in that order
(:func:`.migration_expressions.find_arg` maps them). An ``async def`` passed there is
called, never awaited, and never runs (KRB111, a bug): the fix KRB111 names is to pass it by
keyword or to register a RebalanceListener, which is what the migration does (the keyword
shape's plan, positions mapped to the keywords): migrated, the callback runs, awaited, as
its author meant. A plain ``def`` (or lambda) passed positionally runs today, synchronously,
given the underlying ``Consumer``; the migrated listener's methods are ``async def`` taking
the async view, so it is refused, with that step."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS
from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class
from rebalance_lint.analysis.shape import Shape


def positional_sync_callback(
    call: ast.Call, values: list[ast.expr | None], client: ClientFacts, facts: FileFacts
) -> str | None:
    """Why the positional callbacks of an AIOConsumer ``subscribe()`` cannot be migrated as
    keywords: one of them is a plain ``def`` or a lambda (it runs today, synchronously)."""
    if not client.async_callbacks:
        return None
    positional = call.args[1:]
    for keyword, value in zip(CONFLUENT_CALLBACKS, values, strict=True):
        if value is None or is_none(value) or not any(value is arg for arg in positional):
            continue
        if _synchronous(value, facts):
            return (
                f"{keyword}= {ast.unparse(value)} is passed positionally to AIOConsumer."
                "subscribe(), which runs a plain def synchronously with the underlying "
                "Consumer; the migrated listener's methods are async def taking the async "
                f"view: make it async def awaiting the consumer's calls and pass it by "
                f"keyword ({keyword}=...) first"
            )
    return None


def _synchronous(value: ast.expr, facts: FileFacts) -> bool:
    """Whether ``value`` is a lambda or names a plain ``def`` of this file (through a
    variable bound once, a ``functools.partial``, or ``self.<method>`` of the class)."""
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Call):
        partial = "functools.partial" in facts.qualnames(value.func)
        return partial and bool(value.args) and _synchronous(value.args[0], facts)
    if isinstance(value, ast.Name):
        binding = facts.bindings.binding(value)
        if isinstance(binding, ast.FunctionDef):
            return True
        found = facts.sole_assignment(value)
        return found is not None and _synchronous(found[1], facts)
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        owner = self_class(value.value, facts)
        method = methods_of(owner).get(value.attr) if owner is not None else None
        return isinstance(method, ast.FunctionDef)
    return False


SHAPE = Shape(
    name="callbacks passed positionally to AIOConsumer.subscribe()",
    planner="confluent",
    recognises=(
        "subscribe(topics, on_assign, on_revoke, on_lost) by position on an AIOConsumer: "
        "async def callbacks KRB111 reports as never run"
    ),
    plan="the keyword shapes' plans, the positions mapped to on_assign/on_revoke/on_lost",
    fixtures=(
        "tests/codemods/test_aio_positional_callbacks.py",
        "tests/codemods/fixtures/aio_positional_callbacks.py",
    ),
)
