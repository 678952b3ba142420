"""KRB113: ``None`` given for a confluent-kafka rebalance callback."""

from __future__ import annotations

from collections.abc import Iterator

from rebalance_lint.analysis.clients import takes_callbacks
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
    },
    template=(
        "{given} is not 'no callback' for confluent-kafka: {fails}; leave it out (pass the "
        "callbacks after it by keyword)"
    ),
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
    ),
    valid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

consumer = Consumer({"group.id": "g"})
consumer.subscribe(["orders"], on_revoke=on_revoke)
""",
    ),
)

_ROLES = ("on_assign", "on_revoke", "on_lost")


@NONE_CALLBACK.per_file
def none_callback(analysis: Analysis) -> Iterator[Hit]:
    for reg in analysis.registrations:
        if reg.guard or not takes_callbacks(reg.client) or reg.own_subscribe is not None:
            continue
        passed = [(role, arg) for role, arg in zip(_ROLES, reg.call.args[1:], strict=False)]
        passed += [(kw.arg, kw.value) for kw in reg.call.keywords if kw.arg in _ROLES]
        for role, value in passed:
            if not is_none(value):
                continue
            by_keyword = any(value is kw.value for kw in reg.call.keywords)
            fails = (
                "AIOConsumer wraps it and the first rebalance calls None (TypeError)"
                if reg.client == "confluent_aio" and by_keyword
                else "subscribe() raises TypeError (it expects a callable)"
            )
            given = f"{role}=None" if by_keyword else f"None in {role}'s position"
            yield NONE_CALLBACK.hit(value, given=given, fails=fails)
