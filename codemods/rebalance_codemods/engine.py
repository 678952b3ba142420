"""Migrate one file's bytes: byte check, decode, parse, plan from the model, then rewrite.

Files that cannot involve Kafka are skipped before parsing (the byte check is the lint rules'
own :func:`rebalance_lint.mentions_kafka`, so ``check``, ``migrate`` and the scan agree). The
plan comes from the ``ast`` program model (``rebalance_lint.analysis.migration``); LibCST is
imported and run only for a file whose plan has an edit, and only to apply it. A result that
would not parse is treated as a crash and never written.
"""

from __future__ import annotations

from rebalance_lint.analysis.build import analyse
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration import migration_plan
from rebalance_lint.screening import MAX_SOURCE_BYTES, mentions_kafka
from rebalance_lint.source import Unparsable, load

from rebalance_codemods.results import ManualSite, MigrationResult


def migrate_bytes(source: bytes, filename: str, *, plan_only: bool = False) -> MigrationResult:
    """The implementation behind :func:`rebalance_codemods.api.migrate_source`.

    ``plan_only`` (for ``--check``) stops after planning: the result then has no
    ``new_source``, and ``migrated_sites > 0`` exactly when the file would change.
    """
    if not mentions_kafka(source):
        return MigrationResult("ok", skipped=True)
    if len(source) > MAX_SOURCE_BYTES:
        return MigrationResult("too_large", reason=f"larger than {MAX_SOURCE_BYTES} bytes")
    loaded = load(source, filename)
    if isinstance(loaded, Unparsable):
        return MigrationResult(loaded.status, reason=loaded.reason)
    try:
        plan = migration_plan(analyse(loaded.tree, loaded.text))
    except RecursionError:
        return MigrationResult("too_large", reason="too deeply nested to analyse")
    except Exception as exc:  # a planner bug must be a status, not a failed run
        return MigrationResult("crashed", reason=f"{type(exc).__name__}: {_one_line(exc)}")
    return apply_plan(source, plan, plan_only=plan_only)


def apply_plan(source: bytes, plan: MigrationPlan, *, plan_only: bool = False) -> MigrationResult:
    """The result of ``plan`` for ``source``: its refusals, and (unless ``plan_only``) the
    rewritten bytes; LibCST runs only when the plan has an edit. Never raises."""
    manual = tuple(
        sorted({ManualSite(line, reason) for line, reason in plan.manual},
               key=lambda m: (m.line, m.reason))
    )  # fmt: skip
    if plan_only or not plan.edits:
        return MigrationResult("ok", migrated_sites=plan.sites, manual=manual)
    try:
        new_source = _rewrite(source, plan)
    except RecursionError:
        return MigrationResult("too_large", reason="too deeply nested for LibCST")
    except Exception as exc:  # a codemod bug must be a status, not a failed run
        return MigrationResult("crashed", reason=f"{type(exc).__name__}: {_one_line(exc)}")
    return MigrationResult(
        "ok",
        new_source=new_source if new_source != source else None,
        migrated_sites=plan.sites,
        manual=manual,
    )


def _rewrite(source: bytes, plan: MigrationPlan) -> bytes:
    """Apply ``plan`` with LibCST; raises if the result would not parse."""
    import libcst as cst  # only files with a planned edit pay for LibCST
    from libcst.codemod import CodemodContext

    from rebalance_codemods.commands import MigrateRebalanceListeners

    module = cst.parse_module(source)
    command = MigrateRebalanceListeners(CodemodContext(), plan=plan)
    new_source = command.transform_module(module).bytes
    if new_source != source:
        cst.parse_module(new_source)  # never hand out code that does not parse
    return new_source


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
