"""Shape: a callback function also used elsewhere (REAL_WORLD.md: a
``track_rebalance(consumer, partitions)`` registered as ``on_assign=`` and also called from
the tests or the poll loop).

The function stays where it is, unchanged, for its other uses; the listener method calls it
with the view (``def on_partitions_assigned(self, partitions, consumer): track_rebalance(
consumer, partitions)``, awaited on the AIOConsumer). Sound where the function uses only what
the view offers (:mod:`.callback_takes_view` without rewriting: no assign/unassign, which
only a callback's own last statement may become), its consumer parameter has no annotation (a
type checker would reject the view for ``Consumer``), and it is a plain def registered as
itself (a lambda or a ``functools.partial`` used elsewhere stays refused).
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import _Callback, _consumer_param
from rebalance_lint.analysis.shape import Shape


def kept_and_called(callback: _Callback, used_elsewhere: str) -> str | None:
    """None when ``callback``, used elsewhere too (``used_elsewhere`` says where), can stay as
    it is with the listener method calling it; else why not, with the next step."""
    function = callback.function
    if isinstance(function, ast.Lambda) or callback.partial is not None:
        return used_elsewhere
    consumer = _consumer_param(callback)
    if consumer.annotation is not None:
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
    fixtures=("tests/codemods/test_shared_callbacks.py",),
)
