"""Spread repositories over partitions by size: each repository whole in one task, since the
rules check a repository's files together (``check_repository``)."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from rebalance_scan.sources import FileRef

PER_FILE_BYTES = 512  # a file's fixed cost, in bytes of content, when balancing


def partition_count(files: int, parallelism: int, rewrites: bool = True) -> int:
    """How many tasks for ``files`` files on ``parallelism`` cores (at most one per
    repository: the caller caps it).

    With ``rewrites`` (LibCST rewrites files: ``scan --diffs``) a few files cost 100x the rest
    per byte, so many small tasks keep every core busy to the end. Without (the rules and the
    planned dry-run, all ``ast``), each task's own cost dominates: on
    ``local-cluster[2,1,1024]`` 72 tasks took twice the CPU of 16 for the same 49 MB.
    """
    if rewrites:
        return max(1, min(files, max(parallelism * 8, files // 200)))
    return max(1, min(files, max(parallelism * 4, files // 1000)))


@dataclass(frozen=True)
class RepoFiles:
    """One repository's listed files, in listing order (the order ``check DIR`` reads)."""

    repo: str
    root: str
    paths: tuple[str, ...]
    weight: int  # bytes plus PER_FILE_BYTES per file


def group_repositories(files: Sequence[FileRef]) -> list[RepoFiles]:
    """The listed files grouped by repository, repositories and files in listing order."""
    grouped: dict[tuple[str, str], list[FileRef]] = {}
    for ref in files:
        grouped.setdefault((ref.repo, ref.root), []).append(ref)
    return [
        RepoFiles(
            repo, root, tuple(r.path for r in refs), sum(r.size + PER_FILE_BYTES for r in refs)
        )
        for (repo, root), refs in grouped.items()
    ]


def balance(repos: Sequence[RepoFiles], partitions: int) -> list[list[RepoFiles]]:
    """Greedy longest-first: each repository goes whole to the partition with the fewest
    bytes so far. A repository larger than the rest together is one task on its own."""
    buckets: list[list[RepoFiles]] = [[] for _ in range(max(1, min(partitions, len(repos))))]
    heap = [(0, index) for index in range(len(buckets))]
    for repo in sorted(repos, key=lambda r: (-r.weight, r.repo, r.root)):
        load, index = heapq.heappop(heap)
        buckets[index].append(repo)
        heapq.heappush(heap, (load + repo.weight, index))
    return buckets
