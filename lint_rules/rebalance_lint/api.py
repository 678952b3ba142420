"""The contract every front end (flake8, CLI, Spark) shares: findings and per-file status."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

FileStatus = Literal["ok", "syntax_error", "decode_error", "too_large", "crashed"]

#: Files larger than this are reported ``too_large`` instead of parsed (generated code, data).
MAX_SOURCE_BYTES = 4 * 1024 * 1024

#: A file can involve a Kafka client only if its bytes contain one of these (all lowercase ASCII).
KAFKA_MARKERS = (
    b"kafka",
    b"rebalance_guard",
    b"on_partitions_",
    b"on_assign",
    b"on_revoke",
    b"on_lost",
)


@dataclass(frozen=True, order=True)
class Finding:
    """One rule hit. ``line`` is 1-based, ``col`` 0-based (as ``ast``); flake8 adds 1 itself."""

    line: int
    col: int
    code: str
    message: str
    fixable: bool


@dataclass(frozen=True)
class FileReport:
    """What checking one file produced: a status, why, and the findings (empty unless ok)."""

    status: FileStatus
    findings: tuple[Finding, ...] = ()
    reason: str = ""
    skipped: bool = field(default=False)  # True when the cheap byte check ruled Kafka out


def mentions_kafka(source: bytes) -> bool:
    """Cheap byte check run before parsing: can this file involve a Kafka client at all?"""
    return any(marker in source for marker in KAFKA_MARKERS)


def check_source(source: bytes, filename: str = "<unknown>") -> FileReport:
    """Run every KRB rule on one file's bytes; never raises for bad input."""
    from rebalance_lint.engine import check_bytes  # deferred: the engine imports this module

    return check_bytes(source, filename)
