"""Repository mode of the migration planner: a listener class with its uses in other modules.

``rebalance-guard migrate DIR`` and ``check DIR`` plan a repository's files together. A
kafka-python or aiokafka listener class defined in one module and created and registered in
others is migrated with all of them, or not at all: the one decision stays the listener
planner's (:func:`~rebalance_lint.analysis.migration_listeners.plan_listeners`), given what
the other modules do with the class (their uses, found by the model's repository linking,
:mod:`rebalance_lint.analysis.references`) and which of their creations are registered at a
site their own plan migrates.

Two phases: every file is planned once as on its own (which records the listener instances
it registers), then each file defining a legacy listener class is planned again with those
facts. The edits a class needs in other files (the injected consumer leaves its creations)
are merged into their plans, and each migrated class names the files that must be written
together (:class:`ListenerGroup`): never the class without its registrations.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.listener_state import (
    LISTENER_CLIENTS,
    ListenerSites,
    RemoteCreation,
    RemoteUses,
    Repository,
)
from rebalance_lint.analysis.migration import has_candidates, plan_migration
from rebalance_lint.analysis.migration_facts import facts_shared
from rebalance_lint.analysis.model import Analysis

if TYPE_CHECKING:
    from rebalance_lint.analysis.collect import FunctionNode
    from rebalance_lint.analysis.migration_facts import FileFacts
    from rebalance_lint.analysis.references import ClassReference

#: (path of the defining module, the class) -> its uses in the other modules
References = Callable[[str, ast.ClassDef], "list[ClassReference]"]

#: (path of the importing module, a name it imports) -> the function it means there
Functions = Callable[[str, ast.expr], "tuple[FileFacts, FunctionNode] | None"]

#: (path of the defining module, a module-level function) -> its calls in the other modules
#: (with their module's facts), or why not every use there is a call
Callers = Callable[[str, "FunctionNode"], "list[tuple[str, FileFacts, ast.Call]] | str"]

_LISTENER_KEYS = frozenset(client.key for client in LISTENER_CLIENTS)


def _none(_path: str, _name: ast.expr) -> None:
    return None


@dataclass(frozen=True)
class ListenerGroup:
    """A listener class migrated together with its creations in other files: every file in
    ``paths`` is written, or none of them."""

    name: str
    path: str
    line: int
    #: (path, line) of the class and of each creation in another file
    members: tuple[tuple[str, int], ...]

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(path for path, _ in self.members)


@dataclass
class RepositoryPlan:
    """Each planned file's plan (also left on its ``Analysis.migration``) and the groups."""

    plans: dict[str, MigrationPlan] = field(default_factory=dict)
    groups: list[ListenerGroup] = field(default_factory=list)


def legacy_listeners(analyses: Mapping[str, Analysis]) -> list[tuple[str, ast.ClassDef]]:
    """The kafka-python/aiokafka listener classes naming a client base to migrate from (the
    legacy one, or kafka-python 3's AsyncConsumerRebalanceListener), per file."""
    return [
        (path, listener.node)
        for path, analysis in analyses.items()
        for listener in analysis.listeners
        if listener.named_base in ("legacy", "async") and listener.client in _LISTENER_KEYS
    ]


