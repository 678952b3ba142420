"""KRB107: pause() on a group-subscribed consumer that nothing re-pauses after a rebalance."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.model import Analysis, Callback, MethodCall, Registration
from rebalance_lint.analysis.walk import body_nodes
from rebalance_lint.rules.rule import Hit, Rule

PAUSE_WITHOUT_REPAUSE = Rule(
    code="KRB107",
    name="pause-without-repause-on-assign",
    template=(
        "pause() on a group-subscribed consumer and no assigned callback pauses again: "
        "an eager rebalance drops pause state and the partitions start flowing; "
        "re-apply the pause in on_partitions_assigned / on_assign"
    ),
    rationale=(
        "With the eager protocol every rebalance revokes and reassigns all partitions, and "
        "the reassigned partitions start unpaused. Back-pressure built on `pause()` then "
        "silently stops working after the first rebalance unless the assigned callback "
        "pauses again. This holds for kafka-python and aiokafka; librdkafka (confluent-kafka) "
        "keeps a partition's pause flag across rebalances, so confluent consumers are exempt."
    ),
    fix=(
        "Remember what you paused and pause it again in `on_partitions_assigned` (or "
        "`on_assign`), or use the cooperative protocol."
    ),
    invalid=(
        """\
from kafka import KafkaConsumer

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"])
consumer.pause(*consumer.assignment())
""",
    ),
    valid=(
        """\
from kafka import ConsumerRebalanceListener, KafkaConsumer

paused = set()

class Repause(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        consumer.pause(*(tp for tp in assigned if tp in paused))

consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["orders"], listener=Repause())
consumer.pause(*consumer.assignment())
""",
    ),
)

#: Protocols that keep pause state across rebalances for retained partitions.
_INCREMENTAL_MARKERS = ("ooperative", "group.protocol", "group_protocol")
#: librdkafka keeps a partition's pause flag across unassign/assign and eager rebalances
#: (reproduced against the test broker with confluent-kafka 2.16), so its pauses survive.
_KEEPS_PAUSE = frozenset({"confluent", "confluent_aio"})


def _same_consumer(a: MethodCall | Registration, b: MethodCall) -> bool:
    if a.receiver != b.receiver:
        return False
    self_based = a.scope.self_name is not None and (a.receiver or "").startswith(
        f"{a.scope.self_name}."
    )
    if self_based:
        return a.scope.cls is b.scope.cls
    # a plain name: the same variable only if one use is nested in the other's scope
    return a.scope.encloses(b.scope) or b.scope.encloses(a.scope)


def _repauses(callback: Callback) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pause"
        for n in body_nodes(callback.func)
    )


def _in_callback(call: MethodCall, analysis: Analysis) -> bool:
    scopes = {id(cb.scope) for cb in analysis.callbacks}
    return any(id(scope) in scopes for scope in call.scope.chain())


@PAUSE_WITHOUT_REPAUSE.per_file
def pause_without_repause(analysis: Analysis) -> Iterator[Hit]:
    if not analysis.pauses or any(m in analysis.text for m in _INCREMENTAL_MARKERS):
        return
    for pause in analysis.pauses:
        if not any(_same_consumer(s, pause) for s in analysis.subscribes):
            continue
        known, client = analysis.consumer_of(pause)
        if not known or client in _KEEPS_PAUSE or _in_callback(pause, analysis):
            continue
        sites = [r for r in analysis.registrations if _same_consumer(r, pause)]
        if any(_same_consumer(r, pause) for r in analysis.unresolved):
            continue  # a listener we cannot see may re-pause
        if any(
            "assigned" in cb.kinds and _repauses(cb)
            for cb in [*analysis.callbacks, *analysis.foreign_callbacks]
            if any(site in cb.sites for site in sites)
        ):
            continue
        yield PAUSE_WITHOUT_REPAUSE.hit(pause.call)
