"""KRB107: pause() on a group-subscribed consumer that nothing re-pauses after a rebalance."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.model import Analysis, Callback, MethodCall, Registration
from rebalance_lint.analysis.walk import body_nodes
from rebalance_lint.rules.registry import Hit, per_file

#: Protocols that keep pause state across rebalances for retained partitions.
_INCREMENTAL_MARKERS = ("ooperative", "group.protocol", "group_protocol")
#: librdkafka keeps a partition's pause flag across unassign/assign and eager rebalances
#: (reproduced against the test broker with confluent-kafka 2.16), so its pauses survive.
_KEEPS_PAUSE = frozenset({"confluent"})


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


@per_file
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
            for cb in analysis.callbacks
            if any(site in cb.sites for site in sites)
        ):
            continue
        yield Hit(pause.call, "KRB107")
