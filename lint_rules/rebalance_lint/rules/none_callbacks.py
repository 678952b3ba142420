"""KRB113: ``None`` given for a confluent-kafka rebalance callback."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS

from rebalance_lint.analysis.clients import takes_callbacks
from rebalance_lint.analysis.collect import param_default
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.rules.rule import Hit, KindCase, Rule

NONE_CALLBACK = Rule(
    code="KRB113",
    name="none-callback",
    kinds={
        "none": KindCase(
            "bug",
            "`None` passed for `on_assign`, `on_revoke` or `on_lost` to confluent-kafka's "
            "`subscribe()`",
            "`Consumer.subscribe()` raises TypeError (each callback must be callable or left "
            "out); `AIOConsumer` given it by keyword fails at the first rebalance.",
        ),
        "default": KindCase(
            "risk",
            "a parameter whose default is `None`, passed on as the callback and used nowhere "
            "else in its function (`def start(topics, on_assign=None)`)",
            "a call of that function that leaves the argument out hands `subscribe()` that "
            "`None` and fails as `None` given directly does; calls that pass a callback work.",
        ),
    },
    template=("{given} is not 'no callback' for confluent-kafka: {fails}; {fix}"),
    rationale=(
        "confluent-kafka's `Consumer.subscribe(topics, on_assign, on_revoke, on_lost)` checks "
        "that each callback it is given is callable, and `None` is not: the call raises "
        "`TypeError: on_assign expects a callable`, by keyword or by position. "
        "`AIOConsumer.subscribe()` hands positional arguments to it unchanged and wraps "
        "keyword callbacks in a coroutine caller, which fails when the first rebalance calls "
        "`None`. Code that forwards optional callbacks must leave out the ones it lacks."
    ),
    fix=(
        "Leave the argument out: pass only the callbacks you have, by keyword "
        "(`subscribe(topics, on_revoke=on_revoke)`), building the keywords conditionally if "
        "they are optional."
    ),
    invalid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

consumer = Consumer({"group.id": "g"})
consumer.subscribe(["orders"], None, on_revoke)
""",
        """\
from confluent_kafka import Consumer

def start(topics, on_assign=None):
    consumer = Consumer({"group.id": "g"})
    consumer.subscribe(topics, on_assign=on_assign)
    return consumer
""",
    ),
    valid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

consumer = Consumer({"group.id": "g"})
consumer.subscribe(["orders"], on_revoke=on_revoke)
""",
        """\
from confluent_kafka import Consumer

def start(topics, on_assign=None):
    consumer = Consumer({"group.id": "g"})
    callbacks = {"on_assign": on_assign} if on_assign is not None else {}
    consumer.subscribe(topics, **callbacks)
    return consumer
""",
    ),
)

_ROLES = tuple(SUBSCRIBE_CALLBACKS)  # also positions 1-3


@NONE_CALLBACK.per_file
def none_callback(analysis: Analysis) -> Iterator[Hit]:
    for reg in analysis.registrations:
        if reg.guard or not takes_callbacks(reg.client) or reg.own_subscribe is not None:
            continue
        passed = [(role, arg) for role, arg in zip(_ROLES, reg.call.args[1:], strict=False)]
        passed += [(kw.arg, kw.value) for kw in reg.call.keywords if kw.arg in _ROLES]
        for role, value in passed:
            defaulted = _none_default(value, reg.scope.node)
            if not is_none(value) and defaulted is None:
                continue
            by_keyword = any(value is kw.value for kw in reg.call.keywords)
            fails = (
                "AIOConsumer wraps it and the first rebalance calls None (TypeError)"
                if reg.client == "confluent_aio" and by_keyword
                else "subscribe() raises TypeError (it expects a callable)"
            )
            if defaulted is not None:
                function = _name(reg.scope.node)
                if function == "__init__" and reg.scope.cls is not None:
                    function = reg.scope.cls.name
                yield NONE_CALLBACK.hit(
                    value,
                    case="default",
                    given=f"{defaulted.id} (None in every call of {function}() that omits it)",
                    fails=fails,
                    fix=f"pass {role}= only when {function}() is given one (build the keywords "
                    "conditionally), or drop the None default",
                )
                continue
            yield NONE_CALLBACK.hit(
                value,
                case="none",
                given=f"{role}=None" if by_keyword else f"None in {role}'s position",
                fails=fails,
                fix="leave it out (pass the callbacks after it by keyword)",
            )


def _none_default(value: ast.expr, function: ast.AST) -> ast.Name | None:
    """``value`` when it names a parameter of ``function`` defaulting to ``None`` that the
    function reads nowhere else (so nothing tests it, rebinds it or passes it on instead)."""
    if not isinstance(value, ast.Name) or not isinstance(
        function, ast.FunctionDef | ast.AsyncFunctionDef
    ):
        return None
    default = param_default(function, value.id)
    if default is None or not is_none(default):
        return None
    uses = sum(value.id in _names(node) for node in ast.walk(function))
    return value if uses == 2 else None  # the parameter itself and this one use


def _names(node: ast.AST) -> list[str]:
    """The names a node reads or binds."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    return node.names if isinstance(node, ast.Global | ast.Nonlocal) else []


def _name(function: ast.AST) -> str:
    return function.name if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) else ""
