"""Plan the confluent-kafka migration: ``subscribe(on_assign=..., on_revoke=..., on_lost=...)``.

Both of confluent's consumer APIs take callbacks only in ``subscribe()``: the ``Consumer``
(``rebalance_guard.confluent_kafka``) and the asyncio ``AIOConsumer``
(``rebalance_guard.confluent_kafka_aio``, where callbacks are ``async def`` and every
consumer call is awaited). Which one a ``subscribe()`` is on comes from the rules' model
(each registration carries its client); the sites are the model's registrations.

The registered callbacks become the methods of a ``RebalanceListener``, registered through
the guard module's own ``subscribe(consumer, topics, listener)``:

* functions (module-level or nested): gathered into a listener class defined where they were
  (same scope, so every name in their bodies still means the same);
* lambdas (``on_assign=lambda c, p: reset(c, p, flag)``, also one assigned to a name first and
  used nowhere else): a method whose body is the lambda's expression, fully annotated (the
  partitions as ``list[TopicPartition]``), in the class with the functions, or without any
  just before the ``subscribe()`` statement (or in place of the lambda's assignment): the same
  function scope, so the names the lambda closes over still mean the same;
* ``functools.partial(handler, a, ...)`` of a function of the file: ``handler`` becomes the
  method as a function does; the parameters the partial binds (positionally before the
  consumer, or by keyword after the partitions) leave the method and become ``__init__``
  parameters stored on ``self`` (``settings`` -> ``self.settings`` in the body). The bound
  values were evaluated once, when ``subscribe()`` ran; they still are, as the listener's
  constructor arguments at the same call (see ``_bound_arguments``: a value with side
  effects that the constructor would evaluate twice or out of order is refused: assign it
  to a variable first);
* bound methods of the class that owns the consumer (``on_assign=self._on_assign``, also
  name-mangled ``self.__on_assign``): the owner itself becomes the listener (the listener base
  is appended to its bases, the methods are renamed to ``on_partitions_*`` with the view as
  their consumer parameter, ``subscribe(consumer, topics, self)``); a method something else in
  the file also calls keeps its name and signature, as a wrapper calling the listener method.

The callback's consumer parameter becomes the view. In ``on_partitions_assigned`` a final
``consumer.assign(partitions)`` becomes a seek per partition (the adapter assigns with the
sought offsets); a final ``unassign()`` in a revocation callback is dropped (the adapter
unassigns); "final" means nothing else in the callback can run after it (last statement,
possibly inside trailing ``if``/``with``); on the AIOConsumer the same holds for the awaited
calls. ``on_lost`` equal to ``on_revoke`` needs no method: ``on_partitions_lost`` defaults to
the revoke one. A bare ``commit()`` becomes synchronous, since the view's ``commit()`` is (the
fix for KRB103). Anything else is refused with the step that would make it migratable.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from rebalance_guard._client_facts import CLIENTS, CONFLUENT, ClientFacts
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.edits import Edit, LambdaMethod, MigrationPlan, Span, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    argument_count,
    consumer_escape_step,
    containing_list,
    dropped_coroutine,
    find_arg,
    guard_name,
    has_star_args,
    helper_takes_view,
    is_dotted,
    is_none,
    is_pure,
    methods_of,
    names_in,
    offered_by_view,
    only_computes,
    only_displayed,
    optional_import,
    returned_value,
    self_class,
    statement_layout,
    takes_no_self,
)
from rebalance_lint.analysis.model import Analysis, dotted

_ASSIGNS = {"assign", "incremental_assign"}
_UNASSIGNS = {"unassign", "incremental_unassign"}
Function = ast.FunctionDef | ast.AsyncFunctionDef
#: Bases an owner class cannot simply gain another base next to.
_SPECIAL_BASES = ("typing.", "typing_extensions.", "enum.", "ctypes.")


@dataclass(frozen=True)
class _Callback:
    keyword: str  # on_assign / on_revoke / on_lost
    function: Function | ast.Lambda
    method: bool = False  # a method of the owner class (``self`` first)
    static: bool = False  # a ``@staticmethod`` of the owner class (no ``self``)
    partial: ast.Call | None = None  # ``functools.partial(function, ...)`` was registered
    bound: tuple[str, ...] = ()  # the parameters that partial binds, in the def's order
    variable: ast.Name | None = None  # the name a lambda was assigned to first

    @property
    def label(self) -> str:
        if isinstance(self.function, ast.Lambda):
            return f"the {self.keyword}= lambda"
        return self.function.name

    def same_callable(self, other: _Callback) -> bool:
        """Whether both register the same function (through equal partials, if any)."""
        if self.function is not other.function:
            return False
        if self.partial is None or other.partial is None:
            return self.partial is other.partial
        return ast.dump(self.partial) == ast.dump(other.partial)


@dataclass
class _OwnerSites:
    """Registrations of one owner class's own methods (``on_assign=self._on_assign``)."""

    client: ClientFacts
    roles: dict[str, str]  # on_assign... -> method name
    calls: list[tuple[ast.Call, str]] = field(default_factory=list)  # (call, self name there)


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
    if not is_dotted(receiver):
        return (
            "the consumer is not a plain name, so the codemod cannot pass it along; "
            "assign it to a variable first"
        )
    if has_star_args(call):
        return (
            "subscribe() takes *args or **kwargs; the callbacks cannot be located safely; "
            "pass them by keyword first"
        )
    topics = find_arg(call, "topics", 0)
    used = {id(v) for v in values if v is not None} | {id(topics)}
    if topics is None or len(used) != argument_count(call):
        return "subscribe() has arguments the codemod does not know; migrate it by hand"
    if client.async_callbacks and len(call.args) > 1:
        return (
            "callbacks passed positionally to AIOConsumer.subscribe() are never awaited "
            "(KRB111); pass them by keyword (on_assign=...) first"
        )
    present = [
        (keyword, value)
        for keyword, value in zip(CONFLUENT_CALLBACKS, values, strict=True)
        if value is not None and not is_none(value)
    ]
    if any(isinstance(value, ast.Attribute) for _, value in present):
        return _collect_owner_site(call, present, client, facts, owners)
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
    for callback in callbacks:
        reason = _used_only_here(callback, call, facts)
        if reason is not None:
            return reason
    placement = _placement(call, callbacks, facts)
    if isinstance(placement, str):
        return placement
    anchor, mode = placement
    bound = _bound_arguments(callbacks, facts)
    if isinstance(bound, str):
        return bound
    for callback in callbacks:
        reason = _plan_callback(callback, client, facts, plan) or _assigns_itself(
            callback, dotted(call.func.value), facts
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


def _second_role(first: _Callback, again: _Callback, facts: FileFacts) -> str | None:
    """Why one def registered for two roles (``on_assign=on_rebalance, on_revoke=
    on_rebalance``, REAL_WORLD.md) cannot be one listener method under two names
    (``on_partitions_revoked = on_partitions_assigned``): not a plain def registered the
    same way twice, or it (un)assigns, which each role does differently."""
    label = first.label
    if isinstance(first.function, ast.Lambda) or first.partial or again.partial:
        return f"{label} is registered for two roles; split it into one per role"
    consumer = _consumer_param(first)
    for ref in facts.bindings.references(consumer, consumer.arg) or ():
        method = facts.parent(ref)
        if isinstance(method, ast.Attribute) and method.attr in _ASSIGNS | _UNASSIGNS:
            return (
                f"{label} is registered for two roles and calls consumer.{method.attr}() "
                f"(line {ref.lineno}), which each role replaces differently; split it into "
                "one per role"
            )
    return None


def _drop_annotation_import(param: ast.arg, plan: MigrationPlan) -> None:
    if param.annotation is not None:
        plan.unused_imports.append(span(param.annotation))


def _resolve(
    keyword: str, value: ast.expr, client: ClientFacts, facts: FileFacts
) -> _Callback | str:
    """The callback ``value`` registers (a def, a lambda, a partial of a def), or why not."""
    if isinstance(value, ast.Lambda):
        return _lambda_callback(keyword, value, None, client)
    if isinstance(value, ast.Call) and "functools.partial" in facts.qualnames(value.func):
        return _partial_callback(keyword, value, facts)
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    if isinstance(bound, ast.FunctionDef | ast.AsyncFunctionDef):
        return _Callback(keyword, bound)
    assignment = facts.parent(bound) if isinstance(bound, ast.Name) else None
    if (
        isinstance(bound, ast.Name)
        and isinstance(assignment, ast.Assign)
        and assignment.targets == [bound]
        and isinstance(assignment.value, ast.Lambda)
    ):
        return _lambda_callback(keyword, assignment.value, bound, client)
    return _not_a_def(keyword, value, facts)


def _lambda_callback(
    keyword: str, value: ast.Lambda, variable: ast.Name | None, client: ClientFacts
) -> _Callback | str:
    if client.async_callbacks:
        return (
            f"{keyword}= is a lambda, and AIOConsumer awaits what its callbacks return (a "
            f"lambda cannot await); define it with async def {keyword}(consumer, partitions) "
            "next to the subscribe() and pass its name, then run migrate again"
        )
    return _Callback(keyword, value, variable=variable)


def _partial_callback(keyword: str, value: ast.Call, facts: FileFacts) -> _Callback | str:
    """``functools.partial(handler, *bound)`` of a def of this file, checked."""
    wrapped = value.args[0] if value.args else None
    function = facts.bindings.binding(wrapped) if isinstance(wrapped, ast.Name) else None
    if has_star_args(value) or wrapped is None:
        return (
            f"{keyword}= is a functools.partial given *args or **kwargs; pass the function "
            "and the bound arguments one by one first"
        )
    if isinstance(wrapped, ast.Attribute) and self_class(wrapped.value, facts) is not None:
        return (
            f"{keyword}= is a functools.partial of the method {ast.unparse(wrapped)}; store "
            f"the bound values on {ast.unparse(wrapped.value)} and register the method itself "
            f"({keyword}={ast.unparse(wrapped)}, taking (self, consumer, partitions)) first"
        )
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        where = "imported, not" if isinstance(function, ast.Import | ast.ImportFrom) else "not"
        return (
            f"{keyword}= is a functools.partial of {ast.unparse(wrapped)}, which is {where} "
            f"a function defined in this file; write def {keyword}(consumer, partitions) "
            "calling it with the bound arguments next to the subscribe() and pass its name, "
            "then run migrate again"
        )
    args = function.args
    given = len(value.args) - 1
    rest = [a.arg for a in args.args[given + 2 :]] + [a.arg for a in args.kwonlyargs]
    keywords = [kw.arg for kw in value.keywords]
    if (
        args.posonlyargs
        or args.vararg
        or args.kwarg
        or args.defaults
        or any(d is not None for d in args.kw_defaults)
        or len(args.args) < given + 2
        or sorted(rest) != sorted(k for k in keywords if k is not None)
    ):
        return (
            f"functools.partial({function.name}, ...) does not leave exactly (consumer, "
            f"partitions) of {function.name} unbound (or {function.name} has defaults, *args "
            "or **kwargs); bind the parameters before the consumer positionally and the ones "
            "after the partitions by keyword, without defaults, first (KRB109)"
        )
    bound = tuple(a.arg for a in args.args[:given]) + tuple(rest)
    return _Callback(keyword, function, partial=value, bound=bound)


def _used_only_here(callback: _Callback, call: ast.Call, facts: FileFacts) -> str | None:
    """Why moving the callback into the listener would break another use of it."""
    function = callback.function
    if isinstance(function, ast.Lambda):
        if callback.variable is None:
            return None
        name = callback.variable.id
        refs = facts.bindings.references(callback.variable, name)
    else:
        name = function.name
        refs = facts.bindings.references(function, name)
    if refs is None or not all(
        _argument_of(r, call, facts) or _wrapped_by_argument(r, call, facts) for r in refs
    ):
        return (
            f"{name} is used elsewhere too; moving it into a listener class"
            " would break those uses; make them call a helper both use first"
        )
    return None


def _wrapped_by_argument(ref: ast.AST, call: ast.Call, facts: FileFacts) -> bool:
    """``ref`` is what a ``functools.partial(ref, ...)`` argument of ``call`` wraps."""
    partial = facts.parent(ref)
    return (
        isinstance(partial, ast.Call)
        and partial.args[:1] == [ref]
        and "functools.partial" in facts.qualnames(partial.func)
        and _argument_of(partial, call, facts)
    )


def _placement(
    call: ast.Call, callbacks: list[_Callback], facts: FileFacts
) -> tuple[ast.AST, int] | str:
    """Where the listener class goes (``gather``'s ``index``): at the first def (0), else
    just before the ``subscribe()`` statement (1) or in place of a lambda's assignment (2)."""
    defs = [cb.function for cb in callbacks if not isinstance(cb.function, ast.Lambda)]
    assignments = [facts.parent(cb.variable) for cb in callbacks if cb.variable is not None]
    anchor: ast.AST
    if defs:
        anchor = defs[0]
        if any(_block_of(f, facts) != _block_of(anchor, facts) for f in defs):
            return "the callbacks are defined in different blocks; define them together first"
    else:
        statement = assignments[0] if assignments else _statement_of(call, facts)
        if (
            statement is None
            or isinstance(facts.parent(statement), ast.ClassDef)
            or statement_layout(statement, facts) != "own"
        ):
            return (
                "the lambda's subscribe() (or assignment) is not a statement of its own in a "
                "function or module body, so the listener class has no place next to it; "
                "put it on a line of its own there first"
            )
        anchor = statement
    scope = facts.bindings.scope_at.get(anchor)
    for callback in callbacks:
        assignment = facts.parent(callback.variable) if callback.variable else None
        if isinstance(callback.function, ast.Lambda) and (
            facts.bindings.scope_at.get(callback.function) is not scope
            or (
                assignment is not None
                and (
                    _block_of(assignment, facts) != _block_of(anchor, facts)
                    or statement_layout(assignment, facts) != "own"
                )
            )
        ):
            return (
                f"{callback.label} is not defined next to the other callbacks (another "
                "block or function), where the listener class goes; define them in one place "
                f"first (the lambda as def {callback.keyword}(consumer, partitions) next to the "
                "others, or the others next to the subscribe())"
            )
    return anchor, 0 if defs else 2 if assignments else 1


def _statement_of(node: ast.AST, facts: FileFacts) -> ast.stmt | None:
    for ancestor in facts.bindings.ancestors(node):
        if isinstance(ancestor, ast.stmt):
            return ancestor
    return None


def _bound_arguments(callbacks: list[_Callback], facts: FileFacts) -> dict[str, str] | str:
    """The source of each value the partials bind, by parameter (the listener's constructor
    arguments, in this order), or why a bound parameter cannot become an attribute.

    The constructor call takes the partials' place in the ``subscribe()`` call, so every value
    is still evaluated once, when ``subscribe()`` runs, after the consumer and the topics. Its
    arguments follow the callbacks' and the functions' parameter order, not necessarily the
    source's: that is the same program when the values with side effects (calls, ...: not
    ``migration_facts.is_pure``) keep their relative order, and none is bound twice (the
    partials evaluated it once each; the listener would share one value)."""
    values: dict[str, str] = {}
    effects: list[tuple[tuple[int, int], str, ast.expr]] = []  # (where, parameter, value)
    text = "\n".join(facts.lines)
    for callback in callbacks:
        partial, function = callback.partial, callback.function
        if partial is None or isinstance(function, ast.Lambda):
            continue
        given = dict(zip(callback.bound, partial.args[1:], strict=False))
        given |= {kw.arg: kw.value for kw in partial.keywords if kw.arg is not None}
        for parameter in callback.bound:
            value = given[parameter]
            source = ast.get_source_segment(text, value) or ""
            shared = parameter in values
            if values.setdefault(parameter, source) != source:
                return (
                    f"two functools.partial callbacks bind {parameter} to different values; "
                    "rename the parameter in one of the functions first"
                )
            if not is_pure(value):
                if shared:
                    return _evaluated_once(function.name, value)
                effects.append(((value.lineno, value.col_offset), parameter, value))
            refs = facts.bindings.references(_param(function, parameter), parameter)
            if refs is None or any(
                isinstance(node, ast.Global | ast.Nonlocal) and parameter in node.names
                for node in ast.walk(function)
            ):
                return (
                    f"{function.name} rebinds {parameter}, which functools.partial binds "
                    "(it becomes an attribute of the listener); use a new name first"
                )
    in_source = [parameter for _, parameter, _ in sorted(effects, key=lambda e: e[0])]
    in_call = [parameter for parameter in values if parameter in in_source]
    if in_source != in_call:
        first = next(v for _, p, v in effects if p == in_call[0])
        name = next(cb.label for cb in callbacks if cb.partial and first in _partial_values(cb))
        return _evaluated_once(name, first)
    return values


def _partial_values(callback: _Callback) -> list[ast.expr]:
    partial = callback.partial
    return [] if partial is None else [*partial.args[1:], *(k.value for k in partial.keywords)]


def _evaluated_once(function: str, value: ast.expr) -> str:
    return (
        f"functools.partial({function}, ...) binds {ast.unparse(value)}, which has side "
        "effects and would be evaluated twice or in another order by the listener's "
        "constructor; assign it to a variable before the subscribe() and bind that, then "
        "run migrate again"
    )


def _param(function: Function, name: str) -> ast.arg:
    return next(a for a in [*function.args.args, *function.args.kwonlyargs] if a.arg == name)


def _consumer_param(callback: _Callback) -> ast.arg:
    """The callback's consumer parameter (the method's ``self`` and the bound ones skipped)."""
    offset = 1 if callback.method else 0
    if callback.partial is not None:
        offset += len(callback.partial.args) - 1
    return callback.function.args.args[offset]


def _lambda_tail(callback: _Callback, facts: FileFacts) -> str:
    """What a lambda's body becomes: "" itself, "drop" (a final unassign) or the loop
    variable of a seek loop (a final assign: checked by ``_check_callback``)."""
    function = callback.function
    body = function.body if isinstance(function, ast.Lambda) else None
    if not (
        isinstance(body, ast.Call)
        and isinstance(body.func, ast.Attribute)
        and isinstance(body.func.value, ast.Name)
        and body.func.value.id == function.args.args[0].arg
    ):
        return ""
    if body.func.attr in _UNASSIGNS:
        return "drop"
    if body.func.attr in _ASSIGNS:
        return "partition" if function.args.args[1].arg != "partition" else "tp"
    return ""


# -- bound methods: the owner becomes the listener ------------------------------------------


def _collect_owner_site(
    call: ast.Call,
    present: list[tuple[str, ast.expr]],
    client: ClientFacts,
    facts: FileFacts,
    owners: dict[ast.ClassDef, list[_OwnerSites]],
) -> str | None:
    """Check a registration of ``self.<method>`` callbacks; planned per owner class later."""
    roles: dict[str, str] = {}
    owner: ast.ClassDef | None = None
    self_name = ""
    for keyword, value in present:
        found = _owner_method(value, facts)
        if found is None:
            return (
                f"{keyword}= is not a method of the class that makes this call, reached "
                "through its self; register a method of this class or a function defined "
                "here instead"
            )
        cls, self_name, name = found
        if owner is not None and cls is not owner:
            return "the callbacks are methods of different classes; migrate it by hand"
        owner = cls
        if keyword == "on_lost" and roles.get("on_revoke") == name:
            continue  # on_lost=self._on_revoke: on_partitions_lost's default
        if name in roles.values():
            return f"{name} is registered for two roles; split it into one method per role"
        roles[keyword] = name
    assert owner is not None
    groups = owners.setdefault(owner, [])
    for group in groups:
        if group.roles == roles and group.client is client:
            group.calls.append((call, self_name))
            return None
    groups.append(_OwnerSites(client, roles, [(call, self_name)]))
    return None


def _owner_method(value: ast.expr, facts: FileFacts) -> tuple[ast.ClassDef, str, str] | None:
    """(owner class, the name its instance has at the call, method name) for ``self.<method>``
    in one of its methods, or ``vc.<method>`` with ``vc = Owner(...)`` bound once (REAL_WORLD.md:
    another object's bound methods registered, ``on_assign=handler.on_assign``)."""
    if not isinstance(value, ast.Attribute) or not isinstance(value.value, ast.Name):
        return None
    owner = self_class(value.value, facts) or _instance_class(value.value, facts)
    if owner is None:
        return _static_through_class(value, facts)
    return owner, value.value.id, value.attr


def _static_through_class(
    value: ast.Attribute, facts: FileFacts
) -> tuple[ast.ClassDef, str, str] | None:
    """``Owner.__on_revoke`` (a staticmethod named through its class) registered in a method
    of ``Owner`` itself: the same as ``self.__on_revoke``, so (owner, that method's self,
    method name)."""
    assert isinstance(value.value, ast.Name)
    owner = facts.bindings.binding(value.value)
    if not isinstance(owner, ast.ClassDef):
        return None
    method = methods_of(owner).get(value.attr)
    if method is None or not _is_staticmethod(method, facts):
        return None
    for node in facts.bindings.ancestors(value):
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node in owner.body
            and node.args.args
            and not any(takes_no_self(d) for d in node.decorator_list)
        ):
            return owner, node.args.args[0].arg, value.attr
    return None


