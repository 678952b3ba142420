"""Shape: the owner a listener is handed (REAL_WORLD.md's indirect injection:
``FlushOnRevoke(self)`` in the worker that registers it, ``Listener(offsets)`` with
``offsets = OffsetManager(consumer)``), and which of its attributes holds the consumer the
listener is registered on: what :mod:`.owner_method_takes_view` needs proven before an
owner's method may take the view."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_expressions import find_arg
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of, self_class
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.injected_consumer import _stored_as
from rebalance_lint.analysis.shapes.listener_creations import _creations

#: The general next step where the owner cannot be followed at all.
FALLBACK = "pass the callback's consumer argument along to that call and use it there instead"


def owner_holding(
    cls: ast.ClassDef, param: ast.arg, position: int, analysis: Analysis, facts: FileFacts
) -> tuple[ast.ClassDef, str] | str:
    """(the owner's class, its attribute holding the registering consumer), the same at every
    creation of ``cls``, or why the codemod cannot prove which consumer the owner holds."""
    creations, reason = _creations(cls, facts)
    if reason is not None:
        return FALLBACK
    if not creations:  # repository mode: created in the modules that register it
        return (
            f"{cls.name} is created in another module, where the codemod does not follow the "
            f"owner it gets as {param.arg}; give the owner's method a consumer=None parameter "
            "used instead of its own consumer, and pass the callback's consumer to it, by hand"
        )
    receivers: dict[ast.Call, str] = {}
    for registration in analysis.registrations:
        value = registration.roles.get("listener")
        if isinstance(value, ast.Name):
            bound = facts.sole_assignment(value)
            value = bound[1] if bound is not None else None
        if isinstance(value, ast.Call) and registration.receiver:
            receivers[value] = registration.receiver
    owners: set[tuple[ast.ClassDef, str]] = set()
    for creation in creations:
        receiver = receivers.get(creation)
        given = find_arg(creation, param.arg, position)
        found = _held(given, receiver, facts) if receiver is not None else None
        if found is None:
            return (
                f"the object {cls.name}() gets as {param.arg} at line {creation.lineno} is not "
                "provably an owner holding the consumer the listener is registered on; pass "
                "the callback's consumer argument along to the owner's method by hand"
            )
        owners.add(found)
    if len(owners) != 1:
        return (
            f"{cls.name}() gets owners of different classes as {param.arg}; pass the "
            "callback's consumer argument along to their methods by hand"
        )
    return owners.pop()


def _held(
    given: ast.expr | None, receiver: str, facts: FileFacts
) -> tuple[ast.ClassDef, str] | None:
    """The class of ``given`` and its attribute holding ``receiver``: ``self`` of a method of
    that class with ``receiver`` = ``self.<attr>``, or a variable bound once to ``Owner(...)``
    handed ``receiver`` for a parameter its ``__init__`` stores as ``self.<attr>``."""
    if not isinstance(given, ast.Name):
        return None
    owner = self_class(given, facts)
    if owner is not None:
        head, _, attr = receiver.partition(".")
        return (owner, attr) if head == given.id and attr and "." not in attr else None
    bound = facts.sole_assignment(given)
    call = bound[1] if bound is not None else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None
    built = facts.bindings.binding(call.func)
    if not isinstance(built, ast.ClassDef):
        return None
    init = methods_of(built).get("__init__")
    if init is None or init.args.vararg or init.args.kwarg:
        return None
    for position, param in enumerate(init.args.args[1:]):
        value = find_arg(call, param.arg, position)
        stored = _stored_as(init, param, facts) if value is not None else None
        if value is not None and ast.unparse(value) == receiver and stored is not None:
            return built, stored[0]
    return None


SHAPE = Shape(
    name="listener owners",
    planner="listeners",
    recognises=(
        "every creation of a listener handing its __init__ the self of an owner registering "
        "it on self.<attr>, or a variable bound once to Owner(...) given that consumer"
    ),
    plan="none: the owner and its consumer attribute, for the owner's methods taking the view",
    fixtures=(
        "tests/codemods/test_owner_method_takes_view.py",
        "tests/codemods/fixtures/owner_method_takes_view.py",
    ),
)
