"""Shape: a listener's callback methods called directly, with the old arity
(REAL_WORLD.md: tests and wrappers calling ``listener.on_partitions_assigned([tp])``,
``self.on_partitions_revoked(self.assignment())`` after a manual assign).

Migrated, the methods take the view as a second argument, so such a call would raise a
TypeError: refused (the listener bases never get a one-argument method, or the type checker
would accept the old arity)."""

from __future__ import annotations

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def direct_calls(facts: FileFacts) -> str | None:
    """Why the file's listener classes cannot change arity: any ``.on_partitions_*``
    attribute of the file (whatever object it is read from) is a direct use of a callback."""
    for attr in CALLBACKS:
        for node in facts.index.attributes.get(attr, []):
            return (
                f"{attr} is called directly at line {node.lineno}, with one argument; "
                "call a helper method there instead first"
            )
    return None


SHAPE = Shape(
    name="direct callback calls",
    planner="listeners",
    recognises=(
        "an attribute named on_partitions_assigned/revoked/lost anywhere in the file "
        "(FileIndex.attributes)"
    ),
    plan="refusal",
    fixtures=("tests/codemods/test_refusals.py",),
)
