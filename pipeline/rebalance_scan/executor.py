"""What runs on executors: one row per file from the shared lint and codemod entry points.

The rules and the migration dry-run are the functions ``rebalance-guard check`` and ``migrate``
call (``rebalance_lint.check_source``, ``rebalance_codemods.api.migrate_source``);
this module only reads files, guards against crashes, and shapes Arrow batches.
"""

from __future__ import annotations

import difflib
import gc
import io
import itertools
import tokenize
from collections.abc import Iterator
from typing import Any

import pyarrow as pa

from rebalance_scan.reading import ScanOptions, Unreadable, check_content, read_repo_file

FINDING_TYPE = pa.struct(
    [
        ("line", pa.int32()),
        ("col", pa.int32()),
        ("code", pa.string()),
        ("message", pa.string()),
        ("fixable", pa.bool_()),
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
    "findings array<struct<line:int,col:int,code:string,message:string,fixable:boolean>>, "
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


def scan_content(
    repo: str, path: str, content: bytes, dry_run: bool = True, diffs: bool = False
) -> Row:
    """Lint and dry-run-migrate one file's bytes; any exception becomes a ``crashed`` status.

    The dry-run plans from the program model (``plan_only=True``, no LibCST); with ``diffs``
    the codemods also rewrite the file in memory (LibCST) and the row carries the diff.
    """
    from rebalance_codemods.api import migrate_source
    from rebalance_lint import check_source

    row = _row(repo, path, len(content), "ok", "")
    try:
        report = check_source(content, path)
    except Exception as error:  # RecursionError, MemoryError... a bad file is a row
        row.update(status="crashed", reason=_crash_reason(error))
    else:
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
                }
                for f in sorted(report.findings)
            ],
        )
    if row["status"] != "ok":  # what the rules cannot parse, the codemods cannot rewrite
        row.update(migration_status="not_run", migration_reason=f"file is {row['status']}")
        return row
    if not dry_run:
        row.update(migration_reason="dry-run disabled")
        return row
    if not any(str(finding["code"]).startswith("KRB2") for finding in row["findings"]):
        # The codemods act exactly where the migration rules (KRB201-203) report a site, an
        # automatic one (fixable) or a manual one (DESIGN.md); a file without such a finding
        # has nothing to plan, so the planner does not even build its edits.
        row.update(migration_status="not_needed", migration_reason="no migration site")
        return row
    try:
        # Planning decides the counts and whether the file would change; the rewrite itself
        # (LibCST's import visitors, most of a migration's cost) is not needed for readiness.
        migration = migrate_source(content, path, plan_only=not diffs)
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
        if migration.new_source is not None and migration.new_source != content:
            row.update(diff=unified_diff(path, content, migration.new_source))
    return row


def scan_file(
    repo: str, path: str, root: str | None, content: bytes | None, options: ScanOptions
) -> Row:
    """One input row to one result row: read from ``root`` when no content was given."""
    data: bytes | Unreadable
    if root is not None and content is None:
        data = read_repo_file(root, path, options.max_bytes)
    else:
        problem = check_content(content, options.max_bytes)
        data = problem if problem is not None else content or b""
    if isinstance(data, Unreadable):
        size = len(content) if content is not None else 0
        return _row(repo, path, size, data.status, data.reason)
    return scan_content(repo, path, data, options.dry_run, options.diffs)


def _batches(rows: Iterator[Row], progress: Any) -> Iterator[pa.RecordBatch]:
    """Group result rows into Arrow batches, counting scanned files for the console."""
    while chunk := list(itertools.islice(rows, ROWS_PER_BATCH)):
        if progress is not None:
            progress.add(len(chunk))
        yield pa.RecordBatch.from_pylist(chunk, schema=RESULT_SCHEMA)


def scan_paths(
    refs: list[tuple[str, str, str]], options: ScanOptions, progress: Any = None
) -> Iterator[pa.RecordBatch]:
    """Scan ``(repo, path, root)`` files from a repository checkout the executor can read."""
    gc.freeze()  # the rules allocate many short-lived AST nodes; skip scanning old objects
    rows = (scan_file(repo, path, root, None, options) for repo, path, root in refs)
    yield from _batches(rows, progress)


def scan_batches(
    batches: Iterator[pa.RecordBatch], options: ScanOptions, progress: Any = None
) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` body for dataset rows: input columns ``repo, path, content``."""
    gc.freeze()
    for batch in batches:
        columns = batch.to_pydict()
        rows = (
            scan_file(repo, path, None, content, options)
            for repo, path, content in zip(
                columns["repo"], columns["path"], columns["content"], strict=True
            )
        )
        yield from _batches(rows, progress)
