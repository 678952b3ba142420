"""Shape: a listener class nested in another class and created through an attribute
(REAL_WORLD.md: ``listener=self.RebalanceListener(worker_id)``): the planner cannot follow the
creation, so it is refused with the step that makes it followable.

A subclass that reuses its base's name (``class ConsumerRebalanceListener(kafka.
ConsumerRebalanceListener)``) is not created by ``kafka.ConsumerRebalanceListener()``: an
attribute of an imported Kafka client module names the client's class, never this file's, so
such a call is not one of the class's creations (REAL_WORLD.md: "a subclass that reuses the
base's name", "a bare instance of the abstract base")."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CLIENTS

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: The Kafka clients' packages: ``kafka.X`` imported from one is never a class of this file.
_CLIENT_PACKAGES = frozenset(client.package for client in CLIENTS.values())


def _names_client_class(node: ast.Attribute, facts: FileFacts) -> bool:
    """Whether ``node`` (``kafka.ConsumerRebalanceListener``) names an attribute of an imported
    Kafka client module, which cannot be a class defined in this file."""
    found = facts.imports.resolve(node)
    return found is not None and found.split(".", 1)[0] in _CLIENT_PACKAGES


def created_through_attribute(cls: ast.ClassDef, facts: FileFacts) -> str | None:
    """Why ``cls`` cannot be followed to its creations: it is created as ``<x>.Cls(...)``."""
    attributes = facts.index.attributes.get(cls.name, [])
    # kafka.ConsumerRebalanceListener = ConsumerRebalanceListener would make the client's
    # name this class: then no attribute call is taken for the client's own
    patched = any(isinstance(node.ctx, ast.Store | ast.Del) for node in attributes)
    for node in attributes:
        call = facts.parent(node)
        if isinstance(call, ast.Call) and call.func is node:  # self.Listener(...)
            if not patched and _names_client_class(node, facts):  # the client's base class
                continue
            return (
                f"it is created through an attribute, {ast.unparse(node)}(...) at line "
                f"{node.lineno}, which the codemod cannot follow; move the class to module "
                "level and create it by its name there first"
            )
    return None


SHAPE = Shape(
    name="nested listener classes",
    planner="listeners",
    recognises="a call of an attribute named like a listener class of the file (self.Cls(...))",
    plan="refusal",
    fixtures=("tests/codemods/test_refusals.py", "tests/codemods/test_nested_listener_classes.py"),
)
