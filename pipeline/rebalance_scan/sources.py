"""Turning command-line sources into repositories and datasets, and listing repository files.

Only paths and sizes are listed here (on the driver); file contents are read on executors.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rebalance_lint.reading import EXCLUDED_DIRS

DATASET_SUFFIXES = (".parquet", ".json", ".jsonl", ".ndjson")
SKIPPED_DIRS = EXCLUDED_DIRS  # the same directories `rebalance-guard check` never searches


class SourceError(ValueError):
    """A command-line source that cannot be scanned (reported as a usage error)."""


@dataclass(frozen=True)
class Repository:
    """A directory scanned as one repository, named ``name`` in every output."""

    name: str
    root: str


@dataclass(frozen=True)
class Dataset:
    """A Parquet or JSON dataset with columns ``repo, path, content``, read by Spark."""

    path: str
    format: str


@dataclass(frozen=True)
class FileRef:
    """One file to scan: where it is, and its size for balancing partitions."""

    repo: str
    root: str
    path: str
    size: int


def _dataset_format(source: str) -> str | None:
    lowered = source.rstrip("/").lower()
    if lowered.endswith(".parquet"):
        return "parquet"
    if lowered.endswith(DATASET_SUFFIXES):
        return "json"
    return None


def resolve_sources(
    sources: Sequence[str], fleets: Sequence[str] = ()
) -> tuple[list[Repository], list[Dataset]]:
    """Directories are repositories; each subdirectory of a ``fleets`` entry is one; paths
    ending in .parquet/.json/.jsonl/.ndjson (files, directories or URLs) are datasets."""
    repos: list[tuple[str, str]] = []
    datasets: list[Dataset] = []
    for source in sources:
        fmt = _dataset_format(source)
        if fmt is not None:
            if "://" not in source and not os.path.exists(source):
                raise SourceError(f"{source}: no such dataset")
            datasets.append(Dataset(source, fmt))
        elif os.path.isdir(source):
            repos.append((os.path.basename(os.path.abspath(source)), source))
        else:
            raise SourceError(f"{source}: not a directory nor a .parquet/.json/.jsonl dataset")
    for fleet in fleets:
        if not os.path.isdir(fleet):
            raise SourceError(f"{fleet}: --fleet needs a directory of repositories")
        children = sorted(e.name for e in os.scandir(fleet) if e.is_dir(follow_symlinks=False))
        if not children:
            raise SourceError(f"{fleet}: contains no repository directories")
        repos.extend((name, os.path.join(fleet, name)) for name in children)
    return _unique_names(repos), datasets


def _unique_names(given: list[tuple[str, str]]) -> list[Repository]:
    """Name each repository by its directory; clashing names fall back to the path given.
    A directory given twice (directly and through a fleet) is scanned once."""
    seen: set[str] = set()
    repos = []
    for name, root in given:
        real = os.path.realpath(root)
        if real not in seen:
            seen.add(real)
            repos.append((name, root))
    names = [name for name, _ in repos]
    return [
        Repository(name if names.count(name) == 1 else os.path.normpath(root), root)
        for name, root in repos
    ]


def list_files(repo: Repository) -> Iterator[FileRef]:
    """Every ``*.py`` file, every symlinked directory and every directory that cannot be
    listed below ``repo.root``, never descending into symlinks (executors report those
    and unlistable directories as rows)."""
    errors: list[OSError] = []
    for current, dirs, files in os.walk(repo.root, onerror=errors.append, followlinks=False):
        yield from _unlistable(repo, errors)
        rel_dir = os.path.relpath(current, repo.root)
        kept = []
        for name in sorted(dirs):
            full = os.path.join(current, name)
            if os.path.islink(full):
                yield FileRef(repo.name, repo.root, _rel(rel_dir, name), 0)
            elif name not in SKIPPED_DIRS:
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if name.endswith(".py"):
                yield FileRef(repo.name, repo.root, _rel(rel_dir, name), _size(current, name))
    yield from _unlistable(repo, errors)


def _unlistable(repo: Repository, errors: list[OSError]) -> Iterator[FileRef]:
    while errors:
        error = errors.pop()
        if error.filename is not None:
            rel = os.path.relpath(os.fsdecode(error.filename), repo.root)
            yield FileRef(repo.name, repo.root, rel.replace(os.sep, "/"), 0)


def _rel(rel_dir: str, name: str) -> str:
    return name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")


def _size(directory: str, name: str) -> int:
    try:
        return os.lstat(os.path.join(directory, name)).st_size
    except OSError:
        return 0
