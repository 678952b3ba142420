"""The analysis result the rules read: listener classes, callbacks and their consumers."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from rebalance_lint.analysis.clients import Client
from rebalance_lint.analysis.collect import FunctionNode, Scope, positional_params
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.imports import ImportMap

Kind = Literal["assigned", "revoked", "lost"]
#: How the client calls the callback: legacy ``(partitions)``, rebalance_guard
#: ``(partitions, consumer)``, confluent ``(consumer, partitions)``.
Api = Literal["legacy", "guard", "confluent"]
Origin = Literal["param", "injected"]
#: The listener base a class names itself: a client's (``ConsumerRebalanceListener``), kafka-python
#: 3's ``AsyncConsumerRebalanceListener``, or ``rebalance_guard.<client>.RebalanceListener``.
NamedBase = Literal["legacy", "async", "guard"]
#: How a callback that is not a lost callback still runs on loss: the listener class keeps
#: the base's ``on_partitions_lost`` (which calls ``on_partitions_revoked``), or a confluent
#: ``subscribe()`` gives ``on_revoke=`` and no ``on_lost=`` (librdkafka then calls on_revoke).
Fallthrough = Literal["listener", "confluent"]
#: What an :class:`Effect` does: a method call on a consumer, iterating one, blocking work,
#: storing the consumer the callback was passed.
EffectKind = Literal["call", "iterate", "blocking", "store"]

METHOD_KINDS: dict[str, Kind] = {
    "on_partitions_assigned": "assigned",
    "on_partitions_revoked": "revoked",
    "on_partitions_lost": "lost",
}
ROLE_KINDS: dict[str, Kind] = {"on_assign": "assigned", "on_revoke": "revoked", "on_lost": "lost"}

_CONSUMERISH = re.compile(r"^_*(?:\w+_)?(?:consumer|view)$", re.IGNORECASE)
_PARTITIONISH = re.compile(
    r"^_*(?:\w+_)?(?:partitions?|parts|tps|assigned|revoked|lost|assignment)$", re.IGNORECASE
)


def consumerish(name: str) -> bool:
    """A name that says "consumer": ``consumer``, ``_consumer``, ``kafka_consumer``, ``view``."""
    return bool(_CONSUMERISH.match(name))


def partitionish(name: str) -> bool:
    return bool(_PARTITIONISH.match(name))


def dotted(expr: ast.expr) -> str | None:
    """``self._consumer`` for an attribute chain on a name, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def is_static(func: FunctionNode | ast.Lambda) -> bool:
    return not isinstance(func, ast.Lambda) and any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list
    )


@dataclass(frozen=True)
class Signature:
    """Positional parameters a caller can fill, after ``self`` and partial-bound ones."""

    names: tuple[str, ...]
    required: int
    varargs: bool

    def accepts(self, count: int) -> bool:
        return self.required <= count and (self.varargs or count <= len(self.names))


def signature(func: FunctionNode | ast.Lambda, drop: int) -> Signature:
    """The signature seen by a caller once ``drop`` leading positionals are bound."""
    args = func.args
    positional = positional_params(func)
    first_default = len(positional) - len(args.defaults)
    names = tuple(a.arg for a in positional[drop:])
    required = max(0, first_default - drop)
    return Signature(names, required, args.vararg is not None)


@dataclass(eq=False)
class ListenerClass:
    """A class whose ``on_partitions_*`` methods are rebalance callbacks."""

    node: ast.ClassDef
    scope: Scope  # where the class is defined
    client: Client | None
    api: Api
    client_base: bool  # derives directly from a client's listener base (KRB202)
    lost_defaults_to_revoked: bool
    methods: dict[str, FunctionNode] = field(default_factory=dict)  # with in-file ancestors
    #: the listener base the class names itself (the codemod rewrites these); None when the
    #: base is inherited from another class of the file or the class is only registered
    named_base: NamedBase | None = None
    sites: list[Registration] = field(default_factory=list)


@dataclass(eq=False)
class Callback:
    """One function the client calls on a rebalance, with what the rules need to know."""

    func: FunctionNode | ast.Lambda
    scope: Scope  # the function's own scope
    api: Api
    client: Client | None
    label: str  # how messages name it, e.g. "on_partitions_revoked()"
    kinds: set[Kind] = field(default_factory=set)
    lost_via: str = ""  # why a non-lost callback also runs on lost (message text)
    #: the fall-through that makes it run on lost, also for helpers it calls; None otherwise
    lost_fallthrough: Fallthrough | None = None
    owner: ListenerClass | None = None
    bound: int = 0  # leading positionals bound by functools.partial (first registration)
    partials: dict[int, ast.expr] = field(default_factory=dict)  # bound -> registered expr
    is_method: bool = False
    helper: bool = False  # reached only through a call from a callback
    depth: int = 0  # call depth from a registered callback (helpers)
    sites: list[Registration] = field(default_factory=list)
    passed_consumer: set[str] = field(default_factory=set)  # helper params given the consumer
    receivers: dict[str, Origin] = field(default_factory=dict)  # dotted name -> origin
    #: what the callback does to a consumer, directly or through calls on other objects
    #: (:mod:`rebalance_lint.analysis.effects`); helpers on ``self`` and module functions of
    #: this file are callbacks of their own (``helper=True``) and carry their own effects.
    effects: list[Effect] = field(default_factory=list)
    #: the calls in its body that run a helper of this file (``self._flush()``), with the
    #: function each runs; set with ``effects``, so a helper's findings can say how it is reached
    helper_calls: list[tuple[Hop, FunctionNode]] = field(default_factory=list)

    def consumer_param(self) -> str | None:
        """The parameter the client passes the consumer (or the view) in."""
        if self.helper or self.api == "legacy":
            return None
        sig = signature(self.func, self.positional_offset())
        if len(sig.names) < 2:
            return None
        return sig.names[0] if self.api == "confluent" else sig.names[1]

    def positional_offset(self) -> int:
        return self.bound + (1 if self.is_method and not is_static(self.func) else 0)


