"""Shape: how a registered listener expression leads to its ``Cls(...)``: created at the
registration, kept in a variable bound once, kept in an attribute, made by a factory, or
held by a variable or attribute that may also be ``None`` (:mod:`.optional_listeners`); and
every creation of a class (its name used only to create it, in annotations and in
``isinstance``)."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.listener_state import _class_of, _State
from rebalance_lint.analysis.migration_expressions import has_star_args
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.factory_listeners import _factory_creation
from rebalance_lint.analysis.shapes.kept_listeners import _attribute_creation
from rebalance_lint.analysis.shapes.nested_listener_classes import nested_creations
from rebalance_lint.analysis.shapes.optional_listeners import optional_creations
from rebalance_lint.analysis.shapes.parameter_listeners import parameter_creations


def _creation_of(value: ast.expr, state: _State) -> ast.Call | None:
    """The ``Cls(...)`` call that produced a listener expression, if the planner can see it."""
    if isinstance(value, ast.Call):
        return _factory_creation(value, state) or value
    if isinstance(value, ast.Attribute):
        return _attribute_creation(value, state)
    if not isinstance(value, ast.Name):
        return None
    found = state.facts.sole_assignment(value)
    if found is not None and isinstance(found[0], ast.Name) and isinstance(found[1], ast.Call):
        state.instance_names[found[1]] = found[0]
        return found[1]
    return None


def _held_creations(value: ast.expr, state: _State) -> tuple[list[ast.Call], ast.Call | None, bool]:
    """Every ``Cls(...)`` a listener expression may hold, the one that decides its class, and
    whether the value may be ``None`` too: a plain creation (:func:`_creation_of`), or an
    optional listener's (:mod:`.optional_listeners`; no deciding creation when it may hold
    anything but ``None`` or that one)."""
    creation = _creation_of(value, state)
    if creation is not None:
        return [creation], creation, False
    passed = parameter_creations(value, state.facts, lambda arg: _creation_of(arg, state))
    if passed is not None:  # :mod:`.parameter_listeners`: creations of one class only
        creations, arguments = passed
        classes = {_class_of(c, state) for c in creations}
        if len(classes) == 1 and None not in classes:
            state.registered_values.update(arguments)  # the instances' registrations
            state.through_parameters.update(creations)
            return creations, creations[0], False
    optional = optional_creations(value, state)
    return (*optional, True) if optional is not None else ([], None, False)


def _creations(
    cls: ast.ClassDef, facts: FileFacts, *, any_arguments: bool = False
) -> tuple[list[ast.Call], str | None]:
    """Every ``Cls(...)`` call (a nested class's ``self.Cls(...)`` too:
    :mod:`.nested_listener_classes`), or why some use of the class name cannot be followed.
    ``any_arguments``: a creation may pass ``*args``/``**kwargs`` (nothing is read from its
    arguments: a wrapper that registers itself on the consumer it makes)."""
    refs = facts.bindings.references(cls, cls.name)
    if refs is None:
        return [], f"the name {cls.name} is bound more than once"
    creations = []
    for ref in refs:
        parent = facts.parent(ref)
        if isinstance(parent, ast.Call) and parent.func is ref:
            if has_star_args(parent) and not any_arguments:
                return [], f"instantiated with *args or **kwargs at line {ref.lineno}"
            creations.append(parent)
        elif ref in facts.bindings.in_annotation or _is_isinstance_arg(ref, facts):
            continue
        else:
            return (
                [],
                f"{cls.name} is used at line {ref.lineno} in a way the codemod cannot follow",
            )
    creations += nested_creations(cls, facts)
    return creations, None


def _is_isinstance_arg(ref: ast.AST, facts: FileFacts) -> bool:
    call = facts.parent(ref)
    if isinstance(call, ast.keyword):
        call = facts.parent(call)
    return (
        isinstance(call, ast.Call)
        and call.func is not ref
        and isinstance(call.func, ast.Name)
        and call.func.id in {"isinstance", "issubclass"}
    )


SHAPE = Shape(
    name="listener creations",
    planner="listeners",
    recognises=(
        "listener= values: Cls(...), a variable bound once to Cls(...), self.<attr>, "
        "factory(...), an optional listener (None or Cls(...))"
    ),
    plan=("drop_call_arg at each creation (with the injected consumer)"),
    fixtures=(
        "tests/codemods/test_kafka_python.py",
        "tests/codemods/test_listener_attribute.py",
    ),
)
