"""KRB109: a callback whose parameters do not match how its client calls it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rebalance_lint.analysis.clients import CLIENT_LABEL, guard_name
from rebalance_lint.analysis.model import (
    Analysis,
    Callback,
    Signature,
    consumerish,
    partitionish,
    signature,
)
from rebalance_lint.rules.rule import Hit, KindCase, Rule

CALLBACK_SIGNATURE = Rule(
    code="KRB109",
    name="callback-signature",
    kinds={
        "signature": KindCase(
            "bug",
            "a callback whose parameters do not match how its client calls it",
            "the first rebalance raises TypeError, or the callback gets the consumer where "
            "it expects the partitions.",
        ),
    },
    template="{callback} has the wrong signature for {client}: {problem}; {fix}",
    rationale=(
        "Each client calls its callbacks with fixed arguments: kafka-python and aiokafka "
        "listeners get `(partitions)`, confluent-kafka callbacks `(consumer, partitions)`, "
        "rebalance_guard listeners `(partitions, consumer)`. A signature written for "
        "another client fails with TypeError at the first rebalance, or silently swaps the "
        "consumer and the partitions."
    ),
    fix=(
        "Match the client's calling convention: `(partitions)` for kafka-python/aiokafka "
        "listeners, `(consumer, partitions)` for confluent callbacks, `(partitions, "
        "consumer)` for rebalance_guard listeners."
    ),
    invalid=(
        """\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, consumer, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
""",
    ),
    valid=(
        """\
from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass
""",
    ),
)


def _convention(callback: Callback) -> str:
    if callback.api == "guard":
        return "a rebalance_guard listener"
    if callback.api == "confluent":
        return "a confluent-kafka callback"
    return f"a {_legacy_client(callback)} listener"


def _legacy_client(callback: Callback) -> str:
    """The client's name; both listener clients when the file leaves it open."""
    if callback.client:
        return CLIENT_LABEL[callback.client]
    return f"{CLIENT_LABEL['kafka_python']} or {CLIENT_LABEL['aiokafka']}"


def _shape(sig: Signature) -> str:
    return "(" + ", ".join(sig.names) + (", *args" if sig.varargs else "") + ")"


def _legacy(callback: Callback, sig: Signature) -> tuple[str, str] | None:
    if sig.accepts(1):
        return None
    client = _legacy_client(callback)
    if len(sig.names) >= 2 and consumerish(sig.names[0]):
        base = guard_name(callback.client, "RebalanceListener")
        return (
            f"written confluent-style {_shape(sig)}, but {client} listener methods get "
            "(partitions) only",
            f"take only the partitions, or derive from {base} and take (partitions, consumer)",
        )
    return (
        f"takes {_shape(sig)}, called with (partitions)",
        "take exactly one argument, the partitions",
    )


def _guard(sig: Signature) -> tuple[str, str] | None:
    if len(sig.names) >= 2 and consumerish(sig.names[0]) and partitionish(sig.names[1]):
        return (
            f"takes {_shape(sig)}, called with (partitions, consumer)",
            "swap the parameters (KIP-1306 order: partitions first)",
        )
    if sig.accepts(2) or (len(sig.names) == 1 and sig.accepts(1)):
        return None
    return (
        f"takes {_shape(sig)}, called with (partitions, consumer)",
        "take (partitions, consumer)",
    )


def _confluent(sig: Signature) -> tuple[str, str] | None:
    if len(sig.names) >= 2 and partitionish(sig.names[0]) and consumerish(sig.names[1]):
        return (
            f"takes {_shape(sig)}, called with (consumer, partitions)",
            "swap the parameters",
        )
    if sig.accepts(2):
        return None
    return (
        f"takes {_shape(sig)}, called with (consumer, partitions)",
        "take (consumer, partitions)",
    )


@CALLBACK_SIGNATURE.per_file
def wrong_signature(analysis: Analysis) -> Iterator[Hit]:
    for callback in analysis.callbacks:
        if callback.helper:
            continue
        bindings: list[tuple[int, ast.AST]] = list(callback.partials.items()) or [
            (callback.bound, callback.func)
        ]
        for bound, where in bindings:
            offset = callback.positional_offset() - callback.bound + bound
            sig = signature(callback.func, offset)
            if callback.api == "legacy":
                problem = _legacy(callback, sig)
            elif callback.api == "guard":
                problem = _guard(sig)
            else:
                problem = _confluent(sig)
            if problem is not None:
                yield CALLBACK_SIGNATURE.hit(
                    where if bound else callback.func,
                    callback=callback.label,
                    client=_convention(callback),
                    problem=problem[0],
                    fix=problem[1],
                )
