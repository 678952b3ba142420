"""Shape: a callback function also used elsewhere (REAL_WORLD.md: a
``track_rebalance(consumer, partitions)`` registered as ``on_assign=`` and also called from
the tests or the poll loop).

The function stays where it is, unchanged, for its other uses; the listener method calls it
with the view (``def on_partitions_assigned(self, partitions, consumer): track_rebalance(
consumer, partitions)``, awaited on the AIOConsumer). Sound where the function uses only what
the view offers (:mod:`.callback_takes_view` without rewriting: no assign/unassign, which
only a callback's own last statement may become), its consumer parameter has no annotation or
the client's consumer class, widened to ``Consumer | RebalanceConsumer`` (any other would
make a type checker reject the view), it is a plain def registered as itself (a lambda
or a ``functools.partial`` used elsewhere stays refused), and no ``del`` unbinds its name (the
client kept the function object; the listener method looks the name up at each rebalance).
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import _Callback, _consumer_param
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.annotated_helpers import Widen, stage_widened


def kept_and_called(
    callback: _Callback,
    used_elsewhere: str,
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """None when ``callback``, used elsewhere too (``used_elsewhere`` says where), can stay as
    it is with the listener method calling it; else why not, with the next step. A consumer
    parameter annotated with the client's consumer class is widened to ``Consumer |
    RebalanceConsumer``, as a helper's is (:mod:`.annotated_helpers`): its other callers pass
    the consumer, the listener the view."""
    function = callback.function
    if isinstance(function, ast.Lambda) or callback.partial is not None:
        return used_elsewhere
    deleted = [u for u in facts.bindings.uses.get(function, []) if isinstance(u.ctx, ast.Del)]
    if deleted:  # the subscribe() took the function; the listener method looks its name up
        return (
            f"{function.name} is deleted (del, line {deleted[0].lineno}), but the listener "
            "method that replaces its registration calls it by name when a rebalance runs; "
            "remove the del, then run migrate again"
        )
    consumer = _consumer_param(callback)
    classes = frozenset(f"{client.consumer_module}.{c}" for c in client.consumer_classes)
    widen = Widen(classes)
    if consumer.annotation is not None and widen.note(consumer.annotation, facts, facts):
        stage_widened(widen, client.guard_module, facts, plan)
    elif consumer.annotation is not None:
        return (
            f"{function.name} is used elsewhere too, so it stays and the listener calls it "
            f"with the view, which its consumer parameter's annotation "
            f"({ast.unparse(consumer.annotation)}) does not accept; drop the annotation or "
            "annotate it with the rebalance_guard RebalanceConsumer first"
        )
    return None


SHAPE = Shape(
    name="callbacks also used elsewhere",
    planner="confluent",
    recognises=(
        "a def registered as a callback whose name is also used other than at its "
        "registration (_used_only_here's refusal)"
    ),
    plan="gather with the function in delegated: the method calls it with the view",
    fixtures=(
        "tests/codemods/test_shared_callbacks.py",
        "tests/codemods/fixtures/shared_callback_annotated.py",
    ),
)
