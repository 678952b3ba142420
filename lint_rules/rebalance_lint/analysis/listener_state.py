"""What the listener planner and its shapes share: the clients, what planning learns about
registrations while it goes (:class:`_State`), and repository mode's questions and answers.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from rebalance_guard._client_facts import CLIENTS, ClientFacts

from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration_facts import FileFacts, source_order
from rebalance_lint.analysis.shapes.nested_listener_classes import nested_class_of

#: The clients whose listeners are objects (kafka-python, aiokafka), not confluent's callbacks.
LISTENER_CLIENTS = tuple(c for c in CLIENTS.values() if c.registration == "listener")


LISTENER_POSITION = 2  # subscribe(topics=(), pattern=None, listener=None) in both clients


Function = ast.FunctionDef | ast.AsyncFunctionDef


Kind = tuple[ClientFacts, str]  # (client, "legacy" | "async" | "guard")


@dataclass(frozen=True, eq=False)
class DrivenInstance:
    """An unregistered instance whose callbacks its module calls directly, each as a
    statement with one partitions display (``listener.on_partitions_assigned([tp])`` in a
    test): :mod:`.shapes.harness_direct_calls` drives them through the listener test harness.

    ``calls``: (the call, the callback it names); ``awaited``: every call is awaited;
    ``plan(module)``: the edits in that module, given the harness module of the listener's
    client."""

    calls: tuple[tuple[ast.Call, str], ...]
    awaited: bool
    plan: Callable[[str], MigrationPlan]


@dataclass(frozen=True, eq=False)
class RemoteCreation:
    """``Cls(...)`` in another module of the repository (repository mode)."""

    path: str
    call: ast.Call
    #: the consumer it is registered on at a site that file's plan migrates; None if it is not
    receiver: str | None
    #: why the instance cannot be vouched for there (used beyond its registration), if so
    escapes: str | None = None
    #: not registered, only its callbacks called directly there (a test)
    driven: DrivenInstance | None = None


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
    #: an unregistered ``Cls(...)`` whose callbacks the file calls directly, if so
    driven: Callable[[ast.Call], DrivenInstance | None] = lambda _: None


@dataclass
class Repository:
    """Repository mode's questions and answers for one file's planning.

    ``uses(cls)``: the other modules' uses of a listener class of this file (None: single-file
    mode, the class is planned from this file alone). ``sites`` receives what the file's
    planning learnt about the listener instances it registers. ``functions``: the function a
    name imported from another module of the repository means there, with that module's
    facts (:attr:`~.migration_facts.FileFacts.imported`); ``callers``: the calls of a function
    of this file in the other modules (:attr:`~.migration_facts.FileFacts.callers`)."""

    uses: Callable[[ast.ClassDef], RemoteUses | None]
    sites: Callable[[ListenerSites], None] = lambda _: None
    functions: Callable[[ast.expr], tuple[FileFacts, Function] | None] = lambda _: None
    callers: Callable[[Function], list[tuple[str, FileFacts, ast.Call]] | str] | None = None


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
    #: creations registered by a function they are handed to (:mod:`.parameter_listeners`):
    #: its consumer is its own, which no expression of the creation's scope names
    through_parameters: set[ast.Call] = field(default_factory=set)
    #: a class registering itself (``self._c.subscribe(listener=self)`` in its own method):
    #: the receivers (``self._c``) and the ``self`` arguments
    self_registered: dict[ast.ClassDef, list[tuple[str, ast.Name]]] = field(default_factory=dict)
    #: repository mode: creations in other files (-> their path) of the class being planned
    remote: dict[ast.Call, str] = field(default_factory=dict)
    #: repository mode: the edits the class being planned needs in other files
    remote_plans: dict[str, MigrationPlan] = field(default_factory=dict)


def _code(node: ast.AST) -> str:
    return ast.unparse(node)


def _method_named(node: ast.expr, facts: FileFacts) -> str | None:
    """``x`` in ``node.x``: the attribute taken of ``node``, if any."""
    parent = facts.parent(node)
    return parent.attr if isinstance(parent, ast.Attribute) and parent.value is node else None


def _attributes_in(node: ast.AST) -> list[ast.Attribute]:
    return [n for n in source_order(node) if isinstance(n, ast.Attribute)]


def _class_of(creation: ast.Call | None, state: _State) -> ast.ClassDef | None:
    """The class ``creation`` creates: ``Cls(...)``, or a nested class's ``self.Cls(...)``."""
    if creation is not None and isinstance(creation.func, ast.Attribute):
        return nested_class_of(creation.func, state.facts)
    if creation is None or not isinstance(creation.func, ast.Name):
        return None
    bound = state.facts.bindings.binding(creation.func)
    return bound if isinstance(bound, ast.ClassDef) else None
