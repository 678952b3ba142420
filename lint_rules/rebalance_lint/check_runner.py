"""What ``rebalance-guard check`` checks per path given, on both cores and through the cache.

Each path given is one task: a file is checked on its own, a directory as one repository
(:func:`rebalance_lint.check_repository`), except a directory of repositories (clones side
by side, in no project itself: :func:`rebalance_lint.reading.repositories_in`), each of
which is a task of its own, as if given alone. With ``jobs`` above one and enough work, the
tasks go to worker processes as ``rebalance-guard migrate -j`` sends its files: the results
come back in the order the paths were given, each path's files in the order a single
process walks them, so the output is the same byte for byte. A worker holds one repository
at a time: peak memory follows the largest repository, not the whole tree.

The cache (:mod:`rebalance_lint.cache`) is read and written by the process that checks:
one entry per file that mentions Kafka, one per repository that holds such a file. With
``codes`` only those rules run (``--select``/``--ignore``), and the migration is planned
only when a KRB2xx code is among them (its plan is what their "fixable" shows).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from rebalance_lint.cache import Cache, content_digest
from rebalance_lint.engine import check_bytes
from rebalance_lint.reading import (
    Unreadable,
    iter_python_files,
    read_source,
    repository_files,
    repository_parts,
)
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
    return check_named(repository_files(root), cache, codes)


def check_named(named: dict[str, Path], cache: Cache | None = None, codes: Codes = None) -> Checked:
    """The files ``named`` (repository names -> paths), checked together as one repository,
    in that order."""
    sources = _Sources()
    out: dict[Path, FileReport | Unreadable] = {}
    for name, path in named.items():
        source = read_source(path)
        if isinstance(source, Unreadable):
            out[path] = source
        else:
            sources.add(name, path, source, cache is not None)
    reports = _repository_reports(sources, cache, codes)
    return [(path, out[path] if path in out else reports[name]) for name, path in named.items()]


class _Sources(Mapping[str, bytes]):
    """One repository's readable files by name, in the order read. The first
    :data:`HELD_BYTES` read stay in memory as they are (a small repository's, screened only
    when asked: a warm cache never screens them); beyond, only the files that mention Kafka
    (each is parsed in any case) and the others, most of a large repository's bytes, are
    read again from disk when asked for (the rules ask only for a module a Kafka file
    imports, the migration planner scans them for class names). A file that cannot be read
    again reads as empty: it changed while being checked, and so (read back with other bytes
    than those its cache key was taken from) the repository's reports are not cached."""

    #: Bytes kept unscreened (each of the 86 repositories of benchmarks/check_speed.py fits).
    HELD_BYTES = 8 * 1024 * 1024

    def __init__(self) -> None:
        self._memory: dict[str, bytes] = {}
        self._held = 0
        self._unscreened: list[str] = []  # in memory, not screened yet
        self._kafka: dict[str, None] = {}  # screened: they mention Kafka
        self._disk: dict[str, Path] = {}
        self._order: dict[str, None] = {}
        #: name -> sha256 of the bytes read first (only when a cache is used)
        self.digests: dict[str, str] = {}
        #: a file read back from disk differed from its first read (edited meanwhile)
        self.changed = False

    def add(self, name: str, path: Path, source: bytes, digest: bool) -> None:
        self._order[name] = None
        if digest:
            self.digests[name] = content_digest(source)
        if self._held + len(source) <= self.HELD_BYTES:
            self._memory[name] = source
            self._held += len(source)
            self._unscreened.append(name)
        elif mentions_kafka(source):
            self._memory[name] = source
            self._kafka[name] = None
        else:
            self._disk[name] = path

    def any_kafka(self) -> bool:
        """Whether any file mentions Kafka (screening only until the first that does)."""
        return bool(self._kafka) or any(mentions_kafka(self._memory[n]) for n in self._unscreened)

    @property
    def mentioning_kafka(self) -> Collection[str]:
        """The files that mention Kafka (none of the others is over the size limit):
        :func:`rebalance_lint.check_repository` does not read the others again to see it."""
        for name in self._unscreened:
            if mentions_kafka(self._memory[name]):
                self._kafka[name] = None
        self._unscreened.clear()
        return self._kafka.keys()

    def __getitem__(self, name: str) -> bytes:
        if name in self._memory:
            return self._memory[name]
        source = read_source(self._disk[name])
        if isinstance(source, Unreadable):
            self.changed = True
            return b""
        if name in self.digests and content_digest(source) != self.digests[name]:
            self.changed = True
        return source

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._order


