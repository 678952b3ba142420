"""Migrate a repository's files together (``rebalance-guard migrate DIR``).

The repository's model and plans come from ``rebalance_lint`` (repository mode links the
modules by their imports; the planner migrates a listener class defined in one module with
its creations and registrations in the others, or not at all). Every rewrite is computed
in memory first; a listener group whose files do not all rewrite cleanly is withheld as a
whole (no file of it is returned as changed), and each withheld file says why.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration import migration_plan
from rebalance_lint.analysis.migration_repository import ListenerGroup
from rebalance_lint.repository import migration_repository

from rebalance_codemods.engine import apply_plan, migrate_bytes
from rebalance_codemods.results import ManualSite, MigrationResult

#: A worker process costs about as much as LibCST on a few files (fork, first-use warm-up):
#: fewer files with edits than this per worker are rewritten in-process instead.
FILES_PER_WORKER = 8


@dataclass
class RepositoryResult:
    """Each file's result, and the files that would change (``plan_only``: those whose plan
    has an edit, even one that migrates no site of their own, e.g. a consumer argument
    dropped for a listener class of another module)."""

    results: dict[str, MigrationResult] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)


def migrate_repository(
    files: Mapping[str, bytes], *, plan_only: bool = False, jobs: int = 1
) -> RepositoryResult:
    """Dry-run the migration of a repository (``{relative path: bytes}``); never writes.

    Files without a linked model (no Kafka, unparsable, too large, or linking failed) get
    exactly what :func:`rebalance_codemods.api.migrate_source` gives them.
    """
    out = RepositoryResult()
    for path, result, pending in iter_repository(files, plan_only=plan_only, jobs=jobs):
        out.results[path] = result
        if pending:
            out.pending.add(path)
    return out


def iter_repository(
    files: Mapping[str, bytes], *, plan_only: bool = False, jobs: int = 1
) -> Iterator[tuple[str, MigrationResult, bool]]:
    """``(path, result, pending)`` per file, as soon as it is known: every file of a listener
    group (and of the groups it shares files with) comes once all of them are rewritten, so
    a caller writing each one as it comes never writes a class without its registrations.
    LibCST rewrites run in ``jobs`` processes when there are enough of them."""
    collecting = gc.isenabled()
    gc.disable()  # the linked trees stay alive: a collection would rescan them (see below)
    try:
        yield from _iter_repository(files, plan_only, jobs)
    finally:
        if collecting:  # the survivors join the oldest generation without a full collection
            gc.freeze()
            gc.enable()
            gc.unfreeze()


def _iter_repository(
    files: Mapping[str, bytes], plan_only: bool, jobs: int
) -> Iterator[tuple[str, MigrationResult, bool]]:
    linked = migration_repository(files)
    analyses, groups = (linked[0], linked[1].groups) if linked is not None else ({}, [])
    component = _components(groups)
    todo: list[tuple[str, MigrationPlan]] = []
    for path, source in files.items():
        analysis = analyses.get(path)
        if analysis is None:
            result = migrate_bytes(source, path, plan_only=plan_only)
            yield (
                path,
                result,
                result.new_source is not None or (plan_only and result.migrated_sites > 0),
            )
            continue
        plan = migration_plan(analysis)
        if plan_only or not plan.edits:
            yield path, apply_plan(source, plan, plan_only=True), bool(plan.edits)
        else:
            todo.append((path, plan))
    todo.sort(key=lambda item: component.get(item[0], item[0]))
    waiting: dict[str, dict[str, MigrationResult]] = {}
    members: dict[str, int] = {}
    for path, _ in todo:
        key = component.get(path, path)
        members[key] = members.get(key, 0) + 1
    for path, result in _rewrites(files, todo, jobs):
        key = component.get(path, path)
        batch = waiting.setdefault(key, {})
        batch[path] = result
        if len(batch) == members[key]:
            del waiting[key]
            _withhold_failed_groups(batch, groups)
            for done, final in batch.items():
                yield done, final, final.new_source is not None


def _rewrites(
    files: Mapping[str, bytes], todo: list[tuple[str, MigrationPlan]], jobs: int
) -> Iterator[tuple[str, MigrationResult]]:
    workers = min(jobs, len(todo) // FILES_PER_WORKER)
    if workers <= 1:
        yield from ((path, apply_plan(files[path], plan)) for path, plan in todo)
        return
    chunk = max(1, len(todo) // (workers * 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = pool.map(
            apply_plan, [files[path] for path, _ in todo], [plan for _, plan in todo],
            chunksize=chunk,
        )  # fmt: skip
        yield from zip((path for path, _ in todo), results, strict=True)


def _components(groups: list[ListenerGroup]) -> dict[str, str]:
    """path -> a representative path of the files that must be written together."""
    parent: dict[str, str] = {}

    def find(path: str) -> str:
        while parent.setdefault(path, path) != path:
            path = parent[path]
        return path

    for group in groups:
        first, *rest = sorted(group.paths)
        for path in rest:
            parent[find(path)] = find(first)
    return {path: find(path) for path in parent}


def _withhold_failed_groups(
    results: dict[str, MigrationResult], groups: list[ListenerGroup]
) -> None:
    """No file of a group is changed unless every file of it rewrites (transitively: a file
    withheld for one group withholds the other groups it belongs to). ``results``: the
    rewritten files of one component (the others of a group had no edit: nothing to fail)."""
    failed = {path: _why(result) for path, result in results.items() if result.status != "ok"}
    changed = True
    while changed:
        changed = False
        for group in groups:
            broken = sorted(path for path in group.paths if path in failed)
            if not broken:
                continue
            first = broken[0]
            for path, line in group.members:
                if path in failed or path not in results:
                    continue
                reason = (
                    f"not written: listener class {group.name} ({group.path}:{group.line}) is "
                    f"migrated together with {first}, which {failed[first]}; fix that file, "
                    "then run migrate again"
                )
                result = results[path]
                manual = (*result.manual, ManualSite(line, reason))
                results[path] = replace(result, new_source=None, migrated_sites=0,
                                        manual=manual)  # fmt: skip
                failed[path] = f"was withheld ({group.name})"
                changed = True


def _why(result: MigrationResult) -> str:
    return f"failed ({result.status}: {result.reason})"
