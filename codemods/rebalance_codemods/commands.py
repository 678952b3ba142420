"""The LibCST codemod commands (also runnable as ``python -m libcst.tool codemod -x ...``).

Each command takes its plan from the ``ast`` program model
(:mod:`rebalance_lint.analysis.migration`), locates the planned spans in the LibCST tree
(:mod:`rebalance_codemods.rewrite`) and applies every edit in one transformer pass; imports
go through ``AddImportsVisitor`` and ``RemoveImportsVisitor``. A file without a planned edit
is returned untouched, without resolving any metadata. Refusals are reported through
``context.warnings`` (as ``line: manual: reason``) and, structured, in
``context.scratch[MANUAL_KEY]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import ClassVar

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile, VisitorBasedCodemodCommand
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider
from rebalance_lint.analysis.build import analyse
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration import migration_plan, plan_migration
from rebalance_lint.source import Unparsable, parse

from rebalance_codemods.results import ManualSite
from rebalance_codemods.rewrite import NodeEdit, Replacement, apply, locate, tidy_imports

MANUAL_KEY = "rebalance_codemods.manual"
SITES_KEY = "rebalance_codemods.sites"
#: With this scratch key set, commands only plan: they report sites and refusals but leave the
#: tree (and imports) alone. ``--check`` needs no more: every planned site is a change.
PLAN_ONLY_KEY = "rebalance_codemods.plan_only"


class _PlannedMigration(VisitorBasedCodemodCommand):
    """Base: plan from the ``ast`` model, then rewrite the planned nodes only."""

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)
    #: Restrict the plan to one client package (``kafka``, ``aiokafka``, ``confluent_kafka``).
    ONLY: ClassVar[str | None] = None

    def __init__(self, context: CodemodContext, plan: MigrationPlan | None = None) -> None:
        super().__init__(context)
        self._given_plan = plan
        self._plan = MigrationPlan()
        self._edits: dict[cst.CSTNode, list[NodeEdit]] = {}

    def transform_module(self, tree: cst.Module) -> cst.Module:
        plan = self._given_plan if self._given_plan is not None else self._plan_for(tree)
        manual: list[ManualSite] = self.context.scratch.setdefault(MANUAL_KEY, [])
        for line, reason in plan.manual:
            manual.append(ManualSite(line, reason))
            self.warn(f"{line}: manual: {reason}")
        self.context.scratch[SITES_KEY] = self.context.scratch.get(SITES_KEY, 0) + plan.sites
        if not plan.edits or self.context.scratch.get(PLAN_ONLY_KEY):
            return tree
        self._plan = plan
        try:
            return tidy_imports(tree, super().transform_module(tree))
        finally:
            self._plan = MigrationPlan()

    def _plan_for(self, tree: cst.Module) -> MigrationPlan:
        parsed = parse(tree.code, self.context.filename or "<unknown>")
        if isinstance(parsed, Unparsable):
            raise SkipFile(parsed.reason)
        analysis = analyse(parsed.tree, parsed.text)
        if self.ONLY is None:
            return migration_plan(analysis)
        return plan_migration(analysis, self.ONLY)

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
        positions: dict[cst.CSTNode, CodeRange] = dict(self.metadata[PositionProvider])  # type: ignore[arg-type]
        parents: dict[cst.CSTNode, cst.CSTNode] = dict(self.metadata[ParentNodeProvider])  # type: ignore[arg-type]
        located = locate(self._plan, tree, positions, parents)
        for module, obj, asname in sorted(self._plan.imports, key=str):
            AddImportsVisitor.add_needed_import(self.context, module, obj, asname)
        for node in located.unused_imports:
            RemoveImportsVisitor.remove_unused_import_by_node(self.context, node)
        self._edits = located.edits
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
    ONLY = "kafka"


class MigrateAiokafka(_PlannedMigration):
    DESCRIPTION = (
        "aiokafka: one-arg ConsumerRebalanceListener classes become rebalance_guard "
        "RebalanceListeners (async stays async); subscribe(listener=...) is split."
    )
    ONLY = "aiokafka"


class MigrateConfluent(_PlannedMigration):
    DESCRIPTION = (
        "confluent-kafka: on_assign/on_revoke/on_lost callbacks are registered through "
        "rebalance_guard so they receive the rebalance view."
    )
    ONLY = "confluent_kafka"


class MigrateRebalanceListeners(_PlannedMigration):
    DESCRIPTION = (
        "Migrate Kafka rebalance listeners (kafka-python, aiokafka, confluent-kafka) to "
        "rebalance_guard: what KRB201-KRB203 find. Unsafe shapes are reported, not rewritten."
    )
