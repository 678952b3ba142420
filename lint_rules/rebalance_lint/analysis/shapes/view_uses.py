"""Shape: a consumer a listener's callback reaches (``self.<consumer>``, a closure's or a
global ``consumer``) turning into the view there: a call of a method the view offers, a
display, or a helper taking the view; anything else is refused with its next step."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.listener_state import _method_named
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.consumer_as_value import consumer_escape_step
from rebalance_lint.analysis.shapes.displayed_consumer import only_displayed
from rebalance_lint.analysis.shapes.helpers_take_view import (
    ViewCalls,
    helper_refusal,
    offered_by_view,
)
from rebalance_lint.analysis.shapes.optional_listeners import none_tested
from rebalance_lint.analysis.shapes.unawaited_consumer_calls import dropped_coroutine


def _view_use(node: ast.expr, client: ClientFacts, facts: FileFacts) -> str | None:
    """Why the consumer a callback reaches (``self.<consumer>``, a closure's or a global
    ``consumer``) cannot become the view there (None when it can)."""
    line = node.lineno
    method = _method_named(node, facts)
    if method is None and only_displayed(node, facts):
        return None  # printed or logged: the view's text instead
    if method is None and none_tested(node, facts) and not _set_to_none(node, facts):
        return None  # ``consumer is not None``, ``if consumer:``: the view is neither
    why = "" if method is not None else helper_refusal(node, facts, _calls(client))
    if why is None:
        return None  # the helper gets the view and calls only what it offers
    if method is None:
        return (
            f"a callback uses the injected consumer other than to call a method (line {line}): "
            f"{why or consumer_escape_step(node, facts)}"
        )
    outer = facts.parent(node)
    call = facts.parent(outer) if outer is not None else None
    if not (isinstance(call, ast.Call) and call.func is outer):
        return (
            f"a callback uses consumer.{method} without calling it (line {line}); the view "
            "offers method calls only: read it outside the callbacks (in the poll loop) and "
            "keep what the callback needs on the listener, then run migrate again"
        )
    if method not in client.view_methods:
        return (
            f"a callback calls consumer.{method}() (line {line}), which the rebalance view "
            "does not offer (KIP-1306); move that call out of the callback first"
        )
    dropped = dropped_coroutine(call, method, client, facts)
    return f"a callback {dropped}" if dropped is not None else None


def _set_to_none(node: ast.expr, facts: FileFacts) -> bool:
    """Whether the consumer ``node`` reads may be None while the callbacks run: some function
    of the file sets it to None (a teardown before ``close()``, whose revocation the test then
    skips); a module's ``consumer = None`` before it is created, and ``self.<attr> = None`` in
    ``__init__``, come before any subscription, so no callback sees them."""
    for other in ast.walk(facts.tree):
        if not (isinstance(other, ast.Assign) and is_none(other.value)):
            continue
        for target in other.targets:
            same = (
                isinstance(node, ast.Name)
                and isinstance(target, ast.Name)
                and target.id == node.id
                and not isinstance(facts.parent(other), ast.Module)
            ) or (
                isinstance(node, ast.Attribute)
                and isinstance(target, ast.Attribute)
                and target.attr == node.attr
                and _function_name(other, facts) != "__init__"
            )
            if same:
                return True
    return False


def _function_name(node: ast.AST, facts: FileFacts) -> str | None:
    function = next(
        (a for a in facts.bindings.ancestors(node) if isinstance(a, ast.FunctionDef)), None
    )
    return function.name if function is not None else None


def _calls(client: ClientFacts) -> ViewCalls:
    """What a helper may call on the view, in the helper's own file."""
    return lambda home: offered_by_view(client, home)


SHAPE = Shape(
    name="reached consumers becoming the view",
    planner="listeners",
    recognises=("a use of the injected, own or closure/global consumer inside a callback"),
    plan=("replace_with_name (by the callers)"),
    fixtures=(
        "tests/codemods/test_kafka_python.py",
        "tests/codemods/test_consumer_helpers.py",
        "tests/codemods/test_displayed_consumer.py",
    ),
)