def _instance_class(name: ast.Name, facts: FileFacts) -> ast.ClassDef | None:
    """The class of the file ``name`` holds when its one binding is ``name = Cls(...)``."""
    target = facts.bindings.binding(name)
    assign = facts.parent(target) if target is not None else None
    if not (
        isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and assign.targets[0] is target
        and isinstance(assign.value, ast.Call)
        and isinstance(assign.value.func, ast.Name)
    ):
        return None
    cls = facts.bindings.binding(assign.value.func)
    return cls if isinstance(cls, ast.ClassDef) else None


def _plan_owner(
    owner: ast.ClassDef,
    groups: list[_OwnerSites],
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> None:
    """Make ``owner`` its own listener, or refuse every one of its registrations."""
    site = MigrationPlan()
    reason = (
        "the class registers different sets of its methods as callbacks at different "
        "subscribe() calls; register one set everywhere first"
        if len(groups) != 1
        else _plan_owner_group(owner, groups[0], facts, taken, site)
    )
    if reason is None:
        plan.merge(site)
        return
    for group in groups:
        for call, _ in group.calls:
            plan.refuse(call.lineno, reason)


def _plan_owner_group(
    owner: ast.ClassDef,
    group: _OwnerSites,
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> str | None:
    client = group.client
    methods = methods_of(owner)
    clash = sorted(set(CONFLUENT_CALLBACKS.values()) & _class_names_bound(owner))
    if clash:
        return f"{owner.name} already defines {clash[0]}; it cannot become its own listener"
    if owner.keywords or (owner.decorator_list and not _only_dataclass(owner, facts)):
        return (
            f"{owner.name} has a metaclass or decorators; make a RebalanceListener class "
            "that calls its methods by hand"
        )
    for base in owner.bases:
        if not is_dotted(base) or any(
            name.startswith(_SPECIAL_BASES) for name in facts.qualnames(base)
        ):
            return (
                f"{owner.name} derives from {ast.unparse(base)}, which cannot take "
                "RebalanceListener as another base; make a listener class by hand"
            )
    callbacks: list[_Callback] = []
    delegated: set[str] = set()
    for keyword, name in group.roles.items():
        function = methods.get(name)
        if function is None:
            return (
                f"self.{name} is not defined in {owner.name} itself (inherited or assigned); "
                "define the callback in the class that registers it first"
            )
        registered = {span(v) for call, _ in group.calls for v in _callback_values(call)}
        others: list[ast.AST] = [
            node for node in facts.index.attributes.get(name, []) if span(node) not in registered
        ]
        others += [
            fn
            for cls in facts.index.classes
            if cls is not owner
            for fn in methods_of(cls).values()
            if fn.name == name
        ]
        static = _is_staticmethod(function, facts)
        callbacks.append(_Callback(keyword, function, method=not static, static=static))
        if others:
            if static:
                return (
                    f"{name} is a staticmethod also used at line "
                    f"{getattr(others[0], 'lineno', 0)}; make it a plain method taking "
                    "(self, consumer, partitions) first"
                )
            delegated.add(name)
            reason = _delegation_blocked(function, getattr(others[0], "lineno", 0), facts)
            if reason is not None:
                return reason
    for callback in callbacks:
        if callback.label in delegated:
            reason = _check_callback(callback, client, facts, plan, rewrite=False)
        else:
            reason = _plan_callback(callback, client, facts, plan)
        for call, self_name in group.calls:
            assert isinstance(call.func, ast.Attribute)
            receiver = dotted(call.func.value)
            if (
                reason is None
                and not callback.static
                and receiver is not None
                and receiver.startswith(self_name + ".")
            ):
                own_self = callback.function.args.args[0].arg if callback.function.args.args else ""
                reason = _assigns_itself(callback, own_self + receiver[len(self_name) :], facts)
        if reason is not None:
            return reason
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    plan.edit(Edit("add_base", span(owner), value=listener))
    for callback in callbacks:
        target = span(callback.function)
        method = CONFLUENT_CALLBACKS[callback.keyword]
        plan.edit(
            Edit(
                "listener_method",
                target,
                value=method,
                annotation=protocol,
                extra="static" if callback.static else "",
            )
        )
        _drop_annotation_import(_consumer_param(callback), plan)
        if callback.label in delegated:
            async_ = isinstance(callback.function, ast.AsyncFunctionDef)
            plan.edit(Edit("keep_method", target, value=method, index=1 if async_ else 0))
    for call, self_name in group.calls:
        plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=self_name))
        plan.sites += 1
        plan.planned.add(span(call))
    return None


