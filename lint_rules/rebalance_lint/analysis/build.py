"""Assemble the :class:`Analysis`: a :class:`Builder` runs the passes of :mod:`.passes`.

:func:`prepare` runs the first passes (listener classes, the file's registrations),
:meth:`Prepared.finish` the rest (attributes set after construction, listener methods,
helpers, receivers, effects); repository mode links other files' sites in between.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from rebalance_lint.analysis.clients import Client
from rebalance_lint.analysis.collect import collect
from rebalance_lint.analysis.consumers import Consumers
from rebalance_lint.analysis.imports import ImportMap
from rebalance_lint.analysis.listeners import Hierarchy
from rebalance_lint.analysis.model import (
    Analysis,
    Callback,
    IndirectInjection,
    ListenerClass,
    MethodCall,
    Registration,
)
from rebalance_lint.analysis.passes import (
    attributes_set,
    helpers,
    injections,
    listener_classes,
    listener_methods,
    receivers,
    sites,
    summaries,
)
from rebalance_lint.analysis.passes.draft import Draft
from rebalance_lint.analysis.program import Unit
from rebalance_lint.analysis.registrations import find_sites

#: A pass adds one kind of fact to the draft (its docstring says which).
Pass = Callable[[Draft], None]

#: What :meth:`Builder.finish` runs, in this order.
FINISH_PASSES: tuple[Pass, ...] = (
    attributes_set.attributes_set_after_construction,
    listener_methods.listener_methods,
    helpers.follow_helpers,
    receivers.receivers,
    summaries.effect_summaries,
)


def analyse(tree: ast.Module, text: str) -> Analysis:
    """Build the shared analysis of one parsed file."""
    prepared = prepare(tree, text)
    prepared.finish()
    return prepared.analysis()


def prepare(
    tree: ast.Module,
    text: str,
    path: str = "",
    base_client: Callable[[ImportMap, ast.expr], Client | None] | None = None,
) -> Prepared:
    """The first phase: facts, listeners and this file's own registrations, not yet finished.

    Repository mode (:mod:`rebalance_lint.repository`) prepares every file, links the sites
    whose listener or callbacks live in another file, then finishes each one.
    """
    facts = collect(tree, text)
    consumers = Consumers(
        facts, (lambda base: base_client(facts.imports, base)) if base_client else None
    )
    hierarchy = Hierarchy(facts)
    unit = Unit(path, facts, consumers, hierarchy)
    registrations, pauses, subscribes = find_sites(facts, consumers, hierarchy)
    builder = Builder(unit)
    unresolved = builder.start(registrations)
    return Prepared(text, unit, builder, registrations, pauses, subscribes, unresolved)


@dataclass(eq=False)
class Prepared:
    """One file between :func:`prepare` and :meth:`analysis`."""

    text: str
    unit: Unit
    builder: Builder
    registrations: list[Registration]
    pauses: list[MethodCall]
    subscribes: list[MethodCall]
    unresolved: list[Registration]
    finished: bool = False

    def link(self, reg: Registration, caller: Unit) -> bool:
        """Attach a site of another file (``caller``) whose roles name this file's definitions."""
        return self.builder.register(reg, caller)

    def finish(self) -> None:
        if not self.finished:
            self.finished = True
            internals = [
                reg
                for reg in self.registrations
                if not reg.guard
                and isinstance(reg.call.func, ast.Attribute)
                and self.unit.builds_client_helper(reg.call.func.value, reg.scope)
            ]
            for reg in internals:
                self.registrations.remove(reg)
                if reg in self.unresolved:
                    self.unresolved.remove(reg)
            for reg in self.registrations:
                func = reg.call.func
                if not reg.guard and isinstance(func, ast.Attribute):
                    reg.own_subscribe = self.unit.own_subscribe(func.value, reg.scope)
            self.builder.finish()

    def analysis(self, foreign_callbacks: list[Callback] | None = None) -> Analysis:
        unit = self.unit
        hierarchy, consumers = unit.hierarchy, unit.consumers

        def consumer_of(call: MethodCall) -> tuple[bool, Client | None]:
            classes = hierarchy.ancestry(call.scope.cls) if call.scope.cls is not None else []
            func = call.call.func
            if not isinstance(func, ast.Attribute):
                return False, None
            return consumers.client_of(func.value, call.scope, classes)

        return Analysis(
            text=self.text,
            imports=unit.facts.imports,
            listeners=list(self.builder.listeners.values()),
            callbacks=list(self.builder.callbacks.values()),
            registrations=self.registrations,
            pauses=self.pauses,
            subscribes=self.subscribes,
            injected=self.builder.injected(),
            unresolved=self.unresolved,
            consumer_of=consumer_of,
            indirect=self.builder.indirect(),
            foreign_callbacks=foreign_callbacks or [],
            path=unit.path,
            tree=unit.facts.module.node,  # type: ignore[arg-type]
        )


class Builder:
    """Builds one file's model: runs the passes (:mod:`.passes`) over its :class:`Draft`."""

    def __init__(self, unit: Unit) -> None:
        self.draft = Draft(unit)

    @property
    def listeners(self) -> dict[ast.ClassDef, ListenerClass]:
        return self.draft.listeners

    @property
    def callbacks(self) -> dict[ast.AST, Callback]:
        return self.draft.callbacks

    def start(self, registrations: list[Registration]) -> list[Registration]:
        """Listener classes, then the file's own registrations; the sites left unresolved."""
        listener_classes.listener_classes(self.draft)
        return [reg for reg in registrations if not self.register(reg)]

    def register(self, reg: Registration, caller: Unit | None = None) -> bool:
        """Attach a site to what it registers (:func:`.passes.sites.register`)."""
        return sites.register(self.draft, reg, caller)

    def attributes_set_on_other_files(self, builder_of: Callable[[Unit], Builder | None]) -> None:
        """Repository mode: :func:`.passes.attributes_set.attributes_set_on_other_files`."""

        def draft_of(unit: Unit) -> Draft | None:
            other = builder_of(unit)
            return other.draft if other is not None else None

        attributes_set.attributes_set_on_other_files(self.draft, draft_of)

    def finish(self) -> None:
        """Run :data:`FINISH_PASSES`."""
        for run in FINISH_PASSES:
            run(self.draft)

    def injected(self) -> list[tuple[ListenerClass, ast.arg]]:
        """Constructor parameters through which a legacy listener receives the consumer."""
        return injections.injected(self.draft)

    def indirect(self) -> list[IndirectInjection]:
        """Legacy listeners reaching a consumer through an owner, a later attribute, or ``self``."""
        return injections.indirect(self.draft)
