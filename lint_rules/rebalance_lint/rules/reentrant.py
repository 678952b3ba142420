"""KRB101 and KRB110: consumer calls that re-enter or reshape a rebalance from inside it."""

from __future__ import annotations

from collections.abc import Iterator

from rebalance_lint.analysis.clients import FORBIDDEN
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.rules.rule import Hit, Rule

FORBIDDEN_CONSUMER_CALL = Rule(
    code="KRB101",
    name="forbidden-consumer-call-in-callback",
    template=(
        "{method} on the consumer inside {callback} {why}; "
        "do it outside the callback (not on the rebalance view)"
    ),
    rationale=(
        "A rebalance callback runs inside `poll()`. Polling again re-enters the group "
        "protocol, closing the consumer tears it down mid-rebalance, and changing the "
        "subscription or assignment from the callback corrupts the rebalance in progress. "
        "KIP-1306 leaves these methods off the `RebalanceConsumer` view."
    ),
    fix=(
        "Move polling, closing and subscription changes out of the callback: do them in "
        "the poll loop after `poll()` returns. Inside the callback use only what the view"
        " offers (commit, seek, position, pause, ...)."
    ),
    invalid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.poll(0)  # drain before giving the partitions up

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke)
""",
    ),
    valid=(
        """\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke)
""",
    ),
)


ASSIGN_IN_CONFLUENT_ON_ASSIGN = Rule(
    code="KRB110",
    name="assign-inside-confluent-on-assign",
    template=(
        "{method}() inside confluent callback {callback}: under KIP-1306 the client owns "
        "the assignment; {fix}"
    ),
    rationale=(
        "Raw confluent-kafka code sets start offsets by calling `assign()` or "
        "`incremental_assign()` from `on_assign`; that works on confluent but not on the "
        "KIP-1306 view, where assignment belongs to the client and offsets are set with "
        "`seek()`. A separate code, so teams staying on raw confluent can disable it."
    ),
    fix=(
        "Set start offsets with `seek()` on the rebalance_guard view; the adapter assigns"
        " the partitions itself."
    ),
    invalid=(
        """\
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    for tp in partitions:
        tp.offset = 0
    consumer.assign(partitions)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
    valid=(
        """\
from confluent_kafka import Consumer

def on_assign(consumer, partitions):
    print("assigned", partitions)

c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_assign=on_assign)
""",
    ),
)

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


def _forbidden_method(effect: Effect) -> str | None:
    """The omitted method an effect calls, or "iterating" for a loop over the consumer."""
    if effect.kind == "iterate":
        return "iterating"
    return effect.name if effect.kind == "call" and effect.name in FORBIDDEN else None


def _confluent_assignment(method: str, callback: Callback) -> bool:
    """assign/unassign from a raw confluent callback: KRB110's, not KRB101's."""
    return callback.api == "confluent" and method in _CONFLUENT_ASSIGNMENT


@FORBIDDEN_CONSUMER_CALL.on_effects
def forbidden_call(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    method = _forbidden_method(effect)
    if method is None or _confluent_assignment(method, callback):
        return
    yield FORBIDDEN_CONSUMER_CALL.hit(
        effect.anchor,
        method=method if effect.kind == "iterate" else f"{method}()",
        callback=effect.label(callback.label),
        why=_WHY["poll" if effect.kind == "iterate" else method],
    )


@ASSIGN_IN_CONFLUENT_ON_ASSIGN.on_effects
def confluent_assignment(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    method = _forbidden_method(effect)
    if method is not None and _confluent_assignment(method, callback):
        yield ASSIGN_IN_CONFLUENT_ON_ASSIGN.hit(
            effect.anchor,
            method=method,
            callback=effect.label(callback.label),
            fix=_CONFLUENT_ASSIGNMENT[method],
        )
