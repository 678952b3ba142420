"""Apply the KRB103/KRB104 auto-fixes: ``rebalance-guard check --fix``, and after the
migration in ``rebalance-guard migrate``.

``rebalance_lint.fixing`` plans which fixes a file gets (from the same analysis its findings
come from); this module only applies the plan with LibCST (the migration's editors, in
:mod:`rebalance_codemods.rewrite`) and writes the result: never a file whose bytes changed
since they were planned, never code that does not parse.

``migrate`` composes the two by running them in turn: the fixes are planned from the migrated
code (a confluent callback the migration moved onto the rebalance view is judged there, where
its ``commit()`` is synchronous already) and applied in a second LibCST pass. Since neither
plans anything on its own output, a second ``migrate`` changes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.fixing import plan_source, with_lines_moved
from rebalance_lint.reading import read_source
from rebalance_lint.source import Unparsable

from rebalance_codemods.files import write_atomic
from rebalance_codemods.results import ManualSite, MigrationResult

#: Every auto-fix changes a commit; a file without the word has nothing to fix.
_COMMIT = b"commit"


def rewrite(source: bytes, plan: MigrationPlan) -> bytes:
    """Apply ``plan`` with LibCST (only its edits; a fix plan has no imports); raises if the
    result would not parse."""
    import libcst as cst  # only files with a planned edit pay for LibCST
    from libcst.codemod import CodemodContext

    from rebalance_codemods.commands import MigrateRebalanceListeners

    new_source = (
        MigrateRebalanceListeners(CodemodContext(), plan=plan)
        .transform_module(cst.parse_module(source))
        .bytes
    )
    if new_source != source:
        cst.parse_module(new_source)  # never hand out code that does not parse
    return new_source


def with_fixes(
    source: bytes, filename: str, result: MigrationResult, *, plan_only: bool = False
) -> MigrationResult:
    """``result`` (the migration of ``source``) followed by the auto-fixes of what it leaves:
    ``fixed`` counts the findings rewritten, their refusals join ``manual`` (at their lines in
    the result). With ``plan_only``, fixes are planned only when the migration changes
    nothing (the file changes anyway otherwise, and its fixes depend on the migrated code).
    Never raises."""
    if result.status != "ok" or result.skipped:
        return result
    if plan_only and result.migrated_sites:
        return result
    base = result.new_source if result.new_source is not None else source
    if _COMMIT not in base:
        return result
    fixed = _fixed(base, filename, plan_only=plan_only)
    if fixed.status != "ok":
        return replace(result, status=fixed.status, reason=fixed.reason, new_source=None)
    manual = tuple(sorted({*result.manual, *fixed.manual}, key=lambda m: (m.line, m.reason)))
    new = fixed.new_source if fixed.new_source is not None else result.new_source
    return replace(result, new_source=new, fixed=fixed.fixed, manual=manual)


def fix_source(source: bytes, filename: str = "<unknown>") -> MigrationResult:
    """What ``rebalance-guard check --fix`` does to one file checked on its own, without
    writing: ``new_source`` (None when nothing changes), ``fixed`` (the findings rewritten) and
    ``manual`` (each KRB103/KRB104 finding left alone, at its line in the result, and why).
    Never raises for bad input."""
    return _fixed(source, filename)


def _fixed(source: bytes, filename: str, *, plan_only: bool = False) -> MigrationResult:
    """The fixes of ``source`` applied (``plan_only``: only counted, ``new_source`` None)."""
    try:
        plan = plan_source(source, filename)
        if isinstance(plan, Unparsable):
            return MigrationResult(plan.status, reason=plan.reason)
        if plan_only:
            manual = tuple(ManualSite(line, reason) for line, reason in plan.manual)
            return MigrationResult("ok", fixed=plan.sites if plan.edits else 0, manual=manual)
        new = rewrite(source, plan) if plan.edits else source
    except RecursionError:
        return MigrationResult("too_large", reason="too deeply nested")
    except Exception as exc:  # a bug must be a status, not a failed run
        text = f"{type(exc).__name__}: {exc}".splitlines()
        return MigrationResult("crashed", reason=text[0] if text else "unknown")
    manual = tuple(ManualSite(line, reason) for line, reason in with_lines_moved(plan, source, new))
    return MigrationResult(
        "ok",
        new_source=new if new != source else None,
        fixed=plan.sites if new != source else 0,
        manual=manual,
    )


def apply_fixes(path: Path, source: bytes, plan: MigrationPlan) -> tuple[bytes, str]:
    """Rewrite ``path``, whose bytes were ``source`` when ``plan`` was made, with the plan's
    edits. Returns the file's bytes now and "", or ``source`` and why the file was left as it
    was."""
    if not plan.edits:
        return source, ""
    try:
        new = rewrite(source, plan)
    except RecursionError:
        return source, "too deeply nested for LibCST"
    except Exception as exc:  # a codemod bug: the file stays as it is, and that is said
        text = f"{type(exc).__name__}: {exc}".splitlines()
        return source, f"internal error applying the fixes: {text[0] if text else 'unknown'}"
    if new == source:
        return source, ""
    if read_source(path) != source:
        return source, "the file changed while it was being fixed; run again"
    try:
        write_atomic(path, new)
    except OSError as exc:
        return source, f"cannot write: {exc.strerror or exc}"
    return new, ""
