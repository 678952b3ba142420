"""The one place that decides what ``rebalance-guard migrate`` rewrites, and so what is fixable.

The planners read the program model's tree and imports and stage every edit (as source
spans) or refuse a site with its reason; nothing here touches LibCST. The rules call a
KRB2xx finding fixable exactly when :func:`is_fixable` finds its node among the plan's
migrated sites, and the codemods (``rebalance_codemods``) apply exactly the plan's edits,
parsing a file with LibCST only when the plan has at least one.
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CLIENTS

from rebalance_lint.analysis.edits import MigrationPlan, span
from rebalance_lint.analysis.fixes import FIX_CODES, has_fix
from rebalance_lint.analysis.listener_state import Repository
from rebalance_lint.analysis.migration_confluent import plan_confluent
from rebalance_lint.analysis.migration_facts import file_facts
from rebalance_lint.analysis.migration_listeners import plan_listeners
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.shapes.optional_client_import import place_optional_imports

#: A file that imports none of these has nothing to migrate (decided before any planning).
CLIENT_PACKAGES = frozenset(client.package for client in CLIENTS.values())


def plan_migration(
    analysis: Analysis, only: str | None = None, repository: Repository | None = None
) -> MigrationPlan:
    """Every edit and refusal for the file ``analysis`` models (``only``: one client package).

    The planners read the rules' model for what it already knows (which ``subscribe()`` calls
    register callbacks, and on which client API: confluent's ``Consumer`` or ``AIOConsumer``)
    and the file's tree for the rest. ``repository``: what the other modules of the repository
    do with this file's listener classes (repository mode,
    :mod:`rebalance_lint.analysis.migration_repository`).
    """
    tree = analysis.tree
    registered = {  # a consumer created in another module: its client is the model's
        CLIENTS[reg.client].package
        for reg in analysis.registrations
        if reg.client is not None and not reg.guard
    }
    packages = (analysis.imports.packages | registered) & CLIENT_PACKAGES
    if only is not None:
        packages &= {only}
    if tree is None or not packages:
        return MigrationPlan()
    facts = file_facts(tree, analysis.text, analysis.imports)
    if repository is not None:
        facts.imported = repository.functions
        facts.callers = repository.callers
    plan = plan_listeners(facts, analysis, only, repository)
    if only in (None, "confluent_kafka"):
        plan.merge(plan_confluent(facts, analysis))
    place_optional_imports(facts, plan)
    return plan


def migration_plan(analysis: Analysis) -> MigrationPlan:
    """The plan for the file ``analysis`` models, made once and kept on it."""
    if analysis.migration is None:
        analysis.migration = (
            plan_migration(analysis) if has_candidates(analysis) else MigrationPlan()
        )
    return analysis.migration


def has_candidates(analysis: Analysis) -> bool:
    """Whether the model has a KRB2xx site at all: a client listener class or a registration
    not yet made through rebalance_guard. Only then is the file planned (the planner's
    bindings and index cost a few times the rules' own walk; on the Kafka clients' own
    sources planning every file that imports a client made ``migrate --check`` 3.4x ``check``).
    """
    return any(listener.client_base for listener in analysis.listeners) or any(
        not registration.guard for registration in analysis.registrations
    )


def is_fixable(site: ast.AST, analysis: Analysis, code: str = "") -> bool:
    """Whether the finding of ``code`` at ``site`` is rewritten: the one decision on
    fixability. For a KRB2xx finding (``code`` left out), whether the migration rewrites
    ``site`` (a listener class, an injected parameter, or a registering call); for KRB103 and
    KRB104, whether the auto-fix planner (:mod:`.fixes`) has a fix for the finding there
    (``rebalance-guard check --fix`` and ``migrate`` apply it)."""
    if code in FIX_CODES:
        return has_fix(code, site, analysis)
    return span(site) in migration_plan(analysis).planned
