"""What runs on executors: one row per file from the shared lint and codemod entry points.

The rules are the function ``rebalance-guard check DIR`` calls, once per repository
(``rebalance_lint.check_repository``: listener classes, helpers and consumers resolved
across the repository's modules), so a repository's findings are ``check``'s on the same
files. The migration dry-run is ``migrate DIR``'s (``rebalance_codemods.repository``: a
listener class migrated with its registrations in other modules, or not at all) for a
repository with a migration site, so a KRB2xx finding is ``fixable`` exactly where the dry-run
migrates it; a file scanned on its own gets ``migrate FILE``'s
(``rebalance_codemods.api.migrate_source``). This module only reads files, guards against
crashes, and shapes Arrow batches.

A repository is checked in one task, its files held together (the rules link them). Files
that mention Kafka stay in memory (the rules parse them all and keep their trees until the
repository is linked); the others are only needed when a Kafka module imports one, so past
:attr:`ScanOptions.memory_bytes` they go to a temporary file and are read back on demand.
"""

from __future__ import annotations

import difflib
import functools
import gc
import io
import itertools
import tempfile
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
from rebalance_lint.api import FileReport, mentions_kafka
from rebalance_lint.reading import package_prefix

from rebalance_scan.reading import ScanOptions, Unreadable, check_content, read_repo_file

FINDING_TYPE = pa.struct(
    [
        ("line", pa.int32()),
        ("col", pa.int32()),
        ("code", pa.string()),
        ("message", pa.string()),
        ("fixable", pa.bool_()),
        ("kind", pa.string()),  # bug, risk or advice (rebalance_lint.kinds)
    ]
)
MANUAL_TYPE = pa.struct([("line", pa.int32()), ("reason", pa.string())])