def _is_staticmethod(function: Function, facts: FileFacts) -> bool:
    """Decorated with the builtin ``@staticmethod`` and nothing else: registered as
    ``self._on_assign`` it is called as ``(consumer, partitions)``, and as a listener method
    it only gains a ``self`` it does not use."""
    match function.decorator_list:
        case [ast.Name(id="staticmethod")]:
            return "staticmethod" not in facts.index.claimed and not any(
                isinstance(node, ast.Name) and node.id == "self" for node in ast.walk(function)
            )
    return False


def _class_names_bound(cls: ast.ClassDef) -> set[str]:
    """Names the class body binds (methods, attributes)."""
    names: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _only_dataclass(cls: ast.ClassDef, facts: FileFacts) -> bool:
    wanted = {"dataclasses.dataclass"}
    return all(
        facts.qualnames(d.func if isinstance(d, ast.Call) else d) & wanted
        for d in cls.decorator_list
    )


def _callback_values(call: ast.Call) -> list[ast.expr]:
    return [
        v
        for i, kw in enumerate(CONFLUENT_CALLBACKS)
        if (v := find_arg(call, kw, i + 1)) is not None
    ]


def _delegation_blocked(function: Function, line: int, facts: FileFacts) -> str | None:
    """Why a method also used elsewhere cannot be kept and called by the listener method."""
    consumer = function.args.args[1] if len(function.args.args) == 3 else None
    if consumer is not None and consumer.annotation is not None:
        return (
            f"{function.name} is also used at line {line} and its consumer parameter is "
            "annotated with the full consumer; drop the annotation or that use first"
        )
    return None