@dataclass(frozen=True, eq=False)
class Hop:
    """One call on the way from a callback to an effect: ``self.worker.flush()``."""

    call: ast.Call
    text: str  # how messages name the call, e.g. "self.worker.flush()"


@dataclass(frozen=True, eq=False)
class Effect:
    """One thing a function does to a consumer (or blocking work it does), and how it is reached.

    ``via`` is empty for something the callback does in its own body; otherwise it lists the
    calls from the callback's body down to ``node``, and findings are anchored at the first
    one (the line in the callback that causes it). ``path`` names the file holding ``node``
    when it is not the callback's own (repository mode).
    """

    kind: EffectKind
    name: str  # consumer method ("commit"), "iterating", the blocking function, how it is stored
    node: ast.AST
    receiver: str  # the consumer expression ("self.worker.consumer"); "" for blocking work
    origin: Origin
    dropped: bool = False  # a call made as a bare statement (a coroutine never awaited)
    via: tuple[Hop, ...] = ()
    path: str = ""

    @property
    def anchor(self) -> ast.AST:
        """Where a finding about this effect is reported: in the callback's own body."""
        return self.via[0].call if self.via else self.node

    def label(self, callback: str) -> str:
        """``callback`` as messages name it: ``on_revoke() via self.w.flush() at line 9``."""
        if not self.via:
            return callback
        line = getattr(self.node, "lineno", 0)
        where = f"{self.path}:{line}" if self.path else f"line {line}"
        return f"{callback} via {' -> '.join(hop.text for hop in self.via)} at {where}"


@dataclass(eq=False)
class Registration:
    """``x.subscribe(..., on_assign=f)``, ``listener=L()`` or ``set_rebalance_listener(x, L())``."""

    call: ast.Call
    scope: Scope
    client: Client | None
    receiver: str | None  # dotted consumer expression
    roles: dict[str, ast.expr]  # "listener" or on_assign/on_revoke/on_lost -> expression
    anchor: ast.AST  # where KRB203 points
    guard: bool  # set_rebalance_listener (already migrated)
    #: why the receiver's ``subscribe()`` may not be the client's own (its class defines one,
    #: e.g. a consumer subclass wrapping ``listener=``, or is imported and cannot be seen);
    #: set when the file's analysis finishes (:meth:`~.program.Unit.own_subscribe`)
    own_subscribe: str | None = None
    #: ``listener=ConsumerRebalanceListener()``: a bare instance of a client's own listener
    #: base, whose creation runs nothing (so it may be evaluated earlier)
    bare_base: bool = False


@dataclass
class MethodCall:
    """``receiver.method(...)`` with a dotted receiver (pause and subscribe calls)."""

    call: ast.Call
    scope: Scope
    receiver: str


@dataclass
class Analysis:
    """Everything rules read; built once per file by :func:`analysis.build.analyse`."""

    text: str
    imports: ImportMap
    listeners: list[ListenerClass]
    callbacks: list[Callback]
    registrations: list[Registration]
    pauses: list[MethodCall]
    subscribes: list[MethodCall]
    injected: list[tuple[ListenerClass, ast.arg]]
    unresolved: list[Registration]  # sites whose listener or callbacks are not in this file
    #: (is the receiver a known Kafka consumer?, its client if known)
    consumer_of: Callable[[MethodCall], tuple[bool, Client | None]]
    #: consumers reached indirectly by legacy listeners (KRB201 beyond ``injected``)
    indirect: list[IndirectInjection] = field(default_factory=list)
    #: callbacks defined in other files of the repository that this file's sites register
    foreign_callbacks: list[Callback] = field(default_factory=list)
    #: the file's name in repository mode ("" for a single file)
    path: str = ""
    #: the parsed file the model was built from (the migration planner reads it)
    tree: ast.Module | None = None
    #: the migration plan, made on first use by :func:`analysis.migration.migration_plan`
    migration: MigrationPlan | None = None


@dataclass(frozen=True, eq=False)
class IndirectInjection:
    """A listener that reaches a consumer it was not handed by the client (KRB201).

    ``how``: ``"owner"`` (an object holding the consumer passed to ``__init__``, reached as
    ``self.runner.consumer``), ``"attribute"`` (set on the listener after construction,
    ``listener.stream = stream``) or ``"self"`` (a consumer wrapper registered as its own
    listener, ``listener=self``) or ``"closure"`` (a class defined in a function, using that
    function's consumer variable). ``anchor`` is where the finding is reported.
    """

    listener: ListenerClass
    how: Literal["owner", "attribute", "self", "closure"]
    anchor: ast.AST
    param: str  # the __init__ parameter, the attribute set, "self", or the closure's variable
    path: str  # how the callbacks reach the consumer: "self.runner.consumer"
    where: str  # "line 12" of the injecting statement or registration, the enclosing "main()"
