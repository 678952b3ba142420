"""Shape: a wrapper that is its own listener (``self._c.subscribe(topics, listener=self)``
in its own method, using its stored ``self._c``), REAL_WORLD.md.

Its callbacks' calls on ``self.<attr>`` become calls on the view; wherever it is created,
every instance registers itself. A consumer handed to ``__init__`` and stored as that
attribute is the wrapper's own, kept for its loop."""

from __future__ import annotations

import ast
from typing import NamedTuple

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import _attributes_in, _State
from rebalance_lint.analysis.migration_facts import FileFacts, first_param, self_attr
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.factory_stored_consumer import stored_factory_attr
from rebalance_lint.analysis.shapes.injected_consumer import _stored_as
from rebalance_lint.analysis.shapes.view_uses import _view_use


class Refusal(NamedTuple):
    reason: str


def own_attribute(own: list[tuple[str, ast.Name]], facts: FileFacts) -> str | Refusal:
    """``attr`` of the ``self.<attr>`` consumer a class registers itself on (directly, or a
    factory method's consumer stored there: :mod:`.factory_stored_consumer`), or why none."""
    receivers = {receiver for receiver, _ in own}
    if len(receivers) != 1:
        return Refusal(
            f"it registers itself on {len(receivers)} consumers ({', '.join(sorted(receivers))}); "
            "register one listener instance per consumer (each on its own self.<attr>) first"
        )
    head, _, attr = next(iter(receivers)).partition(".")
    if not attr:  # a factory method's local consumer, stored as self.<attr> by its callers
        attr = stored_factory_attr(head, own[0][1], facts) or ""
        head = own[0][1].id
    if head != own[0][1].id or not attr or "." in attr:
        return Refusal(
            f"it registers itself on {next(iter(receivers))}, which is not an attribute of its "
            "own; store that consumer on self (self.consumer = ...) and register on it first"
        )
    return attr


def _plan_own_consumer(
    client: ClientFacts,
    views: dict[Function, str],
    own: list[tuple[str, ast.Name]],
    init: Function | None,
    state: _State,
    plan: MigrationPlan,
) -> str | None:
    """A class registering itself on ``self.<attr>`` (REAL_WORLD.md: a wrapper that is its own
    listener): its callbacks' calls on ``self.<attr>`` become calls on the view. Where it is
    created does not matter: every instance registers itself. A consumer handed to
    ``__init__`` and stored as ``self.<attr>`` is the wrapper's own, kept for its loop."""
    attr = own_attribute(own, state.facts)
    if isinstance(attr, Refusal):
        return attr.reason
    facts = state.facts
    uses: list[tuple[ast.Attribute, str]] = []
    for fn, view in views.items():
        for node in _attributes_in(fn):
            if self_attr(node, first_param(fn)) != attr:
                continue
            reason = _view_use(node, client, facts)
            if reason is not None:
                return reason
            uses.append((node, view))
    for node, view in uses:
        plan.edit(Edit("replace_with_name", span(node), value=view))
    plan.planned.update(span(value) for _, value in own)  # KRB201's site: listener=self
    for param in init.args.args[1:] if init is not None else []:
        stored = _stored_as(init, param, facts) if init is not None else None
        if stored is not None and stored[0] == attr:
            plan.planned.add(span(param))  # KRB201's site: the wrapper's own consumer
    return None


SHAPE = Shape(
    name="own-consumer wrappers",
    planner="listeners",
    recognises=("listener=self in a method of a legacy listener class, subscribing on self.<attr>"),
    plan=("replace_with_name (the view) in the callbacks"),
    fixtures=(
        "tests/codemods/test_own_listener.py",
        "tests/codemods/test_own_subscribe.py",
        "tests/codemods/test_consumer_subclass_listener.py",
    ),
)
