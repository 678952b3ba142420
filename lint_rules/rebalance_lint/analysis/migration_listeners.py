"""Plan the kafka-python and aiokafka migration: listener classes, injected consumers, subscribe().

The unit is a listener class with every place it is instantiated and registered. It is
migrated only when all of it is safe: the class derives from the client's listener base and
nothing else; its callbacks take exactly ``(self, partitions)``; every instance is registered
in this file (or, in repository mode, at a migrated site of another); and the consumer its
callbacks reach is provably the consumer it is registered on. Anything else is refused, with
the reason, and left byte-identical.

This module only dispatches and combines; each shape is its own module under :mod:`.shapes`:
the registrations (:mod:`.shapes.listener_registration`, the creations they lead to:
:mod:`.shapes.listener_creations`, :mod:`.shapes.factory_listeners`,
:mod:`.shapes.kept_listeners`), the callbacks' signatures (:mod:`.shapes.listener_signatures`),
and how the callbacks reach the consumer: injected (:mod:`.shapes.injected_consumer`, also
through the listener's own methods: :mod:`.shapes.listener_helper_methods`), the
wrapper's own (:mod:`.shapes.own_consumer_wrappers`), a closure's or a global
(:mod:`.shapes.closure_global_consumers`), through an owner (:mod:`.shapes.indirect_injection`).
"""

from __future__ import annotations

import ast
from functools import partial

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS
from rebalance_guard._client_facts import CLIENTS, ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import (
    LISTENER_CLIENTS,
    Kind,
    ListenerSites,
    RemoteUses,
    Repository,
    _State,
)
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name, methods_of, view_name
from rebalance_lint.analysis.model import Analysis, IndirectInjection
from rebalance_lint.analysis.shapes.async_listener_base import plan_async_listener
from rebalance_lint.analysis.shapes.class_refusals import class_refusal
from rebalance_lint.analysis.shapes.closure_global_consumers import _plan_free_consumer
from rebalance_lint.analysis.shapes.direct_callback_calls import direct_calls, outside_callbacks
from rebalance_lint.analysis.shapes.harness_direct_calls import driven_instance, plan_harness_calls
from rebalance_lint.analysis.shapes.indirect_injection import refuse_what_stays
from rebalance_lint.analysis.shapes.injected_consumer import _plan_injection
from rebalance_lint.analysis.shapes.kept_listeners import _instance_escapes
from rebalance_lint.analysis.shapes.listener_bases import rebased_base
from rebalance_lint.analysis.shapes.listener_creations import _creations
from rebalance_lint.analysis.shapes.listener_helper_methods import helper_methods
from rebalance_lint.analysis.shapes.listener_registration import (
    _collect_registered,
    _plan_subscribe,
)
from rebalance_lint.analysis.shapes.listener_signatures import _callback_shape
from rebalance_lint.analysis.shapes.nested_listener_classes import created_through_attribute
from rebalance_lint.analysis.shapes.optional_client_import import optional_import
from rebalance_lint.analysis.shapes.own_consumer_wrappers import _plan_own_consumer, own_attribute
from rebalance_lint.analysis.shapes.partition_annotations import plan_partition_annotations
from rebalance_lint.analysis.shapes.repository_listeners import _remote_creations
from rebalance_lint.analysis.shapes.returned_values import plan_returned_values
from rebalance_lint.analysis.shapes.untyped_base_ignores import any_base_ignore


