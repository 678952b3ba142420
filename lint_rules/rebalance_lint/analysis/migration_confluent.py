"""Plan the confluent-kafka migration: ``subscribe(on_assign=..., on_revoke=..., on_lost=...)``.

Both of confluent's consumer APIs take callbacks only in ``subscribe()``: the ``Consumer``
(``rebalance_guard.confluent_kafka``) and the asyncio ``AIOConsumer``
(``rebalance_guard.confluent_kafka_aio``, where callbacks are ``async def`` and every
consumer call is awaited). Which one a ``subscribe()`` is on comes from the rules' model
(each registration carries its client); the sites are the model's registrations.

This module only dispatches and combines: the registered callbacks become the methods of a
``RebalanceListener``, registered through the guard module's own
``subscribe(consumer, topics, listener)``. Each value is resolved by the shape that recognises
it (:mod:`.shapes.lambdas`, :mod:`.shapes.partials`, :mod:`.shapes.confluent_functions`, else
:mod:`.shapes.unknown_callbacks` says why not); bound methods of the consumer's owner go to
:mod:`.shapes.owner_callbacks` (the owner becomes its own listener); parameters of the
function calling ``subscribe()`` to :mod:`.shapes.callback_parameters`; one def in two roles to
:mod:`.shapes.two_roles`; a callback chosen at run time among defs to
:mod:`.shapes.chosen_callbacks`, one made by a factory of the file to
:mod:`.shapes.factory_callbacks`; callbacks given by position to an AIOConsumer to
:mod:`.shapes.aio_positional_callbacks`; each callback's body to
:mod:`.shapes.callback_takes_view` (with
:mod:`.shapes.assign_release` and :mod:`.shapes.assign_at_offsets`). ``on_lost`` equal to
``on_revoke`` needs no method: ``on_partitions_lost`` defaults to the revoke one. Anything
else is refused with the step that would make it migratable.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from rebalance_guard._client_facts import CLIENTS, CONFLUENT, ClientFacts
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.confluent_callback import (
    _Callback,
    _class_names,
    _consumer_param,
    _drop_annotation_import,
    _guard_names,
    _param,
    _self_name,
)
from rebalance_lint.analysis.edits import Edit, LambdaMethod, MigrationPlan, Span, span
from rebalance_lint.analysis.migration_expressions import (
    argument_count,
    find_arg,
    has_star_args,
    is_none,
    is_plain_reference,
)
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name
from rebalance_lint.analysis.model import Analysis, Registration
from rebalance_lint.analysis.shapes import (
    callback_parameters,
    callback_variables,
    chosen_callbacks,
    confluent_functions,
    factory_callbacks,
    lambdas,
    partials,
)
from rebalance_lint.analysis.shapes.aio_positional_callbacks import positional_sync_callback
from rebalance_lint.analysis.shapes.callback_takes_view import _assigns_itself, _check_callback
from rebalance_lint.analysis.shapes.callback_variables import dropped_aliases
from rebalance_lint.analysis.shapes.confluent_functions import _placement, _used_only_here
from rebalance_lint.analysis.shapes.lambdas import _lambda_tail
from rebalance_lint.analysis.shapes.optional_client_import import optional_import
from rebalance_lint.analysis.shapes.owner_callbacks import (
    _collect_owner_site,
    _OwnerSites,
    _plan_owner,
)
from rebalance_lint.analysis.shapes.partials import _bound_arguments
from rebalance_lint.analysis.shapes.shared_callbacks import kept_and_called
from rebalance_lint.analysis.shapes.two_roles import _second_role
from rebalance_lint.analysis.shapes.unknown_callbacks import _not_a_def

#: What a callback shape makes of a registered value: its callback, why not, or None (not
#: that shape).
Resolve = Callable[[str, ast.expr, ClientFacts, FileFacts], "_Callback | str | None"]
#: The shapes a registered value may have, asked in turn (each recognises values the others
#: do not): ``on_assign=lambda ...`` (or a name bound to one), ``functools.partial(f, ...)``,
#: a def's name; bound methods are :mod:`.shapes.owner_callbacks`' (see ``_plan_site``).
CALLBACK_SHAPES: tuple[Resolve, ...] = (
    lambdas.resolve,
    partials.resolve,
    confluent_functions.resolve,
    callback_variables.resolve,
)


def plan_confluent(facts: FileFacts, analysis: Analysis) -> MigrationPlan:
    """Every confluent registration of the model, as edits or refusals."""
    plan = MigrationPlan()
    taken = set(facts.index.names)
    subscribes = {span(c): c for c in facts.index.method_calls.get("subscribe", [])}
    owners: dict[ast.ClassDef, list[_OwnerSites]] = {}
    seen: set[Span] = set()  # one plan per call, however many ways the model reached it
    for registration in analysis.registrations:
        if registration.guard or registration.client not in ("confluent", "confluent_aio"):
            continue
        if span(registration.call) in seen:
            continue
        seen.add(span(registration.call))
        client = CLIENTS[registration.client]
        call = subscribes.get(span(registration.call))
        optional = optional_import(facts, client.package, client.guard_module)
        if optional is not None:
            plan.refuse(registration.call.lineno, optional)
            continue
        if registration.own_subscribe is not None:
            plan.refuse(registration.call.lineno, _not_the_clients_subscribe(registration))
            continue
        if call is None:
            plan.refuse(
                registration.call.lineno,
                "the callbacks reach subscribe() through data flow (a helper, an executor, "
                "a variable); call consumer.subscribe(topics, on_assign=...) directly first",
            )
            continue
        values = [find_arg(call, kw, i + 1) for i, kw in enumerate(CONFLUENT_CALLBACKS)]
        site = MigrationPlan()
        reason = _plan_site(call, values, client, facts, taken, site, owners)
        if reason is None:
            plan.merge(site)
        else:
            plan.refuse(call.lineno, reason)
    for owner, groups in owners.items():
        _plan_owner(owner, groups, facts, taken, plan)
    return plan


def _not_the_clients_subscribe(registration: Registration) -> str:
    """The refusal for a receiver whose ``subscribe()`` may not be the client's: the adapter
    calls ``subscribe(topics, on_assign=, on_revoke=, on_lost=)`` on it, which a wrapper may
    not take (feature-pipeline's ConsumerProxy has no ``on_lost``) or may not forward."""
    return (
        f"{registration.own_subscribe}, which the adapter would call with on_assign=, "
        "on_revoke= and on_lost= (it may not take or forward them): subscribe the client's "
        "consumer itself, or register the migrated listener inside that subscribe() by hand"
    )


def _plan_site(
    call: ast.Call,
    values: list[ast.expr | None],
    client: ClientFacts,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
    owners: dict[ast.ClassDef, list[_OwnerSites]],
) -> str | None:
    assert isinstance(call.func, ast.Attribute)
    receiver = call.func.value
    if isinstance(receiver, ast.Call) and ast.unparse(receiver.func) == "super":
        return (
            "super().subscribe() in a consumer subclass: the subclass's own subscribe() "
            "wraps the registration; register a listener there by hand with "
            f"{client.guard_module}.subscribe(super(), topics, listener)"
        )
    if not is_plain_reference(receiver):
        return (
            "the consumer is not a plain name, so the codemod cannot pass it along (an item "
            "of one at a name or constant key it passes as written); assign it to a variable "
            "first"
        )
    if has_star_args(call):
        return (
            "subscribe() takes *args or **kwargs; the callbacks cannot be located safely; "
            "pass them by keyword first"
        )
    topics = find_arg(call, "topics", 0)
    used = {id(v) for v in values if v is not None} | {id(topics)}
    if topics is None or len(used) != argument_count(call):
        return (
            "subscribe() has arguments the codemod does not know (it moves the topics and "
            "the on_assign=/on_revoke=/on_lost= callbacks only); pass just those, then run "
            "migrate again"
        )
    given_none = [
        (keyword, any(value is arg for arg in call.args))
        for keyword, value in zip(CONFLUENT_CALLBACKS, values, strict=True)
        if value is not None and is_none(value)
    ]
    if given_none:  # not "no callback": the migrated subscribe() would work where this fails
        keyword, positional = given_none[0]
        written = f"None in {keyword}'s position" if positional else f"{keyword}=None"
        return (
            f"{written} is not a callback: confluent's subscribe() raises TypeError "
            f"({keyword} expects a callable; AIOConsumer given it by keyword fails at the "
            "first rebalance instead); drop it (pass the callbacks after it by keyword), "
            "then run migrate again"
        )
    reason = positional_sync_callback(call, values, client, facts)
    if reason is not None:
        return reason
    present = [
        (keyword, value)
        for keyword, value in zip(CONFLUENT_CALLBACKS, values, strict=True)
        if value is not None
    ]
    if any(isinstance(value, ast.Attribute) for _, value in present):
        return callback_parameters.handler_parameter(present, facts) or _collect_owner_site(
            call, present, client, facts, owners
        )
    if any(callback_parameters.parameter_of(value, facts) for _, value in present):
        return callback_parameters.plan_helper(call, present, client, facts, taken, plan)
    if any(chosen_callbacks.chosen(value, facts) for _, value in present):
        return chosen_callbacks.plan_chosen(call, present, client, facts, taken, plan)
    if any(factory_callbacks.made_by_factory(value, facts) for _, value in present):
        return factory_callbacks.plan_factory(call, present, client, facts, taken, plan)
    callbacks: list[_Callback] = []
    aliases: list[tuple[_Callback, str]] = []  # one def in a second role: (its callback, role)
    for keyword, value in present:
        found = _resolve(keyword, value, client, facts)
        if isinstance(found, str):
            return found
        if keyword == "on_lost" and any(
            cb.keyword == "on_revoke" and cb.same_callable(found) for cb in callbacks
        ):
            continue  # on_lost=on_revoke is what on_partitions_lost does by default
        first = next((cb for cb in callbacks if cb.function is found.function), None)
        if first is not None:
            reason = _second_role(first, found, facts)
            if reason is not None:
                return reason
            aliases.append((first, found.keyword))
            continue
        callbacks.append(found)
    delegated: set[str] = set()  # used elsewhere too: kept, and called by the listener
    for callback in callbacks:
        reason = _used_only_here(callback, call, facts)
        if reason is not None:
            reason = kept_and_called(callback, reason, client, facts, plan)
            if reason is not None:
                return reason
            assert not isinstance(callback.function, ast.Lambda)
            delegated.add(callback.function.name)
    placement = _placement(call, callbacks, facts)
    if isinstance(placement, str):
        return placement
    anchor, mode = placement
    dropped = dropped_aliases(callbacks, call, anchor, facts)
    if isinstance(dropped, str):
        return dropped
    bound = _bound_arguments(callbacks, facts)
    if isinstance(bound, str):
        return bound
    for callback in callbacks:
        kept = callback.label in delegated
        reason = _check_callback(callback, client, facts, plan, rewrite=not kept) or (
            _assigns_itself(callback, ast.unparse(call.func.value), facts)
        )
        if reason is not None:
            return reason
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    class_name = next(n for n in _class_names() if n not in taken)
    taken.add(class_name)
    names: list[tuple[str, str, str]] = []
    lambdas: list[LambdaMethod] = []
    attributes: list[tuple[str, str]] = []
    for callback in callbacks:
        method = CONFLUENT_CALLBACKS[callback.keyword]
        self_name = _self_name(callback.function)
        function = callback.function
        if isinstance(function, ast.Lambda):
            partitions = guard_name(facts, taken, CONFLUENT.package, "TopicPartition", plan)
            tail = _lambda_tail(callback, facts)
            lambdas.append(
                LambdaMethod(span(function), method, self_name, f"list[{partitions}]", tail)
            )
            continue
        names.append((function.name, method, self_name))
        names.extend(
            (function.name, CONFLUENT_CALLBACKS[role], self_name)
            for same, role in aliases
            if same is callback
        )
        for parameter in callback.bound:
            attributes.append((function.name, parameter))
            for ref in facts.bindings.references(_param(function, parameter), parameter) or ():
                plan.edit(Edit("replace_with_name", span(ref), value=f"{self_name}.{parameter}"))
    plan.edit(
        Edit(
            "gather",
            span(anchor),
            value=class_name,
            extra=listener,
            annotation=protocol,
            names=tuple(names),
            index=mode,
            lambdas=tuple(lambdas),
            bound=tuple(attributes),
            delegated=tuple(sorted(delegated)),
            dropped=dropped,
        )
    )
    arguments = ", ".join(bound.values())
    plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=f"{class_name}({arguments})"))
    for callback in callbacks:
        if callback.partial is not None:
            plan.unused_imports.append(span(callback.partial.func))
        if not isinstance(callback.function, ast.Lambda):
            _drop_annotation_import(_consumer_param(callback), plan)
    plan.sites += 1
    plan.planned.add(span(call))
    return None


def _resolve(
    keyword: str, value: ast.expr, client: ClientFacts, facts: FileFacts
) -> _Callback | str:
    """The callback ``value`` registers, from the first shape that recognises it (their
    conditions exclude each other), or why none does."""
    for resolve in CALLBACK_SHAPES:
        found = resolve(keyword, value, client, facts)
        if found is not None:
            return found
    return _not_a_def(keyword, value, facts)
