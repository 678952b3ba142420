"""Which files the rules look at, decided from bytes before any parsing.

flake8, ``check``, ``migrate`` and the scan all screen with these, so a file skipped by one
is skipped by all.
"""

from __future__ import annotations

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


def mentions_kafka(source: bytes) -> bool:
    """Cheap byte check run before parsing: can this file involve a Kafka client at all?"""
    return any(marker in source for marker in KAFKA_MARKERS)