def plan_listeners(
    facts: FileFacts,
    analysis: Analysis,
    only: str | None = None,
    repository: Repository | None = None,
) -> MigrationPlan:
    """Everything KRB201-KRB203 find for kafka-python and aiokafka (or ``only`` one of them).

    The listener classes, the ``subscribe(listener=...)`` sites and their client are the rules'
    model's (:class:`~rebalance_lint.analysis.model.Analysis`): this module only decides
    whether and how each can be rewritten. ``repository`` (repository mode) adds what the
    other modules do with this file's listener classes: a class is then migrated together
    with its creations and registrations there, or not at all."""
    plan = MigrationPlan()
    index = facts.index
    clients = [
        c for c in LISTENER_CLIENTS if c.package in index.packages and only in (None, c.package)
    ]
    if not clients:
        return plan
    state = _State(facts, clients)
    classes = _listener_classes(analysis, clients)
    legacy = {cls: kind for cls, kind in classes.items() if kind[1] != "guard"}
    family_sites: dict[ast.ClassDef, list[tuple[int, MigrationPlan]]] = {}
    written = {span(call): call for call in index.method_calls.get("subscribe", [])}
    for registration in analysis.registrations:
        # the call as written (the model spells out ``**kwargs`` it can see in a new node)
        call = written.get(span(registration.call))
        if call is not None and not registration.guard and "listener" in registration.roles:
            client = CLIENTS.get(registration.client) if registration.client else None
            _plan_subscribe(
                call,
                client,
                state,
                classes,
                plan,
                family_sites,
                registration.own_subscribe,
                bare_base=registration.bare_base,
            )
    _collect_registered(analysis, state)
    if repository is not None:
        repository.sites(
            ListenerSites(
                dict(state.registrations),
                lambda call: _instance_escapes(call, state),
                lambda call: driven_instance(call, facts),
            )
        )
    closures = {f.listener.node: f for f in analysis.indirect if f.how == "closure"}
    for cls, (client, kind) in legacy.items():
        family = MigrationPlan()
        remote = repository.uses(cls) if repository is not None else None
        if kind == "async":
            state.remote, state.remote_plans = {}, {}
            reason: str | None = plan_async_listener(
                _plan_class, cls, client, state, family, remote, closures.get(cls)
            )
        else:
            state.remote, state.remote_plans = {}, {}
            reason = _plan_class(cls, client, state, family, remote, closures.get(cls))
        if reason is None:
            if remote is not None:
                remote.migrated, remote.edits = True, state.remote_plans
            plan.merge(family)
            for _, site in family_sites.get(cls, []):
                plan.merge(site)
        else:
            message = class_refusal(cls, reason)
            plan.refuse(cls.lineno, message)
            for line, _ in family_sites.get(cls, []):
                plan.refuse(line, message)  # one message: the registration waits for the class
    refuse_what_stays(analysis, legacy, plan, facts)
    return plan


def _listener_classes(analysis: Analysis, clients: list[ClientFacts]) -> dict[ast.ClassDef, Kind]:
    """The model's listener classes of these clients that name their listener base themselves:
    (client, "legacy" | "async" | "guard"). Those deriving through another class of the file
    are left to the user (KRB202 reports only the ones naming a client base)."""
    by_key = {client.key: client for client in clients}
    out: dict[ast.ClassDef, Kind] = {}
    for listener in analysis.listeners:
        client = by_key.get(listener.client) if listener.client is not None else None
        if client is not None and listener.named_base is not None:
            out[listener.node] = (client, listener.named_base)
    return out


