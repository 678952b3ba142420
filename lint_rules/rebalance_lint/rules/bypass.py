"""KRB112: a rebalance_guard listener that drives a consumer other than the view it receives."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import FORBIDDEN
from rebalance_lint.analysis.collect import all_params
from rebalance_lint.analysis.model import Analysis, Callback, Effect
from rebalance_lint.rules.rule import Hit, KindCase, Rule

CONSUMER_BESIDE_THE_VIEW = Rule(
    code="KRB112",
    name="listener-bypasses-its-view",
    template=(
        "{callback} calls {method}() on {route}, not on the rebalance view it receives: "
        "{why}; call {method}() on the view{view}"
    ),
    kinds={
        "confluent_staged": KindCase(
            "bug",
            "confluent-kafka (`Consumer` or `AIOConsumer`): `seek()`, `seek_to_*()`, `pause()` "
            "or `resume()` on the consumer itself in a callback that runs on assignment",
            "librdkafka has not assigned the incoming partitions yet when the callback runs: "
            "a seek on the consumer fails (`_UNKNOWN_PARTITION`) and a pause is lost when the "
            "adapter assigns; the view records both and applies them with the assignment.",
        ),
        "confluent": KindCase(
            "risk",
            "confluent-kafka: any other call on the consumer itself",
            "it works during a revocation, but the consumer's bare `commit()` is asynchronous "
            "(the view's is synchronous), and on loss the consumer still holds the lost "
            "partitions, which the view leaves out: a commit of them fails.",
        ),
        "listener_client": KindCase(
            "risk",
            "kafka-python or aiokafka: any call on the consumer itself",
            "it works today (kafka-python: rebalance_guard runs the callback on a worker "
            "thread, where kafka-python 3's blocking calls are allowed, unlike its IO thread; "
            "aiokafka: the awaited coroutines are the view's own), but on loss (both adapters "
            "call `on_partitions_lost` for a member fenced out of the group) the consumer "
            "still lists the lost partitions, which the view leaves out: a bare `commit()` or "
            "`position()` of them fails.",
        ),
    },
    rationale=(
        "A listener that derives from `rebalance_guard.<client>.RebalanceListener` receives a "
        "view of its consumer in every callback: restricted to what a callback may do, "
        "valid while the callback runs, and with KIP-1306's semantics (lost partitions "
        "already gone, seeks and pauses of incoming partitions applied with the "
        "assignment, a synchronous commit). Callbacks that reach the real consumer instead "
        "(a module global, a variable of the function the class is defined in, an "
        "attribute such as `self.consumer`, or a helper handed one) get none of that. "
        "People write such code by hand, often after migrating the listener's base class "
        "but not its body; the migration hands the view to the helper methods a callback "
        "reaches the consumer through where it can prove that rewrite, and leaves the "
        "others (a helper using the consumer in a nested function, say) for this rule to "
        "report. Calls the view omits (`poll()`, `close()`, `assign()`...) are KRB101's."
    ),
    fix=(
        "Call the method on the view the callback receives (`consumer` in "
        "`on_partitions_revoked(self, partitions, consumer)`), and hand the view, not the "
        "consumer, to helpers. Keep no consumer on the listener for use inside callbacks."
    ),
    invalid=(
        """\
from kafka import KafkaConsumer
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

consumer = KafkaConsumer(group_id="g")

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, view):
        consumer.commit()

    def on_partitions_assigned(self, partitions, view):
        pass

set_rebalance_listener(consumer, Listener())
""",
    ),
    valid=(
        """\
from kafka import KafkaConsumer
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

consumer = KafkaConsumer(group_id="g")

class Listener(RebalanceListener):
    def on_partitions_revoked(self, partitions, view):
        view.commit()

    def on_partitions_assigned(self, partitions, view):
        pass

set_rebalance_listener(consumer, Listener())
""",
    ),
)

#: Calls on confluent's consumer that fail or are lost before the partitions are assigned.
_STAGED_BY_THE_VIEW = frozenset({"seek", "seek_to_beginning", "seek_to_end", "pause", "resume"})
_CONFLUENT = frozenset({"confluent", "confluent_aio"})
_WHY = {
    "confluent_staged": (
        "librdkafka has not assigned the partitions yet when the callback runs, so the "
        "consumer refuses the seek (_UNKNOWN_PARTITION) or loses the pause; the view applies "
        "it with the assignment"
    ),
    "confluent": (
        "the consumer's bare commit() is asynchronous and on loss it still holds the lost "
        "partitions (the view's commit is synchronous and leaves them out)"
    ),
    "listener_client": (
        "on loss the consumer still lists the lost partitions (the view leaves them out), "
        "and it is unrestricted and never expires"
    ),
}


def _case(effect: Effect, callback: Callback) -> str:
    if callback.client not in _CONFLUENT:
        return "listener_client"  # kafka-python, aiokafka (a guard listener's client is known)
    if "assigned" in callback.kinds and effect.name in _STAGED_BY_THE_VIEW:
        return "confluent_staged"
    return "confluent"


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _binds(node: ast.AST, name: str) -> bool:
    """Does the function or module ``node`` bind ``name`` itself (not in nested scopes)?"""
    if isinstance(node, _SCOPES) and any(arg.arg == name for arg in all_params(node)):
        return True
    todo = list(ast.iter_child_nodes(node))
    while todo:
        child = todo.pop()
        if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Store):
            return True
        if not isinstance(child, (*_SCOPES, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(child))
    return False


def _route(effect: Effect, callback: Callback) -> str:
    """How the callback (or the object it calls) reaches the consumer it uses."""
    receiver = effect.receiver
    head = receiver.partition(".")[0].removesuffix("()")
    if effect.via:
        return f"{receiver} (a consumer reached through {effect.via[-1].text})"
    if callback.scope.self_name is not None and head == callback.scope.self_name:
        return f"{receiver} (a consumer kept on the listener)"
    if _binds(callback.func, head):
        if callback.helper:
            return f"{receiver} (a consumer handed to {callback.label})"
        return f"{receiver} (a consumer of its own)"
    for scope in callback.scope.chain()[1:]:
        if _binds(scope.node, head):
            if isinstance(scope.node, ast.Module):
                return f"{receiver} (a module-global consumer)"
            owner = getattr(scope.node, "name", "a lambda")
            return f"{receiver} (the consumer of {owner}() the listener closes over)"
    return receiver


@CONSUMER_BESIDE_THE_VIEW.on_effects
def consumer_beside_the_view(
    effect: Effect, callback: Callback, analysis: Analysis
) -> Iterator[Hit]:
    if callback.api != "guard" or effect.kind != "call" or effect.origin != "injected":
        return
    if effect.name in FORBIDDEN:
        return  # KRB101: the call must go, not move to the view
    case = _case(effect, callback)
    param = callback.consumer_param()
    yield CONSUMER_BESIDE_THE_VIEW.hit(
        effect.anchor,
        case=case,
        callback=effect.label(callback.label),
        method=effect.name,
        route=_route(effect, callback),
        why=_WHY[case],
        view=f" ({param}.{effect.name}(...))" if param else "",
    )