# -- one callback ---------------------------------------------------------------------------


def _guard_names(
    facts: FileFacts, taken: set[str], client: ClientFacts, plan: MigrationPlan
) -> tuple[str, str, str]:
    """Local names for the client's ``RebalanceListener``, ``RebalanceConsumer`` and
    ``subscribe``, their imports scheduled in ``plan``."""
    module = client.guard_module
    return (
        guard_name(facts, taken, module, "RebalanceListener", plan),
        guard_name(facts, taken, module, "RebalanceConsumer", plan),
        guard_name(facts, taken, module, "subscribe", plan),
    )


def _self_name(function: Function | ast.Lambda) -> str:
    """What the method's ``self`` is called: a name nothing in the function uses already."""
    taken = names_in(function)
    return next(n for n in ("self", "listener", "_self") if n not in taken)


def _argument_of(ref: ast.AST, call: ast.Call, facts: FileFacts) -> bool:
    parent = facts.parent(ref)
    if isinstance(parent, ast.keyword):
        return facts.parent(parent) is call
    return parent is call and call.func is not ref


def _block_of(function: ast.AST, facts: FileFacts) -> tuple[int, int]:
    """Which statement list holds ``function`` (a def or another statement; ``if`` and
    ``else`` bodies differ)."""
    parent = facts.parent(function)
    body = containing_list(parent, function) if parent is not None else None
    return id(parent), id(body)


