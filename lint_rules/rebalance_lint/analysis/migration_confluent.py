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
from dataclasses import dataclass, field

from rebalance_guard._client_facts import CLIENTS, CONFLUENT, ClientFacts
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.edits import Edit, MigrationPlan, Span, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    argument_count,
    consumer_escape_step,
    containing_list,
    find_arg,
    guard_name,
    has_star_args,
    is_dotted,
    is_none,
    methods_of,
    names_in,
    returned_value,
    self_class,
    statement_layout,
)
from rebalance_lint.analysis.model import Analysis

_ASSIGNS = {"assign", "incremental_assign"}
_UNASSIGNS = {"unassign", "incremental_unassign"}
Function = ast.FunctionDef | ast.AsyncFunctionDef
#: Bases an owner class cannot simply gain another base next to.
_SPECIAL_BASES = ("typing.", "typing_extensions.", "enum.", "ctypes.")


@dataclass(frozen=True)
class _Callback:
    keyword: str  # on_assign / on_revoke / on_lost
    function: Function
    method: bool = False  # a method of the owner class (``self`` first)


@dataclass
class _OwnerSites:
    """Registrations of one owner class's own methods (``on_assign=self._on_assign``)."""

    client: ClientFacts
    roles: dict[str, str]  # on_assign... -> method name
    calls: list[tuple[ast.Call, str]] = field(default_factory=list)  # (call, self name there)


def plan_confluent(facts: FileFacts, analysis: Analysis) -> MigrationPlan:
    """Every confluent registration of the model, as edits or refusals."""
    plan = MigrationPlan()
    if CONFLUENT.package not in facts.index.packages:
        return plan
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
    if not is_dotted(call.func.value):
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
    for keyword, value in present:
        function = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return _not_a_def(keyword, value, facts)
        if keyword == "on_lost" and any(
            cb.keyword == "on_revoke" and cb.function is function for cb in callbacks
        ):
            continue  # on_lost=on_revoke is what on_partitions_lost does by default
        if any(cb.function is function for cb in callbacks):
            return f"{function.name} is registered for two roles; split it into one per role"
        callbacks.append(_Callback(keyword, function))
    for callback in callbacks:
        function = callback.function
        refs = facts.bindings.references(function, function.name)
        here = [r for r in refs or () if _argument_of(r, call, facts)]
        if refs is None or len(refs) != len(here):
            return (
                f"{function.name} is used elsewhere too; moving it into a listener class"
                " would break those uses; make them call a helper both use first"
            )
    block = _block_of(callbacks[0].function, facts)
    if any(_block_of(cb.function, facts) != block for cb in callbacks):
        return "the callbacks are defined in different blocks; define them together first"
    for callback in callbacks:
        reason = _plan_callback(callback, client, facts, plan)
        if reason is not None:
            return reason
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    class_name = next(n for n in _class_names() if n not in taken)
    taken.add(class_name)
    names = tuple(
        (cb.function.name, CONFLUENT_CALLBACKS[cb.keyword], _self_name(cb.function))
        for cb in callbacks
    )
    plan.edit(
        Edit(
            "gather",
            span(callbacks[0].function),
            value=class_name,
            extra=listener,
            annotation=protocol,
            names=names,
        )
    )
    plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=f"{class_name}()"))
    for callback in callbacks:
        _drop_annotation_import(callback.function.args.args[0], plan)
    plan.sites += 1
    plan.planned.add(span(call))
    return None


def _drop_annotation_import(param: ast.arg, plan: MigrationPlan) -> None:
    if param.annotation is not None:
        plan.unused_imports.append(span(param.annotation))


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
    """(owner class, its self name, method name) for ``self.<method>`` in one of its methods."""
    if not isinstance(value, ast.Attribute):
        return None
    owner = self_class(value.value, facts)
    if owner is None:
        return None
    assert isinstance(value.value, ast.Name)
    return owner, value.value.id, value.attr


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
        callbacks.append(_Callback(keyword, function, method=True))
        if others:
            delegated.add(name)
            reason = _delegation_blocked(function, getattr(others[0], "lineno", 0), facts)
            if reason is not None:
                return reason
    for callback in callbacks:
        if callback.function.name in delegated:
            reason = _check_callback(callback, client, facts, plan, rewrite=False)
        else:
            reason = _plan_callback(callback, client, facts, plan)
        if reason is not None:
            return reason
    listener, protocol, subscribe = _guard_names(facts, taken, client, plan)
    plan.edit(Edit("add_base", span(owner), value=listener))
    for callback in callbacks:
        function = callback.function
        method = CONFLUENT_CALLBACKS[callback.keyword]
        plan.edit(Edit("listener_method", span(function), value=method, annotation=protocol))
        _drop_annotation_import(function.args.args[1], plan)
        if function.name in delegated:
            async_ = isinstance(function, ast.AsyncFunctionDef)
            plan.edit(Edit("keep_method", span(function), value=method, index=1 if async_ else 0))
    for call, self_name in group.calls:
        plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=self_name))
        plan.sites += 1
        plan.planned.add(span(call))
    return None


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


def _self_name(function: Function) -> str:
    """What the method's ``self`` is called: a name nothing in the function uses already."""
    taken = names_in(function)
    return next(n for n in ("self", "listener", "_self") if n not in taken)


