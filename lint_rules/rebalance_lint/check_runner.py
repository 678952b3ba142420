"""What ``rebalance-guard check`` checks per path given, on both cores and through the cache.

Each path given is one task: a file is checked on its own, a directory as one repository
(:func:`rebalance_lint.check_repository`). With ``jobs`` above one and enough work, the
tasks go to worker processes as ``rebalance-guard migrate -j`` sends its files: the results
come back in the order the paths were given, each task's files in the order a single
process walks them, so the output is the same byte for byte. A worker holds one repository
at a time: peak memory follows the largest repository, not the whole tree.

The cache (:mod:`rebalance_lint.cache`) is read and written by the process that checks:
one entry per file that mentions Kafka, one per repository that holds such a file. With
``codes`` only those rules run (``--select``/``--ignore``), and the migration is planned
only when a KRB2xx code is among them (its plan is what their "fixable" shows).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from rebalance_lint.cache import Cache
from rebalance_lint.engine import check_bytes
from rebalance_lint.reading import Unreadable, iter_python_files, read_source, repository_files
from rebalance_lint.report import FileReport
from rebalance_lint.repository import check_repository
from rebalance_lint.screening import MAX_SOURCE_BYTES, mentions_kafka

#: A worker process costs about as much as checking this many files in-process (fork, the
#: first use of the rules): fewer files than this per worker are checked in-process. A
#: directory counts as this many files.
FILES_PER_WORKER = 8

Checked = list[tuple[Path, FileReport | Unreadable]]
#: The codes whose rules run (None: every rule); the cache is keyed by them too.
Codes = tuple[str, ...] | None


def check_path(
    path: Path, cache: Cache | None = None, codes: Codes = None
) -> FileReport | Unreadable:
    """The report for one file, or why it could not be read."""
    source = read_source(path)
    if isinstance(source, Unreadable):
        return source
    if cache is None or len(source) > MAX_SOURCE_BYTES or not mentions_kafka(source):
        return check_bytes(source, str(path), codes)
    key = cache.file_key(str(path), source)
    stored = cache.get(key)
    if stored is not None and "" in stored:
        return stored[""]
    report = check_bytes(source, str(path), codes)
    cache.put(key, {"": report})
    return report


def check_directory(root: Path, cache: Cache | None = None, codes: Codes = None) -> Checked:
    """Every ``*.py`` file under ``root``, checked together as one repository."""
    named = repository_files(root)
    sources: dict[str, bytes] = {}
    out: dict[Path, FileReport | Unreadable] = {}
    for name, path in named.items():
        source = read_source(path)
        if isinstance(source, Unreadable):
            out[path] = source
        else:
            sources[name] = source
    reports = _repository_reports(sources, cache, codes)
    return [(path, out[path] if path in out else reports[name]) for name, path in named.items()]


def _repository_reports(
    sources: dict[str, bytes], cache: Cache | None, codes: Codes
) -> dict[str, FileReport]:
    if cache is None or not any(mentions_kafka(source) for source in sources.values()):
        return check_repository(sources, codes)
    key = cache.repository_key(sources)
    stored = cache.get(key)
    if stored is not None and stored.keys() == sources.keys():
        return stored
    reports = check_repository(sources, codes)
    cache.put(key, reports)
    return reports


def check_given(given: Path, cache: Cache | None = None, codes: Codes = None) -> Checked:
    """One path given to ``check``: a directory as a repository, else the file itself."""
    if given.is_dir():
        return check_directory(given, cache, codes)
    return [(path, check_path(path, cache, codes)) for path in iter_python_files(given)]


def check_paths(
    paths: Sequence[Path], jobs: int, cache: Cache | None, codes: Codes = None
) -> list[Checked]:
    """:func:`check_given` for each path, in order; in up to ``jobs`` worker processes when
    there is enough work for more than one."""
    weight = sum(FILES_PER_WORKER if path.is_dir() else 1 for path in paths)
    workers = min(jobs, weight // FILES_PER_WORKER)
    if workers <= 1:
        return [check_given(path, cache, codes) for path in paths]
    # Repositories one at a time (they differ most in size); files in chunks, small enough
    # that a slow worker gets fewer of them.
    chunk = 1 if any(path.is_dir() for path in paths) else max(1, len(paths) // (workers * 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(
            pool.map(
                check_given, paths, [cache] * len(paths), [codes] * len(paths), chunksize=chunk
            )
        )