def _class_names() -> list[str]:
    return ["RebalanceCallbacks", *(f"RebalanceCallbacks{i}" for i in range(2, 100))]


def _not_a_def(keyword: str, value: ast.expr, facts: FileFacts) -> str:
    """Why a registered callback is not a function, lambda or partial of this file, and the
    next step."""
    fix = (
        f"define it with def {keyword}(consumer, partitions) next to the subscribe() and "
        "pass its name, then run migrate again"
    )
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    if isinstance(bound, ast.Import | ast.ImportFrom):
        return (
            f"{keyword}= is imported ({ast.unparse(value)}); the codemod migrates callbacks "
            f"defined in the file that registers them: {fix}"
        )
    if isinstance(bound, ast.Name) and isinstance(facts.parent(bound), ast.Assign):
        return (
            f"{keyword}= is the variable {bound.id}, assigned at line {bound.lineno} from "
            "something other than a lambda; pass that function, lambda or "
            "functools.partial(...) to subscribe() directly first"
        )
    return (
        f"{keyword}= is not a function, lambda or functools.partial defined in this file "
        f"(imported, an attribute, a container item, a call); {fix}"
    )


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
            and dotted(node.func.value) == receiver
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
    if not isinstance(fn, ast.Lambda) and fn.decorator_list and not callback.static:
        return (
            f"{label} is decorated; the codemod cannot know what the decorator expects; "
            "migrate by hand"
        )
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
    ):
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
    if refs is None or part_refs is None:
        return f"{label} rebinds its consumer or partitions parameter; use a new name first"
    for ref in refs:
        if only_displayed(ref, facts) or isinstance(facts.parent(ref), ast.Delete):
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
            if helper_takes_view(ref, facts, _view_call_ok(client, facts)):
                continue  # the helper gets the view and calls only what it offers
            return (
                f"{label} uses the consumer other than to call a method (line {line}): "
                f"{consumer_escape_step(ref, facts)}"
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
                "the view's; move that call out of it first"
            )
            if reason is not None:
                return f"{reason} (line {line}); migrate it by hand"
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
    return None


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


