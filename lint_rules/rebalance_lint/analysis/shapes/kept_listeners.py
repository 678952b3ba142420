"""Shape: listeners kept in a variable or an attribute (``self._listener = Cls(...)`` then
``listener=self._listener``; real code keeps it to read its state).

Migrated when the instance is used only for registration (on one consumer), plain
attributes, ``is None`` and truth tests and being kept in an attribute of ``self`` used the
same way; a holder that may also be ``None`` is :mod:`.optional_listeners`'s."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS

from rebalance_lint.analysis.listener_state import _State
from rebalance_lint.analysis.migration_facts import FileFacts, self_class, stored_once
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.optional_listeners import (
    holder_loads,
    holder_of_creation,
    holder_reason,
    is_optional,
    none_tested,
    registered_on_one,
)


def _attribute_creation(value: ast.Attribute, state: _State) -> ast.Call | None:
    """``listener=self._listener`` where the file stores ``._listener`` exactly once, as
    ``self._listener = Cls(...)`` in a method of the same class (real code keeps the listener
    to read its state: ``self._assignment.rebalancing``): :func:`.migration_facts.stored_once`."""
    creation = stored_once(value, state.facts)
    if creation is not None:
        state.instance_attributes[creation] = value.attr
    return creation


def _instance_escapes(creation: ast.Call, state: _State) -> str | None:
    """A listener kept in a variable or an attribute may be used only for registration (on
    one consumer), plain attributes, ``is None`` and truth tests and being kept in an
    attribute of ``self`` used the same way (any ``.<attr>`` of the file, whatever object it
    is read from, counts). A holder that may also be ``None`` (:mod:`.optional_listeners`)
    must provably hold nothing else; its reads over all its bindings count."""
    facts = state.facts
    target = state.instance_names.get(creation)
    attribute = state.instance_attributes.get(creation)
    holder = holder_of_creation(creation, facts) if target or attribute else None
    optional = holder is not None and is_optional(holder, state)
    if optional:
        assert holder is not None
        reason = holder_reason(holder, state)
        if reason is not None:
            return reason  # None or this creation, not provably (.optional_listeners)
    pending: list[ast.expr]
    if target is not None:
        label = target.id
        found = facts.bindings.references(target, target.id)
        refs: list[ast.expr] | None = list(found) if found is not None else None
        if optional and refs is None:
            assert holder is not None
            refs = holder_loads(holder, facts)  # every binding is None or this creation
        pending = refs if refs is not None else [target]  # rebound: none vouched for
    elif attribute is not None:
        label = f"self.{attribute}"
        pending = _attribute_loads(attribute, facts)
    else:
        return None
    reason = registered_on_one(label, pending, state)
    if reason is not None:
        return reason
    followed: set[str] = {attribute} if attribute is not None else set()
    while pending:
        ref = pending.pop(0)
        parent = facts.parent(ref)
        if (
            (isinstance(parent, ast.Attribute) and parent.value is ref)
            and parent.attr not in CALLBACKS
        ) or ref in state.registered_values:
            continue
        if none_tested(ref, facts):
            continue
        kept = _kept_in_self(ref, facts)
        if kept is not None:
            if kept not in followed:
                followed.add(kept)
                pending.extend(_attribute_loads(kept, facts))
            continue
        return (
            f"the listener {label} is used at line {ref.lineno} beyond its registration; "
            "move that use to another object (the migrated listener's methods take the "
            "view), then run migrate again"
        )
    return None


def _attribute_loads(attribute: str, facts: FileFacts) -> list[ast.expr]:
    return [
        node for node in facts.index.attributes.get(attribute, []) if isinstance(node.ctx, ast.Load)
    ]


def _kept_in_self(ref: ast.expr, facts: FileFacts) -> str | None:
    """``self.<attr> = ref`` (one target): the attribute the listener is kept in."""
    assign = facts.parent(ref)
    if not (isinstance(assign, ast.Assign) and assign.value is ref and len(assign.targets) == 1):
        return None
    store = assign.targets[0]
    if isinstance(store, ast.Attribute) and self_class(store.value, facts) is not None:
        return store.attr
    return None


SHAPE = Shape(
    name="listener attributes and variables",
    planner="listeners",
    recognises=(
        "self.<attr> stored once as self.<attr> = Cls(...) in the same class; name = "
        "Cls(...) bound once"
    ),
    plan=("the class's plan; the instance's uses are checked"),
    fixtures=("tests/codemods/test_listener_attribute.py",),
)
