"""The contract every front end (flake8, CLI, Spark) shares: check a file's bytes.

The types live in :mod:`rebalance_lint.report` and the screening constants in
:mod:`rebalance_lint.screening`; both are re-exported here for callers of this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rebalance_lint.report import FileReport, FileStatus, Finding
from rebalance_lint.screening import KAFKA_MARKERS, MAX_SOURCE_BYTES, mentions_kafka

__all__ = [
    "KAFKA_MARKERS",
    "MAX_SOURCE_BYTES",
    "FileReport",
    "FileStatus",
    "Finding",
    "check_repository",
    "check_source",
    "mentions_kafka",
]


def check_source(source: bytes, filename: str = "<unknown>") -> FileReport:
    """Run every KRB rule on one file's bytes; never raises for bad input."""
    # Deferred so that importing the package (flake8 loads it for every run) does not load
    # the analysis and the rules; the engine never imports this module.
    from rebalance_lint.engine import check_bytes

    return check_bytes(source, filename)


def check_repository(
    files: Mapping[str, bytes] | Iterable[tuple[str, bytes]],
) -> dict[str, FileReport]:
    """Run every KRB rule on the files of one repository at once, linked by their imports.

    ``files`` maps repository-relative paths (``billing/consumer.py``) to their bytes; the
    result maps each path to its report. Listener classes, callbacks, helpers and owners of
    the consumer are resolved across the repository's modules, so findings that need both
    halves of a case (a listener in one file, its registration in another) appear here and
    not in :func:`check_source`. Never raises for bad input.
    """
    from rebalance_lint.repository import check_repository as check_files

    return check_files(files)