def _tail_statement(
    call: ast.Call, fn: Function, facts: FileFacts, *, last: bool = True
) -> ast.Expr | None:
    """The statement ``call`` forms (awaited or not), run at most once by ``fn``: inside
    nothing but ``if``/``elif``/``else``/``with``; with ``last``, nothing in ``fn`` can run
    after it (each of those blocks ends with it)."""
    statement = facts.parent(call)
    if isinstance(statement, ast.Await):
        statement = facts.parent(statement)
    if not (isinstance(statement, ast.Expr) and statement_layout(statement, facts) == "own"):
        return None
    node: ast.AST = statement
    while True:
        owner = facts.parent(node)
        body = containing_list(owner, node) if owner is not None else None
        if not body or (last and body[-1] is not node):
            return None
        if owner is fn:
            return statement
        if not isinstance(owner, ast.If | ast.With | ast.AsyncWith):
            return None
        node = owner


def _only_text_after(statement: ast.stmt, fn: Function, facts: FileFacts) -> bool:
    """Whether everything ``fn`` runs after ``statement`` only logs, prints or computes values
    (:func:`only_computes`; no other call, no ``await``): it cannot see that a release moved
    to the end of the callback."""
    end = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
    for node in ast.walk(fn):
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if at < end:
            continue
        if isinstance(node, ast.Await | ast.Yield | ast.YieldFrom | ast.Lambda) or (
            isinstance(node, ast.Call) and not only_computes(node.func, facts)
        ):
            return False
    return True


