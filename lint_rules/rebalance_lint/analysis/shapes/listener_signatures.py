"""Shape: a legacy listener's callback methods, ``(self, partitions)`` each: the view is
appended as their second parameter (under a decorator only if it passes calls through:
:mod:`.transparent_decorators`); other signatures, decorators and async methods where the
client has none are refused (returned values: :mod:`.returned_values`)."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.defaulted_parameters import extra_defaulted
from rebalance_lint.analysis.shapes.transparent_decorators import (
    decorated_refusal,
    passes_calls_through,
)


def _callback_shape(fn: Function, client: ClientFacts, facts: FileFacts) -> str | None:
    args = fn.args
    label = fn.name
    if fn.decorator_list and not passes_calls_through(fn, facts, method=True):
        return decorated_refusal(label)
    if isinstance(fn, ast.AsyncFunctionDef) and not client.async_callbacks:
        return (
            f"{label} is async, which {client.name} listeners cannot be; make it a plain def first"
        )
    extra = extra_defaulted(args, 2)  # (self, partitions, flag=True): the client passes one
    if args.vararg or args.kwarg or (args.kwonlyargs and not extra):
        return (
            f"{label} takes *args, keyword-only or **kwargs parameters; "
            "take (self, partitions) first"
        )
    if (args.posonlyargs or len(args.args) != 2) and not extra:
        return f"{label} does not take exactly (self, partitions); fix its signature first (KRB109)"
    if args.defaults and not extra:
        return f"{label} has parameter defaults; remove them first"
    return None  # a returned value: .returned_values, once the view's edits are known


SHAPE = Shape(
    name="listener callback signatures",
    planner="listeners",
    recognises=("on_partitions_assigned/revoked/lost defined in a legacy listener class"),
    plan=("append_param (the view)"),
    fixtures=(
        "tests/codemods/test_kafka_python.py",
        "tests/codemods/test_aiokafka.py",
        "tests/codemods/test_refusals.py",
    ),
)