RESULT_SCHEMA = pa.schema(
    [
        ("repo", pa.string()),
        ("path", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("size_bytes", pa.int64()),
        ("kafka", pa.bool_()),
        ("findings", pa.list_(FINDING_TYPE)),
        ("migration_status", pa.string()),
        ("migration_reason", pa.string()),
        ("migrated_sites", pa.int32()),
        ("manual", pa.list_(MANUAL_TYPE)),
        ("would_change", pa.bool_()),
        ("diff", pa.binary()),  # the migration's unified diff (ScanOptions.diffs only)
    ]
)

# The same schema in Spark's DDL, for ``mapInArrow``.
RESULT_DDL = (
    "repo string, path string, status string, reason string, size_bytes long, kafka boolean, "
    "findings array<struct<line:int,col:int,code:string,message:string,fixable:boolean,"
    "kind:string>>, "
    "migration_status string, migration_reason string, migrated_sites int, "
    "manual array<struct<line:int,reason:string>>, would_change boolean, diff binary"
)

Row = dict[str, Any]
ROWS_PER_BATCH = 64  # results flow back in small batches, so progress moves steadily


def _crash_reason(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:500]


def _row(repo: str, path: str, size: int, status: str, reason: str) -> Row:
    """A result row with no findings and no migration (yet)."""
    return {
        "repo": repo,
        "path": path,
        "status": status,
        "reason": reason,
        "size_bytes": size,
        "kafka": False,
        "findings": [],
        "migration_status": "not_run",
        "migration_reason": reason,
        "migrated_sites": 0,
        "manual": [],
        "would_change": False,
        "diff": None,
    }


def _encoding(source: bytes) -> str:
    """The declared encoding of a Python source (PEP 263; UTF-8 by default)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        return "utf-8"
    return "utf-8" if encoding == "utf-8-sig" else encoding  # the BOM stays a character


def _lines(text: str) -> list[str]:
    # split on "\n" only, as diff and git do: str.splitlines would also split on form feeds
    # and other separators that Python source may contain, and the patch would not apply
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def unified_diff(path: str, old: bytes, new: bytes) -> bytes:
    """A ``git apply``/``patch -p1`` diff of one file (paths relative to the repository), in
    the file's own encoding, so it applies byte for byte."""
    encoding = _encoding(old)
    lines = difflib.unified_diff(
        _lines(old.decode(encoding, errors="surrogateescape")),
        _lines(new.decode(encoding, errors="surrogateescape")),
        f"a/{path}",
        f"b/{path}",
    )
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return text.encode(encoding, errors="surrogateescape")


def _crashed(error: BaseException) -> FileReport:
    return FileReport("crashed", reason=_crash_reason(error))


def _checked(row: Row, report: FileReport) -> Row:
    """``row`` with what the rules said about the file."""
    row.update(
        status=report.status,
        reason=report.reason,
        kafka=not report.skipped,
        findings=[
            {
                "line": f.line,
                "col": f.col,
                "code": f.code,
                "message": f.message,
                "fixable": f.fixable,
                "kind": f.kind,
            }
            for f in sorted(report.findings)
        ],
    )
    return row


def _has_migration_site(findings: Iterable[Mapping[str, Any]]) -> bool:
    return any(str(finding["code"]).startswith("KRB2") for finding in findings)


def _repository_dry_run(
    files: RepositoryFiles, reports: Mapping[str, FileReport], options: ScanOptions
) -> Mapping[str, Any]:
    """``migrate DIR``'s dry-run of a repository that has a migration site: ``{path: result}``
    (empty when there is nothing to migrate, or when it failed: each file is then dry-run on
    its own and a crash shows in its row)."""
    if not options.dry_run or not any(
        f.code.startswith("KRB2") for report in reports.values() for f in report.findings
    ):
        return {}
    from rebalance_codemods.repository import migrate_repository

    try:
        return migrate_repository(files, plan_only=not options.diffs).results
    except Exception:
        return {}


def _dry_run(
    row: Row, content: Callable[[], bytes], options: ScanOptions, migrated: Any = None
) -> Row:
    """The migration dry-run of one checked file: ``migrated`` when the repository's dry-run
    gave it, else the file's own."""
    from rebalance_codemods.api import migrate_source

    if row["status"] != "ok":  # what the rules cannot parse, the codemods cannot rewrite
        row.update(migration_status="not_run", migration_reason=f"file is {row['status']}")
        return row
    if not options.dry_run:
        row.update(migration_reason="dry-run disabled")
        return row
    if not _has_migration_site(row["findings"]):
        # The codemods act exactly where the migration rules (KRB201-203) report a site, an
        # automatic one (fixable) or a manual one (DESIGN.md); a file without such a finding
        # has nothing to plan, so the planner does not even build its edits.
        row.update(migration_status="not_needed", migration_reason="no migration site")
        return row
    path = row["path"]
    try:
        source = content()
        # Planning decides the counts and whether the file would change; the rewrite itself
        # (LibCST's import visitors, most of a migration's cost) is not needed for readiness.
        migration = (
            migrated
            if migrated is not None
            else migrate_source(source, path, plan_only=not options.diffs)
        )
    except Exception as error:
        row.update(migration_status="crashed", migration_reason=_crash_reason(error))
    else:
        row.update(
            migration_status=migration.status,
            migration_reason=migration.reason,
            migrated_sites=migration.migrated_sites,
            manual=[{"line": m.line, "reason": m.reason} for m in migration.manual],
            would_change=migration.migrated_sites > 0,
        )
        if migration.new_source is not None and migration.new_source != source:
            row.update(diff=unified_diff(path, source, migration.new_source))
    return row


def scan_content(
    repo: str, path: str, content: bytes, dry_run: bool = True, diffs: bool = False
) -> Row:
    """Lint (on its own, ``check_source``) and dry-run-migrate one file's bytes; any exception
    becomes a ``crashed`` status.

    The dry-run plans from the program model (``plan_only=True``, no LibCST); with ``diffs``
    the codemods also rewrite the file in memory (LibCST) and the row carries the diff.
    """
    from rebalance_lint import check_source

    try:
        report = check_source(content, path)
    except Exception as error:  # RecursionError, MemoryError... a bad file is a row
        report = _crashed(error)
    row = _checked(_row(repo, path, len(content), "ok", ""), report)
    return _dry_run(row, lambda: content, ScanOptions(dry_run=dry_run, diffs=diffs))


class RepositoryFiles(Mapping[str, bytes]):
    """One repository's readable files, in the order given, for ``check_repository``.

    Files that mention Kafka are kept in memory; the others too until ``memory_bytes`` of
    them are held, then they are appended to a temporary file and read back when asked for
    (the rules ask only for a module a Kafka file imports). Close it to drop the file.
    """

    def __init__(self, memory_bytes: int) -> None:
        self._budget = memory_bytes
        self._held = 0
        self._memory: dict[str, bytes] = {}
        self._spilled: dict[str, tuple[int, int]] = {}  # path -> (offset, length)
        self._order: dict[str, None] = {}
        self._spill: IO[bytes] | None = None

    def add(self, path: str, content: bytes) -> None:
        if path in self._order:
            raise KeyError(f"{path} given twice")
        self._order[path] = None
        if self._held + len(content) <= self._budget:
            self._memory[path] = content
            self._held += len(content)
            return
        if mentions_kafka(content):  # parsed in any case: its tree outweighs its bytes
            self._memory[path] = content
            return
        if self._spill is None:
            # open as long as the mapping: close() closes it (and the OS deletes it)
            self._spill = tempfile.TemporaryFile(prefix="rebalance-scan-")  # noqa: SIM115
        offset = self._spill.seek(0, io.SEEK_END)
        self._spill.write(content)
        self._spilled[path] = (offset, len(content))

    @property
    def spilled(self) -> int:
        """How many files are held on disk rather than in memory."""
        return len(self._spilled)

    def __getitem__(self, path: str) -> bytes:
        if path in self._memory:
            return self._memory[path]
        offset, length = self._spilled[path]
        assert self._spill is not None
        self._spill.seek(offset)
        return self._spill.read(length)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, path: object) -> bool:
        return path in self._order

    def close(self) -> None:
        self._memory.clear()
        self._spilled.clear()
        if self._spill is not None:
            self._spill.close()
            self._spill = None


