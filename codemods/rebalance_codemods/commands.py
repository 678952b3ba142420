"""The LibCST codemod commands (also runnable as ``python -m libcst.tool codemod -x ...``).

Each command plans every edit first (``listeners``/``confluent`` planners), then applies
them in one transformer pass; imports go through ``AddImportsVisitor`` and
``RemoveImportsVisitor``. Refusals are reported through ``context.warnings`` (as
``line: manual: reason``) and, structured, in ``context.scratch[MANUAL_KEY]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import ClassVar

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper

from rebalance_codemods.api import ManualSite
from rebalance_codemods.clients import CONFLUENT, LISTENER_CLIENTS
from rebalance_codemods.confluent import plan_confluent
from rebalance_codemods.listeners import plan_listeners
from rebalance_codemods.meta import PROVIDERS, Index, Meta, build_index
from rebalance_codemods.plan import Edit, Plan, Replacement, apply

MANUAL_KEY = "rebalance_codemods.manual"
SITES_KEY = "rebalance_codemods.sites"
#: With this scratch key set, commands only plan: they report sites and refusals but leave the
#: tree (and imports) alone. ``--check`` needs no more: every planned site is a change.
PLAN_ONLY_KEY = "rebalance_codemods.plan_only"

CLIENT_PACKAGES = frozenset(c.package for c in (*LISTENER_CLIENTS, CONFLUENT))

Planner = Callable[[cst.Module, Meta, Index], Plan]


class _PlannedMigration(VisitorBasedCodemodCommand):
    """Base: resolve metadata without LibCST's defensive deep copy, plan, then rewrite."""

    METADATA_DEPENDENCIES = PROVIDERS
    PLANNERS: ClassVar[tuple[Planner, ...]] = ()

    def __init__(self, context: CodemodContext) -> None:
        super().__init__(context)
        self._edits: dict[cst.CSTNode, list[Edit]] = {}
        self._index: Index | None = None

    def transform_module(self, tree: cst.Module) -> cst.Module:
        # Decide before resolving any metadata: most files that mention Kafka import no client.
        self._index = build_index(tree)
        if not self._index.packages & CLIENT_PACKAGES:
            raise SkipFile("imports no Kafka client")
        try:
            return super().transform_module(tree)
        finally:
            self._index = None

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Iterator[cst.Module]:
        # The stock implementation deep-copies the whole tree (more time than parsing it).
        # A freshly parsed module shares no nodes, so the copy buys nothing here.
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        old = self.context.wrapper
        with self.resolve(wrapper):
            self.context = replace(self.context, wrapper=wrapper)
            try:
                yield wrapper.module
            finally:
                self.context = replace(self.context, wrapper=old)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        meta = Meta(self.get_metadata)
        index = self._index or build_index(tree)
        plan = Plan()
        for planner in self.PLANNERS:
            plan.merge(planner(tree, meta, index))
        manual: list[ManualSite] = self.context.scratch.setdefault(MANUAL_KEY, [])
        for site in plan.manual:
            manual.append(site)
            self.warn(f"{site.line}: manual: {site.reason}")
        self.context.scratch[SITES_KEY] = self.context.scratch.get(SITES_KEY, 0) + plan.sites
        if not plan.edits or self.context.scratch.get(PLAN_ONLY_KEY):
            return tree
        for module, obj, asname in sorted(plan.imports, key=str):
            AddImportsVisitor.add_needed_import(self.context, module, obj, asname)
        for node in plan.unused_import_nodes:
            RemoveImportsVisitor.remove_unused_import_by_node(self.context, node)
        self._edits = plan.edits
        try:
            return tree.visit(self)
        finally:
            self._edits = {}

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Replacement:  # type: ignore[override]
        result = super().on_leave(original_node, updated_node)
        edits = self._edits.get(original_node)
        if edits is None or not isinstance(result, cst.CSTNode):
            return result
        return apply(edits, result)


class MigrateKafkaPython(_PlannedMigration):
    DESCRIPTION = (
        "kafka-python: one-arg ConsumerRebalanceListener classes become rebalance_guard "
        "RebalanceListeners; subscribe(listener=...) becomes set_rebalance_listener()."
    )
    PLANNERS = (partial(plan_listeners, only="kafka"),)


class MigrateAiokafka(_PlannedMigration):
    DESCRIPTION = (
        "aiokafka: one-arg ConsumerRebalanceListener classes become rebalance_guard "
        "RebalanceListeners (async stays async); subscribe(listener=...) is split."
    )
    PLANNERS = (partial(plan_listeners, only="aiokafka"),)


class MigrateConfluent(_PlannedMigration):
    DESCRIPTION = (
        "confluent-kafka: on_assign/on_revoke/on_lost callbacks are registered through "
        "rebalance_guard so they receive the rebalance view."
    )
    PLANNERS = (plan_confluent,)


class MigrateRebalanceListeners(_PlannedMigration):
    DESCRIPTION = (
        "Migrate Kafka rebalance listeners (kafka-python, aiokafka, confluent-kafka) to "
        "rebalance_guard: what KRB201-KRB203 find. Unsafe shapes are reported, not rewritten."
    )
    PLANNERS = (plan_listeners, plan_confluent)
