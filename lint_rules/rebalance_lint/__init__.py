"""KRB lint rules for Kafka rebalance callbacks: plain functions over ``ast``.

flake8 (``rebalance_lint.flake8_plugin``), ``rebalance-guard check`` and the Spark fleet
scan all call :func:`check_source`; the rules know nothing about flake8.
:func:`check_repository` checks a repository's files together (``rebalance-guard check DIR``).
"""

from rebalance_lint.api import (
    FileReport,
    FileStatus,
    Finding,
    check_repository,
    check_source,
    mentions_kafka,
)

__all__ = [
    "FileReport",
    "FileStatus",
    "Finding",
    "check_repository",
    "check_source",
    "mentions_kafka",
]