def _each_at_an_offset(
    arg: ast.expr, partitions: str, function: Function, facts: FileFacts
) -> bool:
    """``[TopicPartition(p.topic, p.partition, <offset>) for p in partitions]``: each partition
    the callback got, once, at a starting offset (confluent's documented way to start
    elsewhere). ``seek_loop`` makes it ``for p in partitions: consumer.seek(TopicPartition(...))``;
    the view stages each seek into the assignment the adapter makes after the callback. The
    loop variable then lives on in the function, so it must be used nowhere else there."""
    if not (isinstance(arg, ast.ListComp) and len(arg.generators) == 1):
        return False
    loop = arg.generators[0]
    if (
        loop.ifs
        or loop.is_async
        or not isinstance(loop.target, ast.Name)
        or not (isinstance(loop.iter, ast.Name) and loop.iter.id == partitions)
    ):
        return False
    each, made = loop.target.id, arg.elt
    if not (
        isinstance(made, ast.Call)
        and any(
            q.partition(".")[0] == CONFLUENT.package and q.endswith(".TopicPartition")
            for q in facts.qualnames(made.func)
        )
        and len(made.args) <= 3
        and not any(isinstance(a, ast.Starred) for a in made.args)
    ):
        return False
    fields = dict(zip(("topic", "partition", "offset"), made.args, strict=False))
    for keyword in made.keywords:
        if keyword.arg not in ("topic", "partition", "offset") or keyword.arg in fields:
            return False
        fields[keyword.arg] = keyword.value
    same = all(
        isinstance(value := fields.get(field), ast.Attribute)
        and value.attr == field
        and isinstance(value.value, ast.Name)
        and value.value.id == each
        for field in ("topic", "partition")
    )
    inside = set(ast.walk(arg))
    for other in ast.walk(function):  # comprehensions binding the same name have their own
        if isinstance(other, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) and any(
            isinstance(loop.target, ast.Name) and loop.target.id == each
            for loop in other.generators
        ):
            inside.update(ast.walk(other))
    return (
        same
        and "offset" in fields
        and not any(
            isinstance(node, ast.Name) and node.id == each and node not in inside
            for node in ast.walk(function)
        )
    )


