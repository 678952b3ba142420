"""Shape: a listener class nested in another class and created through an attribute
(REAL_WORLD.md: ``listener=self.RebalanceListener(worker_id)``).

``self.Cls(...)`` in a method of the class ``Cls`` is nested in (``self`` its first
parameter, never rebound), ``cls.Cls(...)`` in its classmethod and ``Outer.Cls(...)`` name
that class as surely as ``Cls(...)`` names a module-level one, as long as nothing else can
answer to the attribute: ``Cls`` is bound once in the outer class's body, no subclass of it in
the file binds the name again, and no ``x.Cls = ...`` anywhere patches it. Those creations are
the class's like any other (:func:`nested_creations`); any other attribute call of the name is
refused with the step that makes it followable (:func:`created_through_attribute`).

A subclass that reuses its base's name (``class ConsumerRebalanceListener(kafka.
ConsumerRebalanceListener)``) is not created by ``kafka.ConsumerRebalanceListener()``: an
attribute of an imported Kafka client module names the client's class, never this file's, so
such a call is not one of the class's creations (REAL_WORLD.md: "a subclass that reuses the
base's name", "a bare instance of the abstract base")."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CLIENTS

from rebalance_lint.analysis.migration_facts import FileFacts, self_class
from rebalance_lint.analysis.shape import Shape

#: The Kafka clients' packages: ``kafka.X`` imported from one is never a class of this file.
_CLIENT_PACKAGES = frozenset(client.package for client in CLIENTS.values())


def _names_client_class(node: ast.Attribute, facts: FileFacts) -> bool:
    """Whether ``node`` (``kafka.ConsumerRebalanceListener``) names an attribute of an imported
    Kafka client module, which cannot be a class defined in this file."""
    found = facts.imports.resolve(node)
    return found is not None and found.split(".", 1)[0] in _CLIENT_PACKAGES


def _patched(name: str, facts: FileFacts) -> bool:
    """Whether some ``x.<name> = ...`` (or ``del x.<name>``) may make the attribute anything."""
    return any(
        isinstance(node.ctx, ast.Store | ast.Del) for node in facts.index.attributes.get(name, [])
    )


def _outer_class(holder: ast.Name, facts: FileFacts) -> ast.ClassDef | None:
    """The class ``holder`` is sure to be or to be an instance of: ``Outer`` itself, the
    ``self`` of one of its methods (:func:`.migration_facts.self_class`, the one decision), or
    the ``cls`` of one of its classmethods."""
    bound = facts.bindings.binding(holder)
    if isinstance(bound, ast.ClassDef):
        return bound
    owner = self_class(holder, facts)
    if owner is not None or not isinstance(bound, ast.arg):
        return owner
    scope = facts.bindings.scope_at.get(bound)
    method = scope.node if scope is not None else None
    outer = facts.parent(method) if method is not None else None
    if (
        isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
        and isinstance(outer, ast.ClassDef)
        and method in outer.body
        and method.args.args[:1] == [bound]
        and [ast.unparse(d) for d in method.decorator_list] == ["classmethod"]
    ):
        return outer
    return None


def _binds(body: list[ast.stmt], name: str) -> bool:
    """Whether a class body binds ``name`` (a def, a class, an assignment)."""
    for statement in body:
        if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            bound = [statement.name]
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            bound = [t.id for target in targets for t in ast.walk(target)
                     if isinstance(t, ast.Name)]  # fmt: skip
        else:
            continue
        if name in bound:
            return True
    return False


def _overridden(outer: ast.ClassDef, name: str, facts: FileFacts) -> bool:
    """Whether a subclass of ``outer`` in this file binds ``name`` again in its body (then
    ``self.<name>`` in ``outer``'s methods may be the subclass's)."""
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.ClassDef) and node is not outer and _binds(node.body, name):
            for base in node.bases:
                if isinstance(base, ast.Name) and facts.bindings.binding(base) is outer:
                    return True
    return False


def nested_class_of(node: ast.Attribute, facts: FileFacts) -> ast.ClassDef | None:
    """The class nested in another one that ``node`` (``self.Cls``, ``cls.Cls``,
    ``Outer.Cls``) can only name, if so."""
    if not isinstance(node.value, ast.Name) or not isinstance(node.ctx, ast.Load):
        return None
    outer = _outer_class(node.value, facts)
    if outer is None:
        return None
    found = [s for s in outer.body if isinstance(s, ast.ClassDef) and s.name == node.attr]
    if len(found) != 1 or facts.bindings.references(found[0], node.attr) is None:
        return None  # not bound in the body, or bound there more than once
    if _patched(node.attr, facts) or _overridden(outer, node.attr, facts):
        return None
    return found[0]


def nested_creations(cls: ast.ClassDef, facts: FileFacts) -> list[ast.Call]:
    """Every ``self.Cls(...)`` (``Outer.Cls(...)``) call that creates ``cls``."""
    return [
        call
        for node in facts.index.attributes.get(cls.name, [])
        if isinstance(call := facts.parent(node), ast.Call)
        and call.func is node
        and nested_class_of(node, facts) is cls
    ]


def created_through_attribute(cls: ast.ClassDef, facts: FileFacts) -> str | None:
    """Why ``cls`` cannot be followed to its creations: it is created as ``<x>.Cls(...)``
    where that attribute may be something else (not :func:`nested_creations`)."""
    attributes = facts.index.attributes.get(cls.name, [])
    # kafka.ConsumerRebalanceListener = ConsumerRebalanceListener would make the client's
    # name this class: then no attribute call is taken for the client's own
    patched = _patched(cls.name, facts)
    for node in attributes:
        call = facts.parent(node)
        if isinstance(call, ast.Call) and call.func is node:  # self.Listener(...)
            if not patched and _names_client_class(node, facts):  # the client's base class
                continue
            if nested_class_of(node, facts) is cls:
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
    recognises=(
        "self.Cls(...), cls.Cls(...) or Outer.Cls(...) creating a listener class nested in "
        "Outer; any other call of an attribute named like a listener class of the file"
    ),
    plan="its creations, like Cls(...)'s; a refusal for an attribute that may be another",
    fixtures=("tests/codemods/test_refusals.py", "tests/codemods/test_nested_listener_classes.py"),
)
