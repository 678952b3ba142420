"""The contract the CLI and the Spark dry-run share: migrate one file's bytes."""

from __future__ import annotations

from rebalance_codemods.engine import migrate_bytes
from rebalance_codemods.fixing import fix_source, with_fixes
from rebalance_codemods.results import ManualSite, MigrationResult

__all__ = ["ManualSite", "MigrationResult", "fix_source", "migrate_source"]


def migrate_source(
    source: bytes, filename: str = "<unknown>", *, plan_only: bool = False, fixes: bool = False
) -> MigrationResult:
    """Dry-run the migration of one file; never raises for bad input, never writes.

    ``plan_only`` stops after planning (what ``migrate --check`` and the fleet scan need):
    no ``new_source``, and ``migrated_sites + fixed > 0`` exactly when the file would change.
    Planning reads the ``ast`` program model only; LibCST parses a file only to apply planned
    edits. ``fixes`` (what ``rebalance-guard migrate`` does) also applies the KRB103/KRB104
    auto-fixes after the migration; their refusals join ``manual``.
    """
    result = migrate_bytes(source, filename, plan_only=plan_only)
    return with_fixes(source, filename, result, plan_only=plan_only) if fixes else result