#: One file of a repository as read: its path, its bytes (or why not), its size for the row.
Entry = tuple[str, "bytes | Unreadable", int]


def _check_files(files: RepositoryFiles) -> dict[str, FileReport]:
    """``check_repository`` (which never raises for bad input); should it fail all the same,
    each file is checked on its own and a file that crashes is a ``crashed`` row."""
    from rebalance_lint import check_repository, check_source

    try:
        return check_repository(files)
    except Exception:
        reports: dict[str, FileReport] = {}
        for path in files:
            try:
                reports[path] = check_source(files[path], path)
            except Exception as error:
                reports[path] = _crashed(error)
        return reports


def scan_repository(
    repo: str, entries: Iterable[Entry], options: ScanOptions, prefix: str = ""
) -> Iterator[Row]:
    """One row per entry of one repository: the rules on all its readable files at once
    (``check_repository``, as ``rebalance-guard check DIR``), then the dry-run (``migrate
    DIR``'s when the repository has a migration site).

    ``prefix``: the package chain the repository's root is in (``app/`` for a root with an
    ``__init__.py``, :func:`rebalance_lint.reading.package_prefix`): the rules see the files
    by those names, as ``check DIR`` does, so absolute imports of the root package resolve;
    rows keep the paths relative to the root.

    An unreadable entry is a status row and never reaches the rules; a file the rules cannot
    parse (syntax error, undecodable, too deeply nested) gets its status from them, and the
    rest of the repository is checked without it. A path given twice (datasets) or no path
    at all is checked on its own, as a single file.
    """
    files = RepositoryFiles(options.memory_bytes)
    sizes: dict[str, int] = {}
    alone: list[tuple[str, bytes]] = []
    try:
        for path, data, size in entries:
            if isinstance(data, Unreadable):
                yield _row(repo, path, size, data.status, data.reason)
            elif not isinstance(path, str) or prefix + path in files:
                alone.append((path, data))
            else:
                files.add(prefix + path, data)
                sizes[prefix + path] = size
        reports = _check_files(files) if files else {}
        migrated = _repository_dry_run(files, reports, options)
        for name in files:
            path = name[len(prefix) :]
            row = _checked(_row(repo, path, sizes[name], "ok", ""), reports[name])
            content = functools.partial(files.__getitem__, name)
            yield _dry_run(row, content, options, migrated.get(name))
    finally:
        files.close()
    for path, data in alone:
        yield scan_content(repo, path, data, options.dry_run, options.diffs)


def _batches(rows: Iterator[Row], progress: Any) -> Iterator[pa.RecordBatch]:
    """Group result rows into Arrow batches, counting scanned files for the console."""
    while chunk := list(itertools.islice(rows, ROWS_PER_BATCH)):
        if progress is not None:
            progress.add(len(chunk))
        yield pa.RecordBatch.from_pylist(chunk, schema=RESULT_SCHEMA)


def read_entries(root: str, paths: Iterable[str], options: ScanOptions) -> Iterator[Entry]:
    """The files of a repository checkout the executor can read, without following symlinks."""
    for path in paths:
        data = read_repo_file(root, path, options.max_bytes)
        yield path, data, len(data) if isinstance(data, bytes) else 0


def scan_checkouts(
    repos: Iterable[tuple[str, str, list[str]]], options: ScanOptions, progress: Any = None
) -> Iterator[pa.RecordBatch]:
    """Scan ``(repo, root, paths)`` repository checkouts, each repository as one."""
    gc.freeze()  # the rules allocate many short-lived AST nodes; skip scanning old objects
    rows = (
        row
        for repo, root, paths in repos
        for row in scan_repository(
            repo, read_entries(root, paths, options), options, package_prefix(Path(root))
        )
    )
    yield from _batches(rows, progress)


def _dataset_entry(path: str, content: bytes | None, options: ScanOptions) -> Entry:
    problem = check_content(content, options.max_bytes)
    size = len(content) if content is not None else 0
    return path, problem if problem is not None else content or b"", size


def scan_sorted_batches(
    batches: Iterator[pa.RecordBatch], options: ScanOptions, progress: Any = None
) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` body for dataset rows (``repo, path, content``) that arrive sorted
    by repository: each run of one repository's rows is scanned as one repository, holding
    only that repository (whatever the partition's size)."""
    gc.freeze()
    cells = (
        cell
        for batch in batches
        for cell in zip(
            *(batch.column(name).to_pylist() for name in ("repo", "path", "content")), strict=True
        )
    )
    rows = (
        row
        for repo, group in itertools.groupby(cells, key=lambda cell: cell[0])
        for row in scan_repository(
            repo, (_dataset_entry(path, content, options) for _, path, content in group), options
        )
    )
    yield from _batches(rows, progress)
