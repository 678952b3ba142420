"""Spread files over partitions by size so that no single task holds the big files."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from rebalance_scan.sources import FileRef


def partition_count(files: int, parallelism: int) -> int:
    """Enough tasks to keep every core busy to the end (a few files, those the codemods
    parse, cost 100x the rest per byte) and to show progress; few enough to stay cheap."""
    return max(1, min(files, max(parallelism * 8, files // 200)))


def balance(files: Sequence[FileRef], partitions: int) -> list[list[FileRef]]:
    """Greedy longest-first: each file goes to the partition with the fewest bytes so far."""
    buckets: list[list[FileRef]] = [[] for _ in range(partitions)]
    heap = [(0, index) for index in range(partitions)]
    for ref in sorted(files, key=lambda f: (-f.size, f.repo, f.path)):
        load, index = heapq.heappop(heap)
        buckets[index].append(ref)
        heapq.heappush(heap, (load + ref.size + 512, index))  # 512: per-file overhead
    return buckets
