"""Attributes set after construction: ``listener.stream = stream`` stores a consumer or owner."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from rebalance_lint.analysis.collect import Scope
from rebalance_lint.analysis.passes.draft import Draft
from rebalance_lint.analysis.program import Unit
from rebalance_lint.analysis.registrations import resolve_listener


def attributes_set_after_construction(draft: Draft) -> None:
    """``listener.stream = stream`` on an instance of a listener class of this file."""
    for target, value, scope in _attribute_sets(draft):
        cls, _ = resolve_listener(target.value, scope, draft.facts)
        if cls is not None and cls in draft.listeners:
            draft.set_after.setdefault(cls, []).append((target.attr, target))
            _note_attribute(draft, cls, target.attr, value, scope, draft.unit)


def attributes_set_on_other_files(draft: Draft, draft_of: Callable[[Unit], Draft | None]) -> None:
    """Repository mode: ``listener.stream = stream`` on a listener class another file
    defines; its draft learns what the attribute holds, this file reports the site."""
    for target, value, scope in _attribute_sets(draft):
        cls, call = resolve_listener(target.value, scope, draft.facts)
        if cls is not None or call is None:
            continue
        found = draft.unit.klass(scope, call.func)
        other = draft_of(found[0]) if found is not None and found[0] is not draft.unit else None
        if other is None or found is None or found[1] not in other.listeners:
            continue
        _note_attribute(other, found[1], target.attr, value, scope, draft.unit)
        draft.remote_set_after.append((other, other.listeners[found[1]], target))


def _attribute_sets(draft: Draft) -> Iterator[tuple[ast.Attribute, ast.expr, Scope]]:
    for target, value, scope in draft.facts.bindings:
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id != scope.self_name
        ):
            yield target, value, scope


def _note_attribute(
    draft: Draft, cls: ast.ClassDef, attr: str, value: ast.expr, scope: Scope, where: Unit
) -> None:
    """What ``instance.attr = value`` (in ``where``) stores: a consumer, or an owner of one."""
    classes = where.hierarchy.ancestry(scope.cls) if scope.cls is not None else []
    if isinstance(value, ast.Call):  # listener.stream = Stream(consumer)
        if where.consumers.annotation_client(value.func) is not None:
            draft.consumers.mark_attr(cls, attr)
            return
        owner = where.klass(scope, value.func)
    elif where.consumers.client_of(value, scope, classes)[0]:
        draft.consumers.mark_attr(cls, attr)
        return
    else:
        owner = where.instance_class(value, scope)
    if owner is not None:
        draft.unit.owners[(cls, attr)] = owner
