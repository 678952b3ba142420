"""Plan the kafka-python and aiokafka migration: listener classes, injected consumers, subscribe().

The unit is a listener class with every place it is instantiated and registered. It is
migrated only when all of it is safe: the class derives from the client's listener base and
nothing else; its callbacks take exactly ``(self, partitions)``; every instance is registered
in this file; and a consumer handed to its constructor is provably the consumer it is
registered on (same expression at every instantiation). Anything else is refused, with the
reason, and left byte-identical.

KRB203 (``c.subscribe(topics, listener=l)`` becomes ``set_rebalance_listener(c, l)`` then
``c.subscribe(topics)``): only a statement of its own on a plainly named consumer is split,
and only when registering the listener first cannot change the order in which the arguments'
side effects happen. KRB201: the injected parameter is the one that receives, at every
instantiation, the very consumer the instance is registered on; its uses inside callbacks
become the view (only calls of methods the view offers); the parameter, the
``self.<attr> = <param>`` and the arguments go, unless the consumer is used elsewhere too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS
from rebalance_guard._client_facts import CLIENTS, CONSUMER_METHODS, ClientFacts

from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    argument_count,
    consumer_escape_step,
    dropped_coroutine,
    find_arg,
    first_param,
    guard_name,
    has_star_args,
    helper_takes_view,
    is_dotted,
    is_none,
    is_pure,
    methods_of,
    offered_by_view,
    only_displayed,
    optional_import,
    ordered_args,
    own_returns,
    returned_value,
    self_attr,
    self_class,
    source_order,
    statement_layout,
    view_name,
)
from rebalance_lint.analysis.model import Analysis, IndirectInjection, consumerish

#: The clients whose listeners are objects (kafka-python, aiokafka), not confluent's callbacks.
LISTENER_CLIENTS = tuple(c for c in CLIENTS.values() if c.registration == "listener")
LISTENER_POSITION = 2  # subscribe(topics=(), pattern=None, listener=None) in both clients
ASYNC_BASE = (
    "derives from kafka-python's AsyncConsumerRebalanceListener, whose async callbacks "
    "cannot become rebalance_guard methods (kafka-python listeners run synchronously); "
    "make the callbacks plain def (run your own asyncio work with "
    "asyncio.run_coroutine_threadsafe(coro, loop).result()), derive from "
    "ConsumerRebalanceListener, then run migrate again"
)
Function = ast.FunctionDef | ast.AsyncFunctionDef
Kind = tuple[ClientFacts, str]  # (client, "legacy" | "async" | "guard")


@dataclass(frozen=True, eq=False)
class RemoteCreation:
    """``Cls(...)`` in another module of the repository (repository mode)."""

    path: str
    call: ast.Call
    #: the consumer it is registered on at a site that file's plan migrates; None if it is not
    receiver: str | None
    #: why the instance cannot be vouched for there (used beyond its registration), if so
    escapes: str | None = None


@dataclass
class RemoteUses:
    """What the rest of the repository does with a listener class of this file.

    Filled by :mod:`rebalance_lint.analysis.migration_repository` from the other modules'
    imports (``blocker``: the first use the planner cannot follow, naming its file:line and
    the next step); :func:`plan_listeners` decides with it and, when the class is migrated,
    leaves the edits due in the other files in ``edits`` (path -> plan).
    """

    creations: list[RemoteCreation] = field(default_factory=list)
    blocker: str | None = None
    edits: dict[str, MigrationPlan] = field(default_factory=dict)
    migrated: bool = False


@dataclass
class ListenerSites:
    """What one file's planning learnt about its listener instances, for repository mode:
    the ``Cls(...)`` calls registered at sites the plan migrates (-> consumer source), and
    why an instance kept in a variable cannot be vouched for."""

    registered: dict[ast.Call, str]
    escapes: Callable[[ast.Call], str | None]


@dataclass
class Repository:
    """Repository mode's questions and answers for one file's planning.

    ``uses(cls)``: the other modules' uses of a listener class of this file (None: single-file
    mode, the class is planned from this file alone). ``sites`` receives what the file's
    planning learnt about the listener instances it registers."""

    uses: Callable[[ast.ClassDef], RemoteUses | None]
    sites: Callable[[ListenerSites], None] = lambda _: None


@dataclass
class _State:
    """What planning learns about registrations while it goes."""

    facts: FileFacts
    clients: list[ClientFacts]
    #: listener creation -> source of the consumer it is registered on
    registrations: dict[ast.Call, str] = field(default_factory=dict)
    #: listener creation -> the subscribe() registering it (this file's registrations)
    registration_calls: dict[ast.Call, ast.Call] = field(default_factory=dict)
    instance_names: dict[ast.Call, ast.Name] = field(default_factory=dict)
    #: a listener kept as ``self.<attr> = Cls(...)``: creation -> that attribute's name
    instance_attributes: dict[ast.Call, str] = field(default_factory=dict)
    pinned: dict[ast.ClassDef, int] = field(default_factory=dict)
    registered_values: set[ast.AST] = field(default_factory=set)
    #: a class registering itself (``self._c.subscribe(listener=self)`` in its own method):
    #: the receivers (``self._c``) and the ``self`` arguments
    self_registered: dict[ast.ClassDef, list[tuple[str, ast.Name]]] = field(default_factory=dict)
    #: repository mode: creations in other files (-> their path) of the class being planned
    remote: dict[ast.Call, str] = field(default_factory=dict)
    #: repository mode: the edits the class being planned needs in other files
    remote_plans: dict[str, MigrationPlan] = field(default_factory=dict)


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
            ListenerSites(dict(state.registrations), lambda call: _instance_escapes(call, state))
        )
    closures = {f.listener.node: f for f in analysis.indirect if f.how == "closure"}
    for cls, (client, kind) in legacy.items():
        family = MigrationPlan()
        remote = repository.uses(cls) if repository is not None else None
        if kind == "async":
            reason: str | None = ASYNC_BASE
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
            plan.refuse(cls.lineno, f"listener class {cls.name}: {reason}")
            for line, _ in family_sites.get(cls, []):
                plan.refuse(line, f"registers {cls.name}, which must be migrated by hand first")
    for found in analysis.indirect:
        cls = found.listener.node
        if cls in legacy and span(cls) in plan.planned and span(found.anchor) not in plan.planned:
            plan.refuse(getattr(found.anchor, "lineno", cls.lineno), _indirect_reason(found))
    refused = {line for line, _ in plan.manual}
    for listener, arg in analysis.injected:  # e.g. a wrapper registering itself, also handed one
        cls = listener.node
        if (
            cls in legacy
            and span(cls) in plan.planned
            and span(arg) not in plan.planned
            and arg.lineno not in refused
        ):
            plan.refuse(
                arg.lineno,
                f"listener class {cls.name} is migrated, but the consumer handed to its "
                f"__init__ ({arg.arg}) stays; drop it by hand where nothing else uses it",
            )
    return plan


def _plan_free_consumer(
    cls: ast.ClassDef,
    client: ClientFacts,
    closure: IndirectInjection | None,
    creations: list[ast.Call],
    views: dict[Function, str],
    state: _State,
    plan: MigrationPlan,
) -> str | None:
    """The registering consumer reached as a variable bound outside the class: a closure's
    (REAL_WORLD.md: a listener defined inside a method, capturing the consumer; ``closure``
    is what the model found) or a module global. When every instance of the class is
    registered on that very variable, its uses in the callbacks become the view; migrated
    otherwise, they would keep driving the consumer itself (KRB201, KRB105 unfixed)."""
    facts = state.facts
    receivers: set[ast.AST] = set()
    for creation in creations:
        call = state.registration_calls.get(creation)
        receiver = (
            call.func.value if call is not None and isinstance(call.func, ast.Attribute) else None
        )
        binding = facts.bindings.binding(receiver) if isinstance(receiver, ast.Name) else None
        if binding is not None:
            receivers.add(binding)
    uses: list[tuple[ast.expr, str]] = []
    found_closure = False
    for fn in methods_of(cls).values():
        for node in ast.walk(fn):
            if not isinstance(node, ast.Name):
                continue
            binding = facts.bindings.binding(node)
            if binding is not None and cls in facts.bindings.ancestors(binding):
                continue  # a name the class binds itself
            is_closure = closure is not None and node.id == closure.param
            if binding is None or binding not in receivers:
                if is_closure:
                    assert closure is not None
                    return _closure_reason(closure, "an instance is registered on another consumer")
                continue
            if len(receivers) != 1 or len(creations) != len(
                [c for c in creations if c in state.registration_calls]
            ):
                return (
                    f"a callback uses the consumer {node.id} (line {node.lineno}), and the "
                    "instances are not all registered on it; migrate it by hand"
                )
            found_closure = found_closure or is_closure
            view = views.get(fn)
            if view is None:
                return (
                    f"{fn.name}() uses the registering consumer {node.id} too (line "
                    f"{node.lineno}), which only the callbacks can replace with the view; "
                    "move that use into a callback or out of the class first"
                )
            reason = _view_use(node, client, facts)
            if reason is not None:
                return reason
            uses.append((node, view))
    if closure is not None and not found_closure:
        return _closure_reason(closure, "it is not the consumer the class is registered on")
    for node, view in uses:
        plan.edit(Edit("replace_with_name", span(node), value=view))
    return None


def _closure_reason(found: IndirectInjection, why: str) -> str:
    return (
        f"its callbacks use {found.where}'s {found.path} through a closure and {why}, so the "
        "codemod cannot turn it into the view; derive from the rebalance_guard "
        "RebalanceListener by hand and use the consumer argument its callbacks then get"
    )


def _indirect_reason(found: IndirectInjection) -> str:
    """Why a migrated class still reaches a consumer of its own, and what to do about it."""
    return (
        f"listener class {found.listener.node.name} is migrated, but its callbacks still reach "
        f"a consumer through {found.path}, which the codemod cannot turn into the view; pass "
        "the callback's consumer argument along to that call and use it there instead"
    )


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


def _code(node: ast.AST) -> str:
    return ast.unparse(node)


# -- registrations --------------------------------------------------------------------------


def _creation_of(value: ast.expr, state: _State) -> ast.Call | None:
    """The ``Cls(...)`` call that produced a listener expression, if the planner can see it."""
    if isinstance(value, ast.Call):
        return _factory_creation(value, state) or value
    if isinstance(value, ast.Attribute):
        return _attribute_creation(value, state)
    if not isinstance(value, ast.Name):
        return None
    target = state.facts.bindings.binding(value)
    assign = state.facts.parent(target) if target is not None else None
    if (
        isinstance(target, ast.Name)
        and isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and assign.targets[0] is target
        and isinstance(assign.value, ast.Call)
    ):
        state.instance_names[assign.value] = target
        return assign.value
    return None


def _factory_creation(call: ast.Call, state: _State) -> ast.Call | None:
    """``listener=self.make_listener(...)`` where ``make_listener`` (a function or a method
    of the class of the file, called nowhere else) ends in its one ``return Cls(...)``:
    that creation (REAL_WORLD.md: a listener class defined inside a method)."""
    facts = state.facts
    func = call.func
    factory: ast.AST | None = None
    if isinstance(func, ast.Name):
        factory = facts.bindings.binding(func)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = self_class(func.value, facts)
        factory = methods_of(owner).get(func.attr) if owner is not None else None
    if not isinstance(factory, ast.FunctionDef) or factory.decorator_list:
        return None
    returns = own_returns(factory)
    last = factory.body[-1]
    if (
        returns != [last]
        or not isinstance(last, ast.Return)
        or not isinstance(last.value, ast.Call)
    ):
        return None
    calls = [
        c
        for c in facts.index.calls
        if (isinstance(c.func, ast.Name) and c.func.id == factory.name)
        or (isinstance(c.func, ast.Attribute) and c.func.attr == factory.name)
    ]
    return last.value if calls == [call] else None


def _attribute_creation(value: ast.Attribute, state: _State) -> ast.Call | None:
    """``listener=self._listener`` where the file stores ``._listener`` exactly once, as
    ``self._listener = Cls(...)`` in a method of the same class (real code keeps the listener
    to read its state: ``self._assignment.rebalancing``)."""
    facts = state.facts
    owner = self_class(value.value, facts)
    if owner is None:
        return None
    stores = [
        node
        for node in facts.index.attributes.get(value.attr, [])
        if isinstance(node.ctx, ast.Store | ast.Del)
    ]
    store = stores[0] if len(stores) == 1 else None
    assign = facts.parent(store) if store is not None else None
    if (
        store is None
        or self_class(store.value, facts) is not owner
        or not isinstance(assign, ast.Assign)
        or assign.targets != [store]
        or not isinstance(assign.value, ast.Call)
    ):
        return None
    state.instance_attributes[assign.value] = value.attr
    return assign.value


def _class_of(creation: ast.Call | None, state: _State) -> ast.ClassDef | None:
    if creation is None or not isinstance(creation.func, ast.Name):
        return None
    bound = state.facts.bindings.binding(creation.func)
    return bound if isinstance(bound, ast.ClassDef) else None


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
    creation = _creation_of(value, state)
    cls = _class_of(creation, state)
    kind = classes.get(cls) if cls is not None else None
    own = self_class(value, facts)  # listener=self in a method of the listener class itself
    if own is not None and own in classes and isinstance(call.func, ast.Attribute):
        assert isinstance(value, ast.Name)
        state.self_registered.setdefault(own, []).append((_code(call.func.value), value))
    if kind is not None:
        client = kind[0]
    elif cls is not None:
        plan.refuse(
            call.lineno,
            f"listener class {cls.name} derives from no client listener base; migrate it by hand",
        )
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
        if cls is not None:
            state.pinned[cls] = call.lineno
        return
    site = MigrationPlan()
    statement = facts.parent(call)
    assert isinstance(statement, ast.Expr)
    setter = guard_name(
        facts, facts.index.names, client.guard_module, "set_rebalance_listener", site
    )
    site.edit(Edit("split_subscribe", span(statement), value=setter))
    site.sites += 1
    site.planned.add(span(call))
    state.registered_values.add(value)
    if creation is not None:
        assert isinstance(call.func, ast.Attribute)
        state.registrations[creation] = _code(call.func.value)
        state.registration_calls[creation] = call
    if cls is not None and kind is not None and kind[1] != "guard":
        family_sites.setdefault(cls, []).append((call.lineno, site))
    else:
        plan.merge(site)


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
    receivers = {receiver for receiver, _ in own}
    if len(receivers) != 1:
        return (
            f"it registers itself on {len(receivers)} consumers ({', '.join(sorted(receivers))}); "
            "migrate it by hand"
        )
    head, _, attr = next(iter(receivers)).partition(".")
    if head != own[0][1].id or not attr or "." in attr:
        return (
            f"it registers itself on {next(iter(receivers))}, which is not an attribute of its "
            "own; migrate it by hand"
        )
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
        return "subscribe(listener=...) is used as a value; split it by hand"
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
    others = [arg for arg in ordered_args(call) if arg is not listener]
    creation_pure = creation is listener and (
        (
            cls is not None
            and _init_only_stores(cls, facts)
            and all(is_pure(a) for a in ordered_args(creation))
        )
        or bare_base
    )
    if not (all(is_pure(v) for v in others) or is_pure(listener) or creation_pure):
        return (
            "registering the listener first would change the order its arguments are "
            "evaluated; compute them into variables first"
        )
    return None


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
            creation = _creation_of(listener, state)
            state.registered_values.add(listener)
            if creation is not None:
                state.registrations[creation] = _code(consumer)


# -- the listener class ---------------------------------------------------------------------


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
    if len(cls.bases) != 1 or cls.keywords:
        return (
            "other base classes or a metaclass; the codemod cannot rebase it safely; "
            "split it by hand"
        )
    if cls in state.pinned:
        return f"its subscribe() at line {state.pinned[cls]} cannot be migrated; fix that one first"
    methods = methods_of(cls)
    callbacks = {n: f for n, f in methods.items() if n in CALLBACKS}
    for fn in callbacks.values():
        reason = _callback_shape(fn, client)
        if reason is not None:
            return reason
    for attr in CALLBACKS:
        for node in facts.index.attributes.get(attr, []):
            return (
                f"{attr} is called directly at line {node.lineno}, with one argument; "
                "call a helper method there instead first"
            )
    creations, reason = _creations(cls, facts)
    if reason is not None:
        return reason
    for node in facts.index.attributes.get(cls.name, []):
        call = facts.parent(node)
        if isinstance(call, ast.Call) and call.func is node:  # self.Listener(...)
            return (
                f"it is created through an attribute, {ast.unparse(node)}(...) at line "
                f"{node.lineno}, which the codemod cannot follow; move the class to module "
                "level and create it by its name there first"
            )
    own = state.self_registered.get(cls)
    if own is None:
        if remote is not None:
            reason = _remote_creations(remote, state)
            if reason is not None:
                return reason
            creations += [creation.call for creation in remote.creations]
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
    if own is None:
        reason = _plan_injection(cls, client, methods, creations, views, state, plan)
    else:
        reason = _plan_own_consumer(client, views, own, methods.get("__init__"), state, plan)
    if reason is not None:
        return reason
    base = cls.bases[0]
    taken = facts.index.names
    listener_name = guard_name(facts, taken, client.guard_module, "RebalanceListener", plan)
    plan.edit(Edit("rename_base", span(base), value=listener_name))
    plan.unused_imports.append(span(base))
    protocol = (  # no views: a listener keeping the base's no-op callbacks
        guard_name(facts, taken, client.guard_module, "RebalanceConsumer", plan) if views else ""
    )
    for fn, view in views.items():
        plan.edit(Edit("append_param", span(fn), value=view, annotation=protocol))
    plan.sites += 1
    plan.planned.add(span(cls))
    return None


def _remote_creations(remote: RemoteUses, state: _State) -> str | None:
    """Why the other modules' uses of the class stop its migration (None: they do not);
    records their creations and consumers in ``state``."""
    if remote.blocker is not None:
        return remote.blocker
    for creation in remote.creations:
        where = f"{creation.path}:{creation.call.lineno}"
        if creation.receiver is None:
            return (
                f"the instance created at {where} is not registered with "
                "subscribe(listener=...) there (or that subscribe() cannot be migrated); "
                "register it where it is created first"
            )
        if creation.escapes is not None:
            return f"{creation.escapes} (at {where})"
        state.registrations[creation.call] = creation.receiver
        state.remote[creation.call] = creation.path
    return None


def _callback_shape(fn: Function, client: ClientFacts) -> str | None:
    args = fn.args
    label = fn.name
    if fn.decorator_list:
        return (
            f"{label} is decorated; the codemod cannot know what the decorator expects; "
            "migrate by hand"
        )
    if isinstance(fn, ast.AsyncFunctionDef) and not client.async_callbacks:
        return (
            f"{label} is async, which {client.name} listeners cannot be; make it a plain def first"
        )
    if args.vararg or args.kwonlyargs or args.kwarg:
        return (
            f"{label} takes *args, keyword-only or **kwargs parameters; "
            "take (self, partitions) first"
        )
    if args.posonlyargs or len(args.args) != 2:
        return f"{label} does not take exactly (self, partitions); fix its signature first (KRB109)"
    if args.defaults:
        return f"{label} has parameter defaults; remove them first"
    returned = returned_value(fn)
    if returned is not None:
        return (
            f"{label} returns a value (line {returned.lineno}), which the client ignores and "
            "a RebalanceListener method may not; drop the return value first"
        )
    return None


def _creations(cls: ast.ClassDef, facts: FileFacts) -> tuple[list[ast.Call], str | None]:
    """Every ``Cls(...)`` call, or why some use of the class name cannot be followed."""
    refs = facts.bindings.references(cls, cls.name)
    if refs is None:
        return [], f"the name {cls.name} is bound more than once"
    creations = []
    for ref in refs:
        parent = facts.parent(ref)
        if isinstance(parent, ast.Call) and parent.func is ref:
            if has_star_args(parent):
                return [], f"instantiated with *args or **kwargs at line {ref.lineno}"
            creations.append(parent)
        elif ref in facts.bindings.in_annotation or _is_isinstance_arg(ref, facts):
            continue
        else:
            return (
                [],
                f"{cls.name} is used at line {ref.lineno} in a way the codemod cannot follow",
            )
    return creations, None


def _is_isinstance_arg(ref: ast.AST, facts: FileFacts) -> bool:
    call = facts.parent(ref)
    if isinstance(call, ast.keyword):
        call = facts.parent(call)
    return (
        isinstance(call, ast.Call)
        and call.func is not ref
        and isinstance(call.func, ast.Name)
        and call.func.id in {"isinstance", "issubclass"}
    )


def _instance_escapes(creation: ast.Call, state: _State) -> str | None:
    """A listener kept in a variable or an attribute may be used only for registration, plain
    attributes, ``is None`` tests and being kept in an attribute of ``self`` used the same way
    (any ``.<attr>`` of the file, whatever object it is read from, counts)."""
    facts = state.facts
    target = state.instance_names.get(creation)
    attribute = state.instance_attributes.get(creation)
    pending: list[ast.expr]
    if target is not None:
        label = target.id
        refs = facts.bindings.references(target, target.id)
        pending = list(refs) if refs is not None else [target]  # rebound: none vouched for
    elif attribute is not None:
        label = f"self.{attribute}"
        pending = _attribute_loads(attribute, facts)
    else:
        return None
    followed: set[str] = {attribute} if attribute is not None else set()
    while pending:
        ref = pending.pop(0)
        parent = facts.parent(ref)
        if (
            (isinstance(parent, ast.Attribute) and parent.value is ref)
            and parent.attr not in CALLBACKS
        ) or ref in state.registered_values:
            continue
        if isinstance(parent, ast.Compare) and _is_none_test(parent):
            continue
        kept = _kept_in_self(ref, facts)
        if kept is not None:
            if kept not in followed:
                followed.add(kept)
                pending.extend(_attribute_loads(kept, facts))
            continue
        return (
            f"the listener {label} is used at line {ref.lineno} beyond its registration; "
            "migrate it by hand"
        )
    return None


def _attribute_loads(attribute: str, facts: FileFacts) -> list[ast.expr]:
    return [
        node for node in facts.index.attributes.get(attribute, []) if isinstance(node.ctx, ast.Load)
    ]


def _is_none_test(compare: ast.Compare) -> bool:
    """``x is None`` / ``x is not None``."""
    return (
        len(compare.ops) == 1
        and isinstance(compare.ops[0], ast.Is | ast.IsNot)
        and is_none(compare.comparators[0])
    )


def _kept_in_self(ref: ast.expr, facts: FileFacts) -> str | None:
    """``self.<attr> = ref`` (one target): the attribute the listener is kept in."""
    assign = facts.parent(ref)
    if not (isinstance(assign, ast.Assign) and assign.value is ref and len(assign.targets) == 1):
        return None
    store = assign.targets[0]
    if isinstance(store, ast.Attribute) and self_class(store.value, facts) is not None:
        return store.attr
    return None


# -- KRB201: the injected consumer ----------------------------------------------------------


def _plan_injection(
    cls: ast.ClassDef,
    client: ClientFacts,
    methods: dict[str, Function],
    creations: list[ast.Call],
    views: dict[Function, str],
    state: _State,
    plan: MigrationPlan,
) -> str | None:
    """Find the consumer handed to ``__init__`` and turn its callback uses into the view."""
    facts = state.facts
    init = methods.get("__init__")
    injected = _injected_param(init, creations, state) if init is not None else None
    if isinstance(injected, str):
        return injected
    attr = _stored_as(init, injected[0], facts) if init is not None and injected else None
    callback_uses: list[tuple[ast.Attribute, str]] = []
    for fn, view in views.items():
        self_name = first_param(fn)
        for node in _attributes_in(fn):
            stored = self_attr(node, self_name)
            if stored is None:
                continue
            method_name = _method_named(node, facts)
            if attr is not None and stored == attr[0]:
                reason = _view_use(node, client, facts)
                if reason is not None:
                    return reason
                callback_uses.append((node, view))
            elif method_name in CONSUMER_METHODS and _from_param(init, stored, facts):
                return (
                    f"{fn.name} calls self.{stored}.{method_name}() on a consumer the "
                    "codemod cannot prove is the registering one; "
                    "use the callback's consumer by hand"
                )
    for node, view in callback_uses:
        plan.edit(Edit("replace_with_name", span(node), value=view))
    if init is None or injected is None:
        return None
    param, position = injected
    other_uses = _uses_outside(cls, attr, param, init, views, facts)
    if other_uses is not None:
        plan.refuse(
            param.lineno,
            f"the consumer injected into {cls.name}() is also used at line {other_uses}; "
            f"kept (the callbacks now use the view), remove it by hand",
        )
        return None
    assert attr is not None
    plan.planned.add(span(param))  # KRB201's site: the injected parameter goes
    plan.edit(Edit("drop_param", span(init), index=position + 1))
    if param.annotation is not None:
        plan.unused_imports.append(span(param.annotation))
    plan.edit(Edit("drop_init_statement", span(init), other=span(attr[1])))
    plan.edit(Edit("drop_if_empty", span(init)))
    for creation in creations:
        path = state.remote.get(creation)
        target = plan if path is None else state.remote_plans.setdefault(path, MigrationPlan())
        target.edit(Edit("drop_call_arg", span(creation), value=param.arg, index=position))
    return None


def _injected_param(
    init: Function, creations: list[ast.Call], state: _State
) -> tuple[ast.arg, int] | str | None:
    """The ``__init__`` parameter that always receives the registering consumer, if one does."""
    args = init.args
    if args.vararg or args.kwonlyargs or args.kwarg or args.posonlyargs:
        return None
    for position, param in enumerate(args.args[1:]):
        matches = []
        for creation in creations:
            value = find_arg(creation, param.arg, position)
            receiver = state.registrations[creation]
            matches.append(value is not None and _code(value) == receiver)
        if all(matches):
            return param, position
        if any(matches):
            return (
                f"its constructor gets the registering consumer at some instantiations but "
                f"not at others ({param.arg}); pass the same consumer everywhere first"
            )
    return None


def _stored_as(init: Function, param: ast.arg, facts: FileFacts) -> tuple[str, ast.Assign] | None:
    """``self.<attr> = <param>`` in ``__init__``: the attribute name and its statement."""
    self_name = first_param(init)
    for stmt in _block(init, facts):
        if statement_layout(stmt, facts) != "own":
            continue
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.value, ast.Name)
            and stmt.value.id == param.arg
        ):
            attr = self_attr(stmt.targets[0], self_name)
            if attr is not None:
                return attr, stmt
    return None


def _from_param(init: Function | None, attr: str, facts: FileFacts) -> bool:
    """Whether ``__init__`` stores a parameter that may hold a consumer as ``self.<attr>``:
    one named or annotated as one (``consumer``, ``c: KafkaConsumer``), not ``storage``, whose
    ``commit()`` is a database's (REAL_WORLD.md: commit hidden behind an offset store)."""
    if init is None:
        return False
    for param in init.args.args[1:]:
        annotation = ast.unparse(param.annotation) if param.annotation is not None else ""
        if not (consumerish(param.arg) or "Consumer" in annotation):
            continue
        stored = _stored_as(init, param, facts)
        if stored is not None and stored[0] == attr:
            return True
    return False


