"""The contract the CLI and the Spark dry-run share: migrate one file's bytes."""

from __future__ import annotations

from dataclasses import dataclass

from rebalance_lint.report import FileStatus

MigrationStatus = FileStatus  # one file-status type for lint, codemods and scan


@dataclass(frozen=True)
class ManualSite:
    """A shape left byte-identical because it cannot be migrated safely."""

    line: int
    reason: str


@dataclass(frozen=True)
class MigrationResult:
    """``new_source`` is None when nothing changed (or the file was skipped or bad)."""

    status: MigrationStatus
    new_source: bytes | None = None
    migrated_sites: int = 0
    manual: tuple[ManualSite, ...] = ()
    reason: str = ""
    skipped: bool = False  # True when the cheap byte check ruled Kafka out before parsing


def migrate_source(
    source: bytes, filename: str = "<unknown>", *, plan_only: bool = False
) -> MigrationResult:
    """Dry-run the migration of one file; never raises for bad input, never writes.

    ``plan_only`` stops after planning (what ``migrate --check`` and the fleet scan need):
    no ``new_source``, and ``migrated_sites > 0`` exactly when the file would change.
    """
    from rebalance_codemods.engine import migrate_bytes  # deferred: the engine imports this module

    return migrate_bytes(source, filename, plan_only=plan_only)
