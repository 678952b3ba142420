"""Shape: the callback's body, once its consumer parameter becomes the view.

Every use of the consumer must be a call of a method the view offers (KIP-1306), a display,
or a helper taking the view; a final assign/unassign is rewritten (:mod:`.assign_release`;
an assign ending a helper that ends the callback: :mod:`.assign_in_helper`);
a callback (un)assigning through the registering consumer itself, decorated, of the wrong
signature or async where the client is not, is refused with the step that fixes it."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import _ASSIGNS, _UNASSIGNS, _Callback
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration_facts import FileFacts, returned_value
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.annotated_helpers import Widen, stage_widened
from rebalance_lint.analysis.shapes.assign_in_helper import plan_assign_in_helper
from rebalance_lint.analysis.shapes.assign_release import _plan_final, at_line
from rebalance_lint.analysis.shapes.consumer_as_value import consumer_escape_step
from rebalance_lint.analysis.shapes.defaulted_parameters import extra_defaulted
from rebalance_lint.analysis.shapes.discarded_consumer import discarded
from rebalance_lint.analysis.shapes.displayed_consumer import only_displayed
from rebalance_lint.analysis.shapes.helpers_take_view import helper_refusal, offered_by_view
from rebalance_lint.analysis.shapes.transparent_decorators import (
    decorated_refusal,
    passes_calls_through,
)
from rebalance_lint.analysis.shapes.unawaited_consumer_calls import dropped_coroutine


def _assigns_itself(callback: _Callback, receiver: str | None, facts: FileFacts) -> str | None:
    """Why a callback that (un)assigns through the registering consumer itself
    (``self.consumer.incremental_assign(partitions)``, ignoring its consumer argument) cannot
    be migrated as it is: the adapter (un)assigns after the callback, so the partitions would
    be assigned twice (``_CONFLICT``, KRB101). Only calls on the consumer argument are
    rewritten (:func:`_plan_final`)."""
    if receiver is None:
        return None
    params = [a.arg for a in callback.function.args.args][1 if callback.method else 0 :]
    if receiver.partition(".")[0] in params:
        return None  # the callback's own parameter (``consumer``), not the registering one
    for node in ast.walk(callback.function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _ASSIGNS | _UNASSIGNS
            and ast.unparse(node.func.value) == receiver
        ):
            return (
                f"{callback.label} calls {receiver}.{node.func.attr}() on the registering "
                f"consumer itself (line {node.lineno}), which the adapter does after the "
                f"callback; call it on the callback's consumer argument instead "
                f"(consumer.{node.func.attr}(partitions) as its last statement) first"
            )
    return None


def _plan_callback(
    callback: _Callback, client: ClientFacts, facts: FileFacts, plan: MigrationPlan
) -> str | None:
    """Check one callback; stage the rewrite of its final assign/unassign."""
    return _check_callback(callback, client, facts, plan, rewrite=True)


def _check_callback(
    callback: _Callback,
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
    *,
    rewrite: bool,
) -> str | None:
    """Why ``callback`` cannot take the view as its consumer (None when it can); with
    ``rewrite``, its final assign/unassign is staged for rewriting (else refused)."""
    fn = callback.function
    label = callback.label
    args = fn.args
    if (
        not isinstance(fn, ast.Lambda)
        and fn.decorator_list
        and not callback.static
        and not passes_calls_through(fn, facts, method=callback.method)
    ):
        return decorated_refusal(label)
    is_async = isinstance(fn, ast.AsyncFunctionDef)
    if client.async_callbacks and not is_async:
        return (
            f"{label} is not async def, so AIOConsumer cannot call it (TypeError); "
            "make it async def first"
        )
    if is_async and not client.async_callbacks:
        return (
            f"{label} is async, but the model sees this subscribe() on a confluent Consumer, "
            "not an AIOConsumer; create or annotate the consumer as "
            "confluent_kafka.aio.AIOConsumer where the codemod can see it"
        )
    offset = 1 if callback.method else 0
    if isinstance(fn, ast.Lambda) and (args.defaults or args.kw_defaults):
        return (
            f"{label} takes default arguments (values bound when it was created); bind them "
            f"with functools.partial on a def {callback.keyword}(..., consumer, partitions) "
            "instead, then run migrate again"
        )
    if callback.partial is not None:
        offset = len(callback.partial.args) - 1  # _partial_callback checked the signature
    elif (
        len(args.args) != 2 + offset
        or args.posonlyargs
        or args.kwonlyargs
        or args.kwarg
        or args.vararg
        or args.defaults
    ) and not (rewrite and extra_defaulted(args, 2 + offset, fn, facts)):
        shape = "(self, consumer, partitions)" if callback.method else "(consumer, partitions)"
        return f"{label} does not take exactly {shape}; fix its signature first (KRB109)"
    returned = None if isinstance(fn, ast.Lambda) else returned_value(fn)
    if returned is not None:
        return (
            f"{label} returns a value (line {returned.lineno}), which confluent ignores and "
            "a RebalanceListener method may not; drop the return value first"
        )
    consumer, partitions = args.args[offset : offset + 2]
    refs = facts.bindings.references(consumer, consumer.arg)
    part_refs = facts.bindings.references(partitions, partitions.arg)
    if refs is None or (part_refs is None and _releases_or_assigns(fn)):
        # the view must be every use of the consumer; an (un)assign of the partitions must
        # be of the list the callback got (its rewrite seeks or drops exactly that list);
        # ``partitions = consumer.committed(partitions)`` alone changes nothing the
        # migration relies on
        return f"{label} rebinds its consumer or partitions parameter; use a new name first"
    widen = Widen(frozenset(f"{client.consumer_module}.{c}" for c in client.consumer_classes))
    for ref in refs:
        if only_displayed(ref, facts) or discarded(ref, fn, facts):
            continue  # printed or logged: the view's text instead; ``del consumer``: unused
        method = facts.parent(ref)
        call = facts.parent(method) if method is not None else None
        line = ref.lineno
        if not (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and isinstance(call, ast.Call)
            and call.func is method
        ):
            calls = partial(_view_call_ok, client)
            why: str | None = ""
            if rewrite:  # a helper ending the callback with its assign: seeks on the view
                why = plan_assign_in_helper(callback, ref, client, calls, widen, facts, plan)
            if why == "":  # not that shape: a helper taking the view?
                why = helper_refusal(ref, facts, calls, widen)
            if why is None:
                continue  # the helper gets the view and calls only what it offers
            return (
                f"{label} uses the consumer other than to call a method (line {line}): "
                f"{why or consumer_escape_step(ref, facts)}"
            )
        name = method.attr
        dropped = dropped_coroutine(call, name, client, facts)
        if dropped is not None:
            return f"{label} {dropped}"
        if name in _ASSIGNS | _UNASSIGNS:
            reason = (
                _plan_final(callback, call, name, partitions.arg, facts, plan)
                if rewrite
                else f"{label} is also used elsewhere, so its consumer.{name}() cannot become "
                "the view's; move that call out of it, then run migrate again"
            )
            if reason is not None:
                return at_line(reason, line)
        elif name not in client.view_methods:
            return (
                f"{label} calls consumer.{name}() (line {line}), which the rebalance view "
                "does not offer (KIP-1306); move that call out of the callback first"
            )
        elif name == "commit" and (call.args or any(kw.arg is None for kw in call.keywords)):
            return (
                f"{label} passes commit() positional arguments (line {line}); "
                "pass them by keyword first"
            )
    stage_widened(widen, client.guard_module, facts, plan)
    return None


def _releases_or_assigns(fn: ast.AST) -> bool:
    """Whether the callback calls an (un)assign method on anything."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _ASSIGNS | _UNASSIGNS
        for node in ast.walk(fn)
    )


def _view_call_ok(client: ClientFacts, facts: FileFacts) -> Callable[[ast.Call, str], bool]:
    """Whether a helper's ``consumer.<name>(...)`` works the same on the view: a method it
    offers, called as the view takes it (keywords for ``commit``), awaited where it is a
    coroutine; never an (un)assign, which only a callback's last statement may become."""

    offered = offered_by_view(client, facts)

    def ok(call: ast.Call, name: str) -> bool:
        if name in _ASSIGNS | _UNASSIGNS:
            return False
        if name == "commit" and (call.args or any(kw.arg is None for kw in call.keywords)):
            return False
        return offered(call, name)

    return ok


SHAPE = Shape(
    name="callbacks taking the view",
    planner="confluent",
    recognises=("every callback a confluent shape resolved: its consumer parameter's uses"),
    plan=("the uses stay (the parameter is now the view); commit() calls stay"),
    fixtures=(
        "tests/codemods/test_confluent.py",
        "tests/codemods/test_refusals.py",
    ),
)
