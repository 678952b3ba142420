"""Shape: one method of the owner registered for two or three roles (``on_assign=
self._on_assignment, on_revoke=self._on_assignment, on_lost=self._on_assignment``: a method
that resets the owner's state on any change of assignment, without touching the consumer).

The method becomes the listener method of its first role, and the class body gains
``on_partitions_revoked = on_partitions_assigned`` for each other role (as
:mod:`.two_roles` does for a def). Refused when the method (un)assigns, directly or through
a helper or the owner's stored consumer, which each role replaces differently."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.confluent_callback import _ASSIGNS, _UNASSIGNS, _Callback
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.two_roles import _second_role


def check_second_roles(
    owner: ast.ClassDef,
    callbacks: list[_Callback],
    aliases: dict[str, str],
    facts: FileFacts,
) -> str | None:
    """Why the methods named in ``aliases`` (role -> method) cannot also serve those roles
    under an alias of their first role's listener method; None when they can."""
    for keyword, name in aliases.items():
        first = next(cb for cb in callbacks if cb.label == name)
        again = _Callback(keyword, first.function, method=first.method, static=first.static)
        reason = _second_role(first, again, facts)  # shapes/two_roles.py
        if reason is not None:
            return reason.replace("one per role", "one method per role")
        for node in ast.walk(first.function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _ASSIGNS | _UNASSIGNS
            ):
                return (
                    f"{name} is registered for two roles and calls "
                    f"{ast.unparse(node.func)}() (line {node.lineno}), which each role "
                    f"replaces differently; split it into one method of {owner.name} per role"
                )
    return None


def plan_aliases(
    owner: ast.ClassDef,
    callbacks: list[_Callback],
    aliases: dict[str, str],
    plan: MigrationPlan,
) -> None:
    """``on_partitions_<role> = on_partitions_<first role>`` at the end of the owner's body."""
    names = []
    for keyword, name in aliases.items():
        first = next(cb for cb in callbacks if cb.label == name)
        names.append((CONFLUENT_CALLBACKS[keyword], CONFLUENT_CALLBACKS[first.keyword], ""))
    if names:
        plan.edit(Edit("class_aliases", span(owner), names=tuple(names)))


SHAPE = Shape(
    name="owner method in two roles",
    planner="confluent",
    recognises=(
        "one method of the owner class registered (self.<method>) for two or three of "
        "on_assign/on_revoke/on_lost"
    ),
    plan="the owner's listener_method for its first role + class_aliases for the others",
    fixtures=(
        "tests/codemods/test_owner_two_roles.py",
        "tests/codemods/fixtures/owner_two_roles.py",
    ),
)