def _plan_class(
    cls: ast.ClassDef,
    client: ClientFacts,
    state: _State,
    plan: MigrationPlan,
    remote: RemoteUses | None = None,
    closure: IndirectInjection | None = None,
) -> str | None:
    """Stage the migration of one legacy listener class in ``plan``; return why not, if not.

    ``remote`` (repository mode): the class's uses in the other modules; its creations there
    count as this file's, and the edits they need go to ``state.remote_plans``. ``closure``:
    the model found its callbacks using a consumer variable of the function defining it."""
    facts = state.facts
    optional = optional_import(facts, client.package, client.guard_module)
    if optional is not None:
        return optional
    base = rebased_base(cls, facts)
    if isinstance(base, str):
        return base
    if cls in state.pinned:
        return f"its subscribe() at line {state.pinned[cls]} cannot be migrated; fix that one first"
    methods = methods_of(cls)
    callbacks = {n: f for n, f in methods.items() if n in CALLBACKS}
    for fn in callbacks.values():
        reason = _callback_shape(fn, client, facts)
        if reason is not None:
            return reason
    reason, passing = direct_calls(cls, facts)
    if reason is not None:
        return reason
    own = state.self_registered.get(cls)
    # a wrapper registering itself on its own consumer takes nothing from its creations
    creations, reason = _creations(cls, facts, any_arguments=own is not None)
    if reason is not None:
        return reason
    reason = created_through_attribute(cls, facts)
    if reason is not None:
        return reason
    if own is None:
        if remote is not None:
            reason = _remote_creations(remote, state)
            if reason is not None:
                return reason
            creations += [c.call for c in remote.creations if c.driven is None or c.receiver]
            if not creations:
                return (
                    "no instance is created in this file or anywhere else in the repository "
                    "(the directory migrated); if it is created outside it, run rebalance-guard "
                    "migrate on a directory holding that code too"
                )
        if not creations:
            return (
                "no instance is created in this file; migrate it where it is registered: "
                "rebalance-guard migrate DIR, on the directory holding both, migrates the class "
                "with its registrations"
            )
        for creation in creations:
            if creation in state.remote:
                continue  # registered and vouched for in its own file (_remote_creations)
            if creation not in state.registrations:
                return (
                    f"the instance created at line {creation.lineno} is not registered with "
                    "subscribe(listener=...) in this file; register it where it is created first"
                )
            reason = _instance_escapes(creation, state)
            if reason is not None:
                return reason
    views: dict[Function, str] = {}
    for fn in callbacks.values():
        view = view_name(fn)
        if view is None:
            return (
                f"{fn.name} already uses every name the codemod would give the view; "
                "rename one first"
            )
        views[fn] = view
    if own is None:
        reason = _plan_free_consumer(cls, client, closure, creations, views, state, plan)
        if reason is not None:
            return reason
    kept = None  # a consumer injected and kept: the attribute holding it, never rebound
    if own is None:
        helpers = partial(helper_methods, cls, client, views=views, facts=facts)
        reason, kept = _plan_injection(cls, client, methods, creations, views, state, plan, helpers)
    else:
        reason = _plan_own_consumer(client, views, own, methods.get("__init__"), state, plan)
    if reason is not None:
        return reason
    driven = [c for c in remote.creations if c.driven and not c.receiver] if remote else []
    reason = plan_harness_calls(
        cls.name, driven, client, callbacks, plan, facts, state.remote_plans
    )
    if reason is not None:
        return reason
    stored = own_attribute(own, facts) if own is not None else None
    attr = stored if isinstance(stored, str) else kept  # the wrapper's own, or the kept one
    for call, kind, target, caller in passing:  # self.on_partitions_revoked(lost) in a callback
        value, reason = (views[caller], None) if caller else outside_callbacks(call, attr)
        if reason is not None:
            return reason
        if kind == "super":  # super().<callback>(partitions): the base takes it positionally
            plan.edit(Edit("append_arg", span(call), value=value))
        elif kind == "chain":  # another listener's: the view where its method takes it
            chain = guard_name(facts, facts.index.names, "rebalance_guard", "chain_callback", plan)
            plan.edit(Edit("chain_call", span(call), value=chain, extra=value))
        else:
            assert target is not None
            plan.edit(Edit("set_keyword", span(call), value=views[target], extra=value))
    reason = plan_returned_values(callbacks, client, facts, plan)  # after the view's edits
    if reason is not None:
        return reason
    taken = facts.index.names
    listener_name = guard_name(facts, taken, client.guard_module, "RebalanceListener", plan)
    plan.edit(Edit("rename_base", span(base), value=listener_name))
    ignore = any_base_ignore(cls, facts)
    if ignore is not None:  # the typed base needs no ignore: unused, it is an error of its own
        plan.edit(Edit("drop_header_comment", span(cls), value=ignore))
    plan.unused_imports.append(span(base))
    protocol = (  # no views: a listener keeping the base's no-op callbacks
        guard_name(facts, taken, client.guard_module, "RebalanceConsumer", plan) if views else ""
    )
    for fn, view in views.items():
        plan.edit(Edit("append_param", span(fn), value=view, annotation=protocol))
    plan_partition_annotations(views, client, facts, plan)
    plan.sites += 1
    plan.planned.add(span(cls))
    return None
