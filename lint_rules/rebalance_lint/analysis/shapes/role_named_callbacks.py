"""Shape: an owner class whose callbacks already carry the listener's names, in confluent's
signature (``on_assign=self.on_partitions_assigned`` with ``def on_partitions_assigned(self,
consumer, partitions)``): the owner becomes its own listener as in the owner callbacks shape,
the method keeping its name and only its parameters changing to ``(self, partitions,
consumer)``. Only a method registered for exactly the role its name says, defined once in the
class body, counts; any other binding of a listener name still refuses the class, and such a
method used elsewhere too is refused (no wrapper can keep its old signature under the same
name)."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS

from rebalance_lint.analysis.shape import Shape


def named_for_their_role(owner: ast.ClassDef, roles: Mapping[str, str]) -> set[str]:
    """The listener names ``owner`` binds only as the one method registered for that role
    (``roles``: on_assign... -> method name)."""
    defined = [
        stmt.name for stmt in owner.body if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    assigned = {
        node.id
        for stmt in owner.body
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(stmt)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    return {
        name
        for keyword, name in roles.items()
        if SUBSCRIBE_CALLBACKS.get(keyword) == name
        and defined.count(name) == 1
        and name not in assigned
    }


SHAPE = Shape(
    name="role-named callbacks",
    planner="confluent",
    recognises=(
        "an owner's callback registered for the role its listener name says "
        "(on_assign=self.on_partitions_assigned), defined once"
    ),
    plan="listener_method (the name stays, the parameters become (self, partitions, consumer))",
    fixtures=(
        "tests/codemods/test_role_named_callbacks.py",
        "tests/codemods/fixtures/role_named_callbacks.py",
    ),
)
