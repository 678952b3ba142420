"""Which auto-fixes to apply to a file: the fixes (:mod:`rebalance_lint.analysis.fixes`) of the
KRB103/KRB104 findings the file actually reports.

A fix is applied for a finding only as the finding is reported: ``# noqa`` comments and
``--select``/``--ignore`` leave theirs alone (as ruff does), and the fix is planned from the
same analysis the finding came from (one file, or one file of a repository), so "fixable" on
a finding and what ``--fix`` rewrites are one decision. The edits are applied by
``rebalance_codemods`` (LibCST); this module only plans. ``rebalance-guard check --fix`` plans
with :func:`plan_file` and :func:`plan_directory`, ``migrate`` with :func:`fix_plan`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rebalance_guard._client_facts import COMMIT_METHODS as COMMITS

from rebalance_lint.analysis.build import analyse
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.fixes import FIX_CODES, planned_fixes
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.engine import findings_for_analysis
from rebalance_lint.noqa import without_suppressed
from rebalance_lint.reading import Unreadable, read_source, repository_files
from rebalance_lint.report import Finding
from rebalance_lint.repository import migration_repository
from rebalance_lint.screening import MAX_SOURCE_BYTES, mentions_kafka
from rebalance_lint.source import Unparsable, load

#: Which reported findings to fix (``--select``/``--ignore``); every one by default.
Keep = Callable[[Finding], bool]


def _everything(finding: Finding) -> bool:
    return True


@dataclass(frozen=True)
class PlannedFile:
    """A file, the bytes its fixes were planned from, and the plan (or why planning failed)."""

    path: Path
    source: bytes
    plan: MigrationPlan
    problem: str = ""


def may_have_fixes(analysis: Analysis) -> bool:
    """Cheap: does some revocation or lost callback commit at all? (Only then are the rules
    run to find what to fix.)"""
    return any(
        ("revoked" in callback.kinds or "lost" in callback.kinds)
        and any(e.kind == "call" and e.name in COMMITS for e in callback.effects)
        for callback in analysis.callbacks
    )


def plan_for_findings(
    analysis: Analysis, findings: Iterable[Finding], keep: Keep = _everything
) -> MigrationPlan:
    """The fixes for ``findings`` (the file's reported ones, after ``# noqa``) that ``keep``
    selects; a selected finding without a fix is a manual site of the plan, with the reason."""
    keys = [(f.code, f.line, f.col) for f in findings if f.code in FIX_CODES and keep(f)]
    if not keys:
        return MigrationPlan()
    return planned_fixes(analysis).plan(keys)


def fix_plan(analysis: Analysis, keep: Keep = _everything) -> MigrationPlan:
    """The fixes for the KRB103/KRB104 findings the file ``analysis`` models reports."""
    if not may_have_fixes(analysis):
        return MigrationPlan()
    findings = without_suppressed(findings_for_analysis(analysis), analysis.text)
    return plan_for_findings(analysis, findings, keep)


def plan_source(
    source: bytes, filename: str, keep: Keep = _everything
) -> MigrationPlan | Unparsable:
    """The fixes for one file's bytes checked on its own, or why it cannot be checked (as
    ``check`` reports it). Raises on an internal error."""
    if len(source) > MAX_SOURCE_BYTES:
        return Unparsable("too_large", f"larger than {MAX_SOURCE_BYTES} bytes")
    if not mentions_kafka(source):
        return MigrationPlan()
    loaded = load(source, filename)
    if isinstance(loaded, Unparsable):
        return loaded
    try:
        return fix_plan(analyse(loaded.tree, loaded.text), keep)
    except RecursionError:
        return Unparsable("too_large", "too deeply nested to analyse")


def plan_file(path: Path, keep: Keep = _everything) -> PlannedFile | None:
    """The fixes for one file checked on its own; None when it has none or cannot be checked
    (``check`` then reports why, as without ``--fix``)."""
    source = read_source(path)
    if isinstance(source, Unreadable):
        return None
    try:
        plan = plan_source(source, str(path), keep)
    except Exception as exc:  # a planner bug: the file is left alone and that is said
        return PlannedFile(path, source, MigrationPlan(), problem=_internal(exc))
    if isinstance(plan, Unparsable) or not (plan.edits or plan.manual):
        return None
    return PlannedFile(path, source, plan)


def plan_directory(root: Path, keep: Keep = _everything) -> list[PlannedFile]:
    """The fixes for the files under ``root``, checked together as one repository (the
    analyses ``check DIR`` reports from, so cross-file findings and their fixability are the
    same). If the repository cannot be linked, each file is planned on its own."""
    sources: dict[str, bytes] = {}
    paths: dict[str, Path] = {}
    for name, path in repository_files(root).items():
        source = read_source(path)
        if not isinstance(source, Unreadable):
            sources[name], paths[name] = source, path
    linked = migration_repository(sources)
    if linked is None:
        return [p for name in sorted(paths) if (p := plan_file(paths[name], keep))]
    planned: list[PlannedFile] = []
    for name, analysis in sorted(linked[0].items()):
        try:
            if not may_have_fixes(analysis):
                continue
            findings = without_suppressed(findings_for_analysis(analysis), analysis.text)
            plan = plan_for_findings(analysis, findings, keep)
        except Exception as exc:  # a planner bug: the file is left alone and that is said
            planned.append(PlannedFile(paths[name], sources[name], MigrationPlan(), _internal(exc)))
            continue
        if plan.edits or plan.manual:
            planned.append(PlannedFile(paths[name], sources[name], plan))
    return planned


def _internal(exc: Exception) -> str:
    text = f"internal error planning the fixes: {type(exc).__name__}: {exc}"
    return text.splitlines()[0]


def moved_lines(old: bytes, new: bytes) -> Callable[[int], int]:
    """Where each line of ``old`` is in ``new``: the fixes insert lines (a lost handler) above
    findings they leave alone, whose reasons are then given at their new lines."""
    if old == new:
        return lambda line: line
    blocks = difflib.SequenceMatcher(
        None, old.splitlines(), new.splitlines(), autojunk=False
    ).get_matching_blocks()

    def moved(line: int) -> int:
        for block in blocks:
            if block.a < line <= block.a + block.size:
                return line - block.a + block.b
        return line

    return moved


def with_lines_moved(plan: MigrationPlan, old: bytes, new: bytes) -> list[tuple[int, str]]:
    """``plan``'s manual sites at their lines in ``new`` (``plan`` was made from ``old``)."""
    moved = moved_lines(old, new)
    return [(moved(line), reason) for line, reason in plan.manual]
