"""Shape: ``c.subscribe(topics, listener=l)`` becomes ``set_rebalance_listener(c, l)`` then
``c.subscribe(topics)``, only for a statement of its own on a plainly named consumer; where
registering the listener first could change the order in which the arguments' side effects
happen, the earlier arguments go into variables first (:mod:`.hoisted_arguments`); a bare
base instance (``listener=ConsumerRebalanceListener()``) too. A registration of an optional
listener (:mod:`.optional_listeners`) splits whatever becomes of its class:
``set_rebalance_listener`` takes ``None`` and legacy listeners alike."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.listener_state import LISTENER_POSITION, Kind, _class_of, _code, _State
from rebalance_lint.analysis.migration_expressions import (
    argument_count,
    find_arg,
    has_star_args,
    is_dotted,
    is_none,
    is_pure,
    ordered_args,
)
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    guard_name,
    methods_of,
    self_class,
    statement_layout,
)
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.hoisted_arguments import hoisted_arguments
from rebalance_lint.analysis.shapes.listener_creations import _held_creations
from rebalance_lint.analysis.shapes.optional_client_import import optional_import
from rebalance_lint.analysis.shapes.unknown_listener_bases import (
    self_refusal,
    unknown_base_refusal,
)


def _plan_subscribe(
    call: ast.Call,
    registered_client: ClientFacts | None,
    state: _State,
    classes: dict[ast.ClassDef, Kind],
    plan: MigrationPlan,
    family_sites: dict[ast.ClassDef, list[tuple[int, MigrationPlan]]],
    own_subscribe: str | None = None,
    *,
    bare_base: bool = False,
) -> None:
    value = find_arg(call, "listener", LISTENER_POSITION)
    if value is None or is_none(value):
        return
    facts = state.facts
    held, creation, optional = _held_creations(value, state)
    cls = _class_of(creation, state)
    if optional and cls not in classes:
        cls = None  # not a listener class of the planner's: a value as from elsewhere
    kind = classes.get(cls) if cls is not None else None
    own = self_class(value, facts)  # listener=self in a method of the listener class itself
    if own is not None and own in classes and isinstance(call.func, ast.Attribute):
        assert isinstance(value, ast.Name)
        state.self_registered.setdefault(own, []).append((_code(call.func.value), value))
    unbased_self = self_refusal(own, facts) if own is not None and own not in classes else None
    if kind is not None:
        client = kind[0]
    elif cls is not None:
        plan.refuse(call.lineno, unknown_base_refusal(cls, facts))
        return
    elif unbased_self is not None:
        plan.refuse(call.lineno, unbased_self)
        return
    elif registered_client is not None and registered_client in state.clients:
        client = registered_client  # a listener from elsewhere: the runtime takes legacy ones too
    else:
        plan.refuse(
            call.lineno,
            (
                "cannot tell which Kafka client this subscribe() belongs to; create the "
                "consumer (KafkaConsumer or AIOKafkaConsumer) in this file or annotate it first"
            ),
        )
        return
    reason = optional_import(facts, client.package, client.guard_module) or _why_not_splittable(
        call, value, creation, cls, facts, bare_base=bare_base
    )
    if own_subscribe is not None:
        reason = (
            f"{own_subscribe}, which may wrap or forward listener=; registering the listener "
            "with set_rebalance_listener() would bypass it: register the migrated listener "
            "inside that subscribe() by hand"
        )
    if reason is not None:
        plan.refuse(call.lineno, reason)
        for pinned in {_class_of(c, state) for c in held} | {cls}:
            if pinned is not None:
                state.pinned[pinned] = call.lineno
        return
    site = MigrationPlan()
    statement = facts.parent(call)
    assert isinstance(statement, ast.Expr)
    setter = guard_name(
        facts, facts.index.names, client.guard_module, "set_rebalance_listener", site
    )
    in_order = _evaluated_in_order(call, value, creation, cls, facts, bare_base=bare_base)
    hoisted = () if in_order else hoisted_arguments(call, value, facts)
    site.edit(Edit("split_subscribe", span(statement), value=setter, names=hoisted))
    site.sites += 1
    site.planned.add(span(call))
    state.registered_values.add(value)
    for registered in held:  # an optional listener's creation counts as registered here
        assert isinstance(call.func, ast.Attribute)
        receiver = _code(call.func.value)
        if registered in state.through_parameters:  # never the creation's scope's consumer
            receiver = f"{receiver} (of the function it is handed to)"
        state.registrations[registered] = receiver
        state.registration_calls[registered] = call
    if cls is not None and kind is not None and kind[1] != "guard" and not optional:
        family_sites.setdefault(cls, []).append((call.lineno, site))
    else:  # an optional listener's registration splits whatever its class becomes
        plan.merge(site)


def _why_not_splittable(
    call: ast.Call,
    listener: ast.expr,
    creation: ast.Call | None,
    cls: ast.ClassDef | None,
    facts: FileFacts,
    *,
    bare_base: bool = False,
) -> str | None:
    """Why ``subscribe(listener=...)`` cannot become ``set_rebalance_listener`` then
    ``subscribe()`` (None when it can); ``bare_base``: the model's
    :attr:`~.model.Registration.bare_base`."""
    statement = facts.parent(call)
    layout = statement_layout(statement, facts) if isinstance(statement, ast.Expr) else "value"
    if layout in ("value", "suite"):
        return (
            "subscribe(listener=...) is used as a value (its value is None); call it as a "
            "statement of its own line, then run migrate again"
        )
    if layout == "shared":
        return "subscribe(listener=...) shares its line with other statements; give it a line first"
    assert isinstance(call.func, ast.Attribute)
    if not is_dotted(call.func.value):
        return (
            "the consumer is not a plain name, so it cannot be named twice; assign it to one first"
        )
    if has_star_args(call):
        return (
            "subscribe() takes *args or **kwargs; the listener cannot be located safely; "
            "pass listener= first"
        )
    assert statement is not None
    if not _evaluated_in_order(call, listener, creation, cls, facts, bare_base=bare_base) and (
        isinstance(facts.parent(statement), ast.ClassDef)
    ):
        return (
            "registering the listener first would change the order its arguments are "
            "evaluated, and in a class body they cannot go into variables first (they would "
            "become class attributes); compute them into variables first"
        )
    return None


def _evaluated_in_order(
    call: ast.Call,
    listener: ast.expr,
    creation: ast.Call | None,
    cls: ast.ClassDef | None,
    facts: FileFacts,
    *,
    bare_base: bool,
) -> bool:
    """Whether registering the listener first cannot change the order in which the
    arguments' side effects happen (else :mod:`.hoisted_arguments` evaluates the earlier
    ones into variables first)."""
    others = [arg for arg in ordered_args(call) if arg is not listener]
    creation_pure = creation is listener and (
        (
            cls is not None
            and _init_only_stores(cls, facts)
            and all(is_pure(a) for a in ordered_args(creation))
        )
        or bare_base
    )
    return all(is_pure(v) for v in others) or is_pure(listener) or creation_pure


def _init_only_stores(cls: ast.ClassDef, facts: FileFacts) -> bool:
    """Whether creating ``cls`` runs nothing but ``self.x = <pure>`` (so it can move earlier)."""
    init = methods_of(cls).get("__init__")
    if init is None:
        return True
    for stmt in _block(init, facts):
        if isinstance(stmt, ast.Pass):
            continue
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str | bytes)
        ):
            continue  # a docstring
        if not (
            isinstance(stmt, ast.Assign)
            and all(isinstance(t, ast.Attribute) for t in stmt.targets)
            and is_pure(stmt.value)
        ):
            return False
    return True


def _block(fn: Function, facts: FileFacts) -> list[ast.stmt]:
    """The statements of an indented body (a one-line ``def f(): x`` has none to edit)."""
    return [] if statement_layout(fn.body[0], facts) == "suite" else list(fn.body)


def _collect_registered(analysis: Analysis, state: _State) -> None:
    """Instances already passed to ``set_rebalance_listener`` (the model's already-migrated
    registrations) count as registered."""
    keys = {c.key for c in state.clients}
    for registration in analysis.registrations:
        call = registration.call
        if registration.guard and registration.client in keys and argument_count(call) == 2:
            consumer, listener = ordered_args(call)
            state.registered_values.add(listener)
            for creation in _held_creations(listener, state)[0]:
                state.registrations[creation] = _code(consumer)


SHAPE = Shape(
    name="listener registrations",
    planner="listeners",
    recognises=("the model's registrations with a listener role (kafka-python, aiokafka)"),
    plan=("split_subscribe"),
    fixtures=(
        "tests/codemods/test_kafka_python.py",
        "tests/codemods/test_aiokafka.py",
        "tests/codemods/test_refusals.py",
        "tests/codemods/test_evaluation_order.py",
    ),
)