def plan_repository(
    analyses: Mapping[str, Analysis],
    references: References,
    functions: Functions = _none,
    callers: Callers | None = None,
) -> RepositoryPlan:
    """Plan every file of a repository together; each file's plan is left on its analysis
    (so a KRB2xx finding is fixable exactly when ``migrate DIR`` rewrites its site).
    ``functions(path, name)``: the function a name imported into ``path`` from another module
    means there (:attr:`~.migration_facts.FileFacts.imported`); ``callers(path, function)``:
    its calls in the other modules (:attr:`~.migration_facts.FileFacts.callers`)."""
    classes = legacy_listeners(analyses)
    found = {(path, cls): references(path, cls) for path, cls in classes}
    mentioned = {ref.path for refs in found.values() for ref in refs}
    sites: dict[str, ListenerSites] = {}
    out = RepositoryPlan()
    # phase 1: each file as on its own, but a class nothing else uses is known as such
    unused = {cls: RemoteUses() for (_, cls), refs in found.items() if not refs}
    # a tree's index and bindings outlive its plan only if it is planned or read again
    again = mentioned | {path for path, _ in classes}
    for path, analysis in analyses.items():
        if has_candidates(analysis) or path in mentioned:
            with nullcontext() if path in again else facts_shared():
                # the sites of a file no class is used in are never read: not kept
                kept = sites if path in mentioned else {}
                recorder = _recorder(path, kept, unused)
                recorder.functions = partial(functions, path)
                recorder.callers = partial(callers, path) if callers is not None else None
                plan = plan_migration(analysis, repository=recorder)
            out.plans[path] = plan
    # phase 2: the files defining a class used elsewhere, with those uses
    uses = {cls: _remote_uses(cls, refs, sites) for (_, cls), refs in found.items() if refs}
    for path in sorted({path for path, cls in classes if cls in uses}):
        repository = Repository(
            uses=lambda cls: uses.get(cls) or unused.get(cls),
            functions=partial(functions, path),
            callers=partial(callers, path) if callers is not None else None,
        )
        out.plans[path] = plan_migration(analyses[path], repository=repository)
    for (path, cls), remote in ((key, uses[key[1]]) for key in found if key[1] in uses):
        if not remote.migrated:
            continue
        for other, edits in remote.edits.items():
            out.plans.setdefault(other, MigrationPlan()).merge(edits)
        members = ((path, cls.lineno), *((c.path, c.call.lineno) for c in remote.creations))
        if remote.creations:
            out.groups.append(ListenerGroup(cls.name, path, cls.lineno, members))
    for path, plan in out.plans.items():
        if path in analyses:
            analyses[path].migration = plan
    return out


def _recorder(
    path: str, sites: dict[str, ListenerSites], unused: Mapping[ast.ClassDef, RemoteUses]
) -> Repository:
    def record(found: ListenerSites) -> None:
        sites[path] = found

    return Repository(uses=unused.get, sites=record)


def _remote_uses(
    cls: ast.ClassDef, refs: list[ClassReference], sites: Mapping[str, ListenerSites]
) -> RemoteUses:
    """The other modules' uses of ``cls`` as the listener planner reads them."""
    remote = RemoteUses()
    for ref in refs:
        if ref.kind == "creation" and isinstance(ref.node, ast.Call):
            site = sites.get(ref.path)
            receiver = site.registered.get(ref.node) if site is not None else None
            escapes = site.escapes(ref.node) if site is not None and receiver else None
            driven = site.driven(ref.node) if site is not None and not receiver else None
            remote.creations.append(RemoteCreation(ref.path, ref.node, receiver, escapes, driven))
        elif ref.kind != "annotation" and remote.blocker is None:
            remote.blocker = blocker(cls.name, ref)
    return remote


def blocker(name: str, ref: ClassReference) -> str:
    """Why a use of listener class ``name`` in another module stops its migration, naming
    the place and the next step."""
    where = f"{ref.path}:{ref.line}"
    if ref.kind == "subclass":
        return (
            f"{name} is subclassed in another module ({ref.text} at {where}); the codemod "
            "cannot migrate a class hierarchy across modules; migrate both by hand (each "
            "derives from rebalance_guard's RebalanceListener and its on_partitions_*() take "
            "the view)"
        )
    if ref.kind == "isinstance":
        return (
            f"{name} is tested with {ref.text} at {where}, where the codemod cannot follow "
            "what is done with the instance; remove that test or migrate the class by hand"
        )
    if ref.kind == "unreadable":
        return (
            f"{ref.path} mentions {name} but {ref.text}; fix that file, then run "
            "rebalance-guard migrate on the directory again"
        )
    if ref.kind == "star":
        return (
            f"{name} is used at {where} through a star import ({ref.text}); import it by "
            "name there, then run rebalance-guard migrate on the directory again"
        )
    if ref.kind == "unused_import":
        return (
            f"{name} is imported at {where} but not used there (a re-export?); import it "
            "from its own module where it is used (or drop that import), then run "
            "rebalance-guard migrate on the directory again"
        )
    if ref.kind == "ambiguous":
        return (
            f"the name {name} is bound more than once at {where}; give the listener class "
            "one name there first"
        )
    return (
        f"{name} is used at {where} other than to create an instance ({ref.text}); create "
        f"and register it there directly (subscribe(listener={name}(...))), then run "
        "rebalance-guard migrate on the directory again"
    )