def _plan_final(
    callback: _Callback,
    call: ast.Call,
    name: str,
    partitions: str,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """A final ``assign(partitions)`` in on_assign, or ``unassign`` in a revocation (in a
    lambda: its whole body; ``gather`` rewrites it, see ``_lambda_tail``)."""
    function = callback.function
    last: ast.AST | None
    if isinstance(function, ast.Lambda):
        last = call if function.body is call else None
    else:
        # KIP-1306: on_partitions_assigned runs once the partitions are assigned, so what
        # follows an assign sees them assigned on the view too (its seeks are staged, its
        # pauses held); what follows a release would still see them: nothing but logging
        last = _tail_statement(call, function, facts, last=name not in _ASSIGNS)
        if last is None and name not in _ASSIGNS:
            last = _tail_statement(call, function, facts, last=False)
            if last is not None and not _only_text_after(last, function, facts):
                last = None
    if last is None and name in _ASSIGNS and not isinstance(function, ast.Lambda):
        return (
            f"consumer.{name}() is not a statement {callback.label} runs once (it sits in "
            "a loop, a try or an expression)"
        )
    if last is None:
        return f"consumer.{name}() is not the last thing {callback.label} does"
    arg_ok = (
        len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == partitions
    )
    if name in _ASSIGNS:
        at_offsets = (
            len(call.args) == 1
            and not call.keywords
            and not isinstance(function, ast.Lambda)
            and _each_at_an_offset(call.args[0], partitions, function, facts)
        )
        if callback.keyword != "on_assign" or not (arg_ok or at_offsets):
            return f"consumer.{name}() does not assign exactly the callback's partitions"
        loop_var = "partition" if partitions != "partition" else "tp"
        if not isinstance(function, ast.Lambda):
            plan.edit(Edit("seek_loop", span(last), value=partitions, extra=loop_var))
        return None
    if callback.keyword == "on_assign" or (name == "incremental_unassign" and not arg_ok):
        return f"consumer.{name}() does not release exactly the callback's partitions"
    if name == "unassign" and (call.args or call.keywords):
        return "consumer.unassign() with arguments"
    if not isinstance(function, ast.Lambda):
        plan.edit(Edit("drop_final", span(last)))
    return None