def _method_named(node: ast.expr, facts: FileFacts) -> str | None:
    """``x`` in ``node.x``: the attribute taken of ``node``, if any."""
    parent = facts.parent(node)
    return parent.attr if isinstance(parent, ast.Attribute) and parent.value is node else None


def _view_use(node: ast.expr, client: ClientFacts, facts: FileFacts) -> str | None:
    """Why the consumer a callback reaches (``self.<consumer>``, a closure's or a global
    ``consumer``) cannot become the view there (None when it can)."""
    line = node.lineno
    method = _method_named(node, facts)
    if method is None and only_displayed(node, facts):
        return None  # printed or logged: the view's text instead
    if method is None and helper_takes_view(node, facts, offered_by_view(client, facts)):
        return None  # the helper gets the view and calls only what it offers
    if method is None:
        return (
            f"a callback uses the injected consumer other than to call a method (line {line}): "
            f"{consumer_escape_step(node, facts)}"
        )
    outer = facts.parent(node)
    call = facts.parent(outer) if outer is not None else None
    if not (isinstance(call, ast.Call) and call.func is outer):
        return (
            f"a callback uses consumer.{method} without calling it (line {line}); "
            "migrate it by hand"
        )
    if method not in client.view_methods:
        return (
            f"a callback calls consumer.{method}() (line {line}), which the rebalance view "
            "does not offer (KIP-1306); move that call out of the callback first"
        )
    dropped = dropped_coroutine(call, method, client, facts)
    return f"a callback {dropped}" if dropped is not None else None


def _attributes_in(node: ast.AST) -> list[ast.Attribute]:
    return [n for n in source_order(node) if isinstance(n, ast.Attribute)]


def _uses_outside(
    cls: ast.ClassDef,
    attr: tuple[str, ast.Assign] | None,
    param: ast.arg,
    init: Function,
    views: dict[Function, str],
    facts: FileFacts,
) -> int | None:
    """First line using the injected consumer outside the callbacks, or None."""
    if attr is None:
        return init.lineno
    refs = facts.bindings.references(param, param.arg)
    if refs is None or len(refs) != 1:
        return init.lineno
    inside = {node for fn in views for node in _attributes_in(fn)}
    assigned = attr[1].targets[0]
    for node in facts.index.attributes.get(attr[0], []):
        if node in inside or node is assigned or _another_classes_self(node, cls, facts):
            continue
        return node.lineno
    return None


def _another_classes_self(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> bool:
    """``self.consumer`` in a method of another class: not the listener's attribute."""
    owner = self_class(node.value, facts)
    return (
        owner is not None
        and owner is not cls
        and cls.name not in {ast.unparse(base) for base in owner.bases}
    )
