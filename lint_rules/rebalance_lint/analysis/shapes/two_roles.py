"""Shape: one def registered for two roles (REAL_WORLD.md: a nested ``on_rebalance`` passed
as ``on_assign=`` and ``on_revoke=``).

It becomes one listener method under two names (``on_partitions_revoked =
on_partitions_assigned``); refused when it (un)assigns, which each role replaces differently,
or is a lambda or a partial."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import (
    _ASSIGNS,
    _UNASSIGNS,
    _Callback,
    _consumer_param,
)
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.assign_in_helper import helper_assigns


def _second_role(first: _Callback, again: _Callback, facts: FileFacts) -> str | None:
    """Why one def registered for two roles (``on_assign=on_rebalance, on_revoke=
    on_rebalance``, REAL_WORLD.md) cannot be one listener method under two names
    (``on_partitions_revoked = on_partitions_assigned``): not a plain def registered the
    same way twice, or it (un)assigns, which each role does differently."""
    label = first.label
    if isinstance(first.function, ast.Lambda) or first.partial or again.partial:
        return f"{label} is registered for two roles; split it into one per role"
    consumer = _consumer_param(first)
    for ref in facts.bindings.references(consumer, consumer.arg) or ():
        method = facts.parent(ref)
        assigns = helper_assigns(ref, facts)  # shapes/assign_in_helper.py
        if assigns:
            return (
                f"{label} is registered for two roles and passes its consumer to a helper "
                f"calling {ast.unparse(assigns[0].func)}() (line {assigns[0].lineno}), which "
                "each role replaces differently; split it into one per role"
            )
        if isinstance(method, ast.Attribute) and method.attr in _ASSIGNS | _UNASSIGNS:
            return (
                f"{label} is registered for two roles and calls consumer.{method.attr}() "
                f"(line {ref.lineno}), which each role replaces differently; split it into "
                "one per role"
            )
    return None


SHAPE = Shape(
    name="two roles",
    planner="confluent",
    recognises=(
        "the same def registered for two of on_assign/on_revoke/on_lost (on_lost equal to "
        "on_revoke is the default instead)"
    ),
    plan=("gather with an alias name"),
    fixtures=(
        "tests/codemods/test_two_roles.py",
        "tests/codemods/fixtures/two_roles.py",
    ),
)
