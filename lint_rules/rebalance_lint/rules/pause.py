"""KRB107: pause() on a group-subscribed consumer that nothing re-pauses after a rebalance."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.model import Analysis, Callback, MethodCall, Registration, dotted
from rebalance_lint.analysis.protocols import group_protocol
from rebalance_lint.analysis.walk import body_nodes
from rebalance_lint.rules.rule import Hit, KindCase, Rule

PAUSE_WITHOUT_REPAUSE = Rule(
    code="KRB107",
    name="pause-without-repause-on-assign",
    kinds={
        "eager": KindCase(
            "bug",
            "a kafka-python or aiokafka consumer whose file does not select an incremental "
            "protocol",
            "eager is both clients' default (aiokafka has nothing else): the next rebalance "
            "resumes the paused partitions. Files that mention cooperative-sticky are "
            "exempt, so a consumer configured elsewhere with cooperative-sticky is the one "
            "false report this rule can make; `# noqa: KRB107` says so on the line.",
        ),
    },
    template=(
        "pause() on a group-subscribed consumer and no assigned callback pauses again: "
        "an eager rebalance drops pause state and the partitions start flowing; "
        "re-apply the pause in on_partitions_assigned / on_assign"
    ),
    rationale=(
        "With the eager protocol every rebalance revokes and reassigns all partitions, and "
        "the reassigned partitions start unpaused. Back-pressure built on `pause()` then "
        "silently stops working after the first rebalance unless the assigned callback "
        "pauses again. This holds for kafka-python and aiokafka; librdkafka (confluent-kafka, "
        "both `Consumer` and `AIOConsumer`) keeps a partition's pause flag across unassign, "
        "assign and eager rebalances, so confluent consumers are exempt: their pauses "
        "survive. Files that select the cooperative protocol are exempt too (kept "
        "partitions stay paused).\n\n"
        "Pause bookkeeping in wrapper classes, decided case by case: (1) a loop that pauses "
        "the current assignment and records it in a flag or a per-partition map, with no "
        "assigned callback that pauses again, is reported: the flag says paused, the "
        "partitions flow. (2) `pause()` used to mark a partition finished (a bounded reader "
        "at its end offset) is reported: after an eager rebalance the partition is assigned "
        "unpaused and reading continues past the end. (3) A revocation callback that clears "
        "the pause bookkeeping on purpose (`self._paused = False`, `paused.clear()` on a name "
        "containing 'pause') is not reported: the code expects every rebalance to resume "
        "everything, which is what the eager protocol does; that design breaks under "
        "cooperative-sticky, where kept partitions stay paused while the flag says resumed, "
        "which is a different bug this rule does not judge. (4) An assigned callback that "
        "pauses again through another object (`self.owner.reapply(assigned)`, followed by "
        "the effect summaries) counts as re-pausing, and the pause it reaches is not "
        "reported."
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
    """The callback pauses again: itself, or through a call (``self.owner.reapply(assigned)``)."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pause"
        for n in body_nodes(callback.func)
    ) or any(effect.kind == "call" and effect.name == "pause" for effect in callback.effects)


def _resets_bookkeeping(callback: Callback) -> bool:
    """A revocation callback that clears the pause bookkeeping on purpose (``paused.clear()``,
    ``self._paused = False``): the code expects an eager rebalance to resume everything."""
    for node in body_nodes(callback.func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _CLEARING and _pause_named(node.func.value):
                return True
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_pause_named(target) for target in targets):
                return True
    return False


_CLEARING = frozenset({"clear", "discard", "remove", "pop", "difference_update"})


def _pause_named(expr: ast.expr) -> bool:
    path = dotted(expr)
    return path is not None and "pause" in path.rpartition(".")[2].lower()


def _in_callback(call: MethodCall, analysis: Analysis) -> bool:
    """Inside a callback, or run by one (a method an assigned callback calls to re-pause)."""
    scopes = {id(cb.scope) for cb in analysis.callbacks}
    reached = {id(e.node) for cb in analysis.callbacks for e in cb.effects if e.via}
    return id(call.call) in reached or any(id(scope) in scopes for scope in call.scope.chain())


@PAUSE_WITHOUT_REPAUSE.per_file
def pause_without_repause(analysis: Analysis) -> Iterator[Hit]:
    if not analysis.pauses or group_protocol(analysis) == "incremental":
        return  # kept partitions stay paused under incremental protocols
    for pause in analysis.pauses:
        if not any(_same_consumer(s, pause) for s in analysis.subscribes):
            continue
        known, client = analysis.consumer_of(pause)
        if not known or client in _KEEPS_PAUSE or _in_callback(pause, analysis):
            continue
        sites = [r for r in analysis.registrations if _same_consumer(r, pause)]
        if any(_same_consumer(r, pause) for r in analysis.unresolved):
            continue  # a listener we cannot see may re-pause
        callbacks = [
            cb
            for cb in [*analysis.callbacks, *analysis.foreign_callbacks]
            if any(site in cb.sites for site in sites)
        ]
        if any("assigned" in cb.kinds and _repauses(cb) for cb in callbacks):
            continue
        if any("revoked" in cb.kinds and _resets_bookkeeping(cb) for cb in callbacks):
            continue  # deliberate: see the rule's page
        yield PAUSE_WITHOUT_REPAUSE.hit(pause.call)
