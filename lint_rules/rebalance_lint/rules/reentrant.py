"""KRB101 and KRB110: consumer calls that re-enter or reshape a rebalance from inside it."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from rebalance_lint.analysis.clients import FORBIDDEN
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.analysis.protocols import group_protocol
from rebalance_lint.rules.rule import Hit, KindCase, Rule

FORBIDDEN_CONSUMER_CALL = Rule(
    code="KRB101",
    name="forbidden-consumer-call-in-callback",
    kinds={
        "call": KindCase(
            "bug",
            "any of these calls on a consumer inside a rebalance callback, on every client",
            "none of them can do what it says from inside the rebalance: kafka-python 3 raises "
            "RuntimeError for the blocking ones on its IO thread and IllegalStateError for "
            "`assign()` on a subscribed consumer, a re-entrant `poll()` re-enters the group "
            "protocol, `close()` leaves the group mid-rebalance and `wakeup()` makes the "
            "`poll()` running the callback raise. Java's consumer refuses them (KIP-1306).",
        ),
    },
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
    kinds={
        "protocol_checked": KindCase(
            "advice",
            "the call sits under an `if` that tests the protocol (a name or expression with "
            "cooperative, incremental, eager, sticky, protocol or KIP-848 in it)",
            "the code picks `assign()` or `incremental_assign()` by the protocol it runs "
            "under, as librdkafka requires, so the rule has no mismatch to claim whatever "
            "the file configures; the view does the assignment itself.",
        ),
        "eager": KindCase(
            "advice",
            "`assign()`/`unassign()` and the file configures its consumer with an eager "
            "strategy or none (librdkafka's default `range,roundrobin`)",
            "confluent's documented way to set start offsets; it works. Under KIP-1306 the "
            "client owns the assignment and offsets are set with `seek()` on the view.",
        ),
        "eager_unseen": KindCase(
            "advice",
            "`assign()`/`unassign()` and the consumer's configuration is not in the file "
            "(built from the environment or a file, `**` spread, another module)",
            "right under librdkafka's default eager protocol, which is what code written "
            "with plain `assign()` expects; if the configuration elsewhere selects "
            "cooperative-sticky or `group.protocol=consumer`, librdkafka refuses it (then a "
            "bug the rule cannot see).",
        ),
        "incremental": KindCase(
            "advice",
            "`incremental_assign()`/`incremental_unassign()` and the file selects "
            "cooperative-sticky or `group.protocol=consumer`",
            "the documented call for incremental protocols; it works. The view offers "
            "`seek()` instead.",
        ),
        "incremental_unseen": KindCase(
            "advice",
            "`incremental_assign()`/`incremental_unassign()` and the consumer's configuration "
            "is not in the file",
            "code written with the incremental calls is written for an incremental protocol, "
            "configured where the rule cannot see it (in the sample that showed this case, "
            "the project's shared `consumer_config()` set cooperative-sticky); the call is "
            "then the documented one. Were that configuration eager, librdkafka would refuse "
            "it (a bug the rule cannot see), so the message names the condition.",
        ),
        "plain_under_incremental": KindCase(
            "bug",
            "`assign()`/`unassign()` and the file selects cooperative-sticky or "
            "`group.protocol=consumer`",
            "librdkafka refuses a full assignment under an incremental protocol (`_STATE`; "
            "confluent-kafka-python #1040; KIP-848 allows only incremental calls): the "
            "start offsets are never set.",
        ),
        "incremental_under_eager": KindCase(
            "bug",
            "`incremental_assign()`/`incremental_unassign()` and the file configures its "
            "consumer with an eager strategy or none",
            "librdkafka refuses an incremental assignment under an eager protocol (`_STATE`): "
            "the start offsets are never set.",
        ),
    },
    template=("{method}() inside confluent callback {callback}: {why}; {fix}"),
    rationale=(
        "Raw confluent-kafka code sets start offsets by calling `assign()` or "
        "`incremental_assign()` from `on_assign`; that works on confluent but not on the "
        "KIP-1306 view, where assignment belongs to the client and offsets are set with "
        "`seek()`. librdkafka takes only one of the two calls, by protocol: `assign()` under "
        "the eager protocols (its default), `incremental_assign()` under cooperative-sticky "
        "and KIP-848's `group.protocol=consumer`; the wrong one is refused with `_STATE` and "
        "the partitions are not assigned. A separate code, so teams staying on raw "
        "confluent can disable it."
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


_KIP_1306 = "works on confluent, but under KIP-1306 the client owns the assignment"
#: Per case: what is wrong, and the fix when it is not the migration's.
_ASSIGNMENT_TEXT = {
    "protocol_checked": (_KIP_1306 + " (the call is chosen by protocol at run time)", ""),
    "eager": (_KIP_1306, ""),
    "eager_unseen": (_KIP_1306, ""),
    "incremental": (_KIP_1306, ""),
    "incremental_unseen": (
        _KIP_1306 + " (right under the cooperative-sticky or consumer protocol the "
        "configuration outside this file must select: the eager default refuses it)",
        "",
    ),
    "plain_under_incremental": (
        "librdkafka refuses it under the incremental protocol this file selects "
        "(cooperative-sticky or group.protocol=consumer)",
        "call incremental_{method}() here, or move to the rebalance view",
    ),
    "incremental_under_eager": (
        "librdkafka refuses it under the eager protocol this file's consumer uses (no "
        "cooperative-sticky, no group.protocol=consumer)",
        "call {plain}() here (or configure cooperative-sticky), or move to the rebalance view",
    ),
}


#: Words that say a condition tests the group protocol (``if self.__is_kip848:``).
_PROTOCOL_TEST = re.compile(r"cooperative|incremental|eager|sticky|protocol|kip_?848", re.I)


def _protocol_checked(effect: Effect, callback: Callback) -> bool:
    """The call is under an ``if`` (or conditional expression) that tests the protocol."""
    if effect.via or isinstance(callback.func, ast.Lambda):
        return False
    for node in ast.walk(callback.func):
        if isinstance(node, ast.If | ast.IfExp) and _PROTOCOL_TEST.search(ast.unparse(node.test)):
            branches = [node.body, node.orelse]
            if any(
                found is effect.node
                for branch in branches
                for part in (branch if isinstance(branch, list) else [branch])
                for found in ast.walk(part)
            ):
                return True
    return False


def _assignment_case(method: str, effect: Effect, callback: Callback, analysis: Analysis) -> str:
    """KRB110's case: the call against the protocol the file shows (eager unless it says)."""
    if _protocol_checked(effect, callback):
        return "protocol_checked"
    incremental_call = method.startswith("incremental_")
    protocol = group_protocol(analysis)
    if protocol == "unseen":
        return "incremental_unseen" if incremental_call else "eager_unseen"
    if protocol == "incremental":
        return "incremental" if incremental_call else "plain_under_incremental"
    return "incremental_under_eager" if incremental_call else "eager"


@ASSIGN_IN_CONFLUENT_ON_ASSIGN.on_effects
def confluent_assignment(effect: Effect, callback: Callback, analysis: Analysis) -> Iterator[Hit]:
    method = _forbidden_method(effect)
    if method is not None and _confluent_assignment(method, callback):
        case = _assignment_case(method, effect, callback, analysis)
        why, fix = _ASSIGNMENT_TEXT[case]
        yield ASSIGN_IN_CONFLUENT_ON_ASSIGN.hit(
            effect.anchor,
            case=case,
            method=method,
            callback=effect.label(callback.label),
            why=why,
            fix=fix.format(method=method, plain=method.removeprefix("incremental_"))
            or _CONFLUENT_ASSIGNMENT[method],
        )