def _argument_of(ref: ast.AST, call: ast.Call, facts: FileFacts) -> bool:
    parent = facts.parent(ref)
    if isinstance(parent, ast.keyword):
        return facts.parent(parent) is call
    return parent is call and call.func is not ref


def _block_of(function: Function, facts: FileFacts) -> tuple[int, int]:
    """Which statement list holds ``function`` (``if`` and ``else`` bodies differ)."""
    parent = facts.parent(function)
    body = containing_list(parent, function) if parent is not None else None
    return id(parent), id(body)


def _class_names() -> list[str]:
    return ["RebalanceCallbacks", *(f"RebalanceCallbacks{i}" for i in range(2, 100))]


def _not_a_def(keyword: str, value: ast.expr, facts: FileFacts) -> str:
    """Why a registered callback is not a function of this file, and the next step."""
    fix = (
        f"define it with def {keyword}(consumer, partitions) next to the subscribe() and "
        "pass its name, then run migrate again"
    )
    if isinstance(value, ast.Lambda):
        return f"{keyword}= is a lambda; {fix}"
    if isinstance(value, ast.Call) and "functools.partial" in facts.qualnames(value.func):
        return (
            f"{keyword}= is a functools.partial; write def {keyword}(consumer, partitions) "
            "calling the wrapped function with the bound arguments next to the subscribe() "
            "and pass its name, then run migrate again"
        )
    bound = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
    if isinstance(bound, ast.Import | ast.ImportFrom):
        return (
            f"{keyword}= is imported ({ast.unparse(value)}); the codemod migrates callbacks "
            f"defined in the file that registers them: {fix}"
        )
    return (
        f"{keyword}= is not a function or method defined in this file (lambda, partial, "
        f"imported); {fix}"
    )


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
    label = fn.name
    args = fn.args
    if fn.decorator_list:
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
    if (
        len(args.args) != 2 + offset
        or args.posonlyargs
        or args.kwonlyargs
        or args.kwarg
        or args.vararg
        or args.defaults
    ):
        shape = "(self, consumer, partitions)" if callback.method else "(consumer, partitions)"
        return f"{label} does not take exactly {shape}; fix its signature first (KRB109)"
    returned = returned_value(fn)
    if returned is not None:
        return (
            f"{label} returns a value (line {returned.lineno}), which confluent ignores and "
            "a RebalanceListener method may not; drop the return value first"
        )
    consumer, partitions = args.args[offset:]
    refs = facts.bindings.references(consumer, consumer.arg)
    part_refs = facts.bindings.references(partitions, partitions.arg)
    if refs is None or part_refs is None:
        return f"{label} rebinds its consumer or partitions parameter; use a new name first"
    for ref in refs:
        method = facts.parent(ref)
        call = facts.parent(method) if method is not None else None
        line = ref.lineno
        if not (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and isinstance(call, ast.Call)
            and call.func is method
        ):
            return (
                f"{label} uses the consumer other than to call a method (line {line}): "
                f"{consumer_escape_step(ref, facts)}"
            )
        name = method.attr
        if client.async_callbacks and isinstance(facts.parent(call), ast.Expr):
            return (
                f"{label} calls consumer.{name}() without await (line {line}), so the call "
                "never ran (KRB106); add the await first"
            )
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


def _tail_statement(call: ast.Call, fn: Function, facts: FileFacts) -> ast.Expr | None:
    """The statement ``call`` forms (awaited or not), if nothing in ``fn`` can run after it:
    last in its block, inside nothing but ``if``/``elif``/``else``/``with`` that are last too."""
    statement = facts.parent(call)
    if isinstance(statement, ast.Await):
        statement = facts.parent(statement)
    if not (isinstance(statement, ast.Expr) and statement_layout(statement, facts) == "own"):
        return None
    node: ast.AST = statement
    while True:
        owner = facts.parent(node)
        body = containing_list(owner, node) if owner is not None else None
        if not body or body[-1] is not node:
            return None
        if owner is fn:
            return statement
        if not isinstance(owner, ast.If | ast.With | ast.AsyncWith):
            return None
        node = owner


def _plan_final(
    callback: _Callback,
    call: ast.Call,
    name: str,
    partitions: str,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """A final ``assign(partitions)`` in on_assign, or ``unassign`` in a revocation."""
    last = _tail_statement(call, callback.function, facts)
    if last is None:
        return f"consumer.{name}() is not the last thing {callback.function.name} does"
    arg_ok = (
        len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == partitions
    )
    if name in _ASSIGNS:
        if callback.keyword != "on_assign" or not arg_ok:
            return f"consumer.{name}() does not assign exactly the callback's partitions"
        loop_var = "partition" if partitions != "partition" else "tp"
        plan.edit(Edit("seek_loop", span(last), value=partitions, extra=loop_var))
        return None
    if callback.keyword == "on_assign" or (name == "incremental_unassign" and not arg_ok):
        return f"consumer.{name}() does not release exactly the callback's partitions"
    if name == "unassign" and (call.args or call.keywords):
        return "consumer.unassign() with arguments"
    plan.edit(Edit("drop_final", span(last)))
    return None
