"""What migrating one file produces: plain data the CLI, the engine and the scan share."""

from __future__ import annotations

from dataclasses import dataclass

from rebalance_lint.report import FileStatus


@dataclass(frozen=True)
class ManualSite:
    """A shape left byte-identical because it cannot be migrated safely."""

    line: int
    reason: str


@dataclass(frozen=True)
class MigrationResult:
    """``new_source`` is None when nothing changed (or the file was skipped or bad).
    ``fixed``: the KRB103/KRB104 findings the auto-fixes rewrote (``fixes=True`` only)."""

    status: FileStatus
    new_source: bytes | None = None
    migrated_sites: int = 0
    manual: tuple[ManualSite, ...] = ()
    reason: str = ""
    skipped: bool = False  # True when the cheap byte check ruled Kafka out before parsing
    fixed: int = 0
