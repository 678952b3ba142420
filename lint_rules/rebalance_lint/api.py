"""The contract every front end (flake8, CLI, Spark) shares: findings and per-file status."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

FileStatus = Literal["ok", "syntax_error", "decode_error", "too_large", "crashed"]


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
    raise NotImplementedError  # implemented by the lint rules (issue 3)


def check_source(source: bytes, filename: str = "<unknown>") -> FileReport:
    """Run every KRB rule on one file's bytes; never raises for bad input."""
    raise NotImplementedError  # implemented by the lint rules (issue 3)