def _repository_reports(
    sources: _Sources, cache: Cache | None, codes: Codes
) -> dict[str, FileReport]:
    if cache is None or not sources.any_kafka():
        return check_repository(sources, codes)
    key = cache.repository_key_of(sources.digests)
    stored = cache.get(key)
    if stored is not None and stored.keys() == sources.keys():
        return stored
    reports = check_repository(sources, codes)
    if not sources.changed:  # else the reports may not be those of the bytes keyed
        cache.put(key, reports)
    return reports


#: One unit of work: a path given (a file, or a directory as one repository), or one
#: repository of a directory of repositories (its files by name).
Task = tuple[Path, dict[str, Path] | None]


def tasks_of(given: Path) -> list[Task]:
    """The independent parts of one path given: itself, or for a directory of repositories
    each repository as if given alone and the files in none of them as one more
    (:func:`rebalance_lint.reading.repository_parts`). Each is checked on its own: a worker
    holds one repository at a time, whatever the argument held."""
    parts = repository_parts(given) if given.is_dir() else None
    if parts is None:
        return [(given, None)]
    return [(given, named) for named in parts]


def check_task(task: Task, cache: Cache | None = None, codes: Codes = None) -> Checked:
    given, named = task
    if named is not None:
        return check_named(named, cache, codes)
    if given.is_dir():
        return check_directory(given, cache, codes)
    return [(path, check_path(path, cache, codes)) for path in iter_python_files(given)]


def check_given(given: Path, cache: Cache | None = None, codes: Codes = None) -> Checked:
    """One path given to ``check``: a directory as a repository (or as the repositories it
    holds, :func:`tasks_of`), else the file itself."""
    return _assemble(given, [check_task(task, cache, codes) for task in tasks_of(given)])


def _assemble(given: Path, parts: list[Checked]) -> Checked:
    """A path given's results from its tasks', in the order a walk of it finds the files:
    directory by directory from the top, each one's files (by name) before its
    subdirectories (by name), as :func:`rebalance_lint.reading.iter_python_files`."""
    if len(parts) == 1:
        return parts[0]
    depth = len(given.parts)

    def walked(item: tuple[Path, FileReport | Unreadable]) -> tuple[tuple[int, str], ...]:
        *directories, name = item[0].parts[depth:]
        return (*((1, directory) for directory in directories), (0, name))

    return sorted((item for part in parts for item in part), key=walked)


def check_paths(
    paths: Sequence[Path], jobs: int, cache: Cache | None, codes: Codes = None
) -> list[Checked]:
    """:func:`check_given` for each path, in order; in up to ``jobs`` worker processes when
    there is enough work for more than one."""
    tasks = [tasks_of(path) for path in paths]
    flat = [task for each in tasks for task in each]
    weight = sum(1 if named is None and not given.is_dir() else FILES_PER_WORKER
                 for given, named in flat)  # fmt: skip
    workers = min(jobs, weight // FILES_PER_WORKER)
    if workers <= 1:
        done = [check_task(task, cache, codes) for task in flat]
    else:
        # Repositories one at a time (they differ most in size); files in chunks, small
        # enough that a slow worker gets fewer of them.
        single = all(named is None and not given.is_dir() for given, named in flat)
        chunk = max(1, len(flat) // (workers * 4)) if single else 1
        with ProcessPoolExecutor(max_workers=workers) as pool:
            done = list(
                pool.map(
                    check_task, flat, [cache] * len(flat), [codes] * len(flat), chunksize=chunk
                )
            )
    results = iter(done)
    return [
        _assemble(path, [next(results) for _ in each])
        for path, each in zip(paths, tasks, strict=True)
    ]
