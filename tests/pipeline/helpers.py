"""Shared by the pipeline tests: running a scan and building a corpus of bad files."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rebalance_scan.reading import DEFAULT_MAX_BYTES, DEFAULT_MEMORY_BYTES, ScanOptions
from rebalance_scan.scan import ScanResult, list_inputs, scan_to_directory
from rebalance_scan.sources import resolve_sources

ROOT = Path(__file__).resolve().parents[2]

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FindingKey = tuple[str, str, int, int, str, str, bool]
KAFKA_HEADER = b"from kafka import KafkaConsumer\n"


def run_scan(
    spark: SparkSession,
    out: Path,
    sources: list[str] | None = None,
    fleets: list[str] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    dry_run: bool = True,
    diffs: bool = False,
    memory_bytes: int = DEFAULT_MEMORY_BYTES,
) -> ScanResult:
    repos, datasets = resolve_sources(sources or [], fleets or [])
    options = ScanOptions(max_bytes, dry_run, diffs, memory_bytes)
    return scan_to_directory(spark, list_inputs(repos, datasets), out, options)


def synthetic_fleet() -> Any:
    """benchmarks/synthetic_fleet.py, the generator the benchmark uses, as a module."""
    spec = importlib.util.spec_from_file_location(
        "synthetic_fleet", ROOT / "benchmarks" / "synthetic_fleet.py"
    )
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("synthetic_fleet")
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["synthetic_fleet"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return module


def finding_keys(rows: list[dict[str, Any]]) -> list[FindingKey]:
    """Findings as sortable tuples, from findings-table rows."""
    return sorted(
        (r["repo"], r["path"], r["line"], r["col"], r["code"], r["message"], r["fixable"])
        for r in rows
    )


def statuses(result: ScanResult) -> dict[tuple[str, str], str]:
    return {
        (r["repo"], r["path"]): r["status"]
        for r in result.results.select(["repo", "path", "status"]).to_pylist()
    }


def copy_fleet(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)
    return target


def add_bad_files(repo: Path, outside: Path) -> dict[str, str | None]:
    """Write every kind of bad input into ``repo``; returns path -> expected status, where
    None means "whatever ``check_source`` says about these bytes, which must not be ok"."""
    bad = repo / "bad"
    bad.mkdir()
    (bad / "syntax.py").write_bytes(KAFKA_HEADER + b"def broken(:\n    pass\n")
    (bad / "undecodable.py").write_bytes(
        b"# -*- coding: utf-8 -*-\n" + KAFKA_HEADER + b"name = '\xff\xfe\xfa'\n"
    )
    (bad / "huge.py").write_bytes(KAFKA_HEADER + b"x = 1\n" * 2000)  # 12 KB > limit in tests
    (bad / "deep.py").write_bytes(KAFKA_HEADER + b"x = 1" + b" + 1" * 5000 + b"\n")
    (bad / "blob.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (outside / "secret.py").write_bytes(KAFKA_HEADER + b"c = KafkaConsumer()\n")
    os.symlink(outside / "secret.py", bad / "escape.py")
    os.symlink(outside, bad / "escape_dir")
    os.symlink(bad / "missing.py", bad / "dangling.py")
    os.mkfifo(bad / "pipe.py")
    locked = bad / "locked.py"
    locked.write_bytes(KAFKA_HEADER)
    locked.chmod(0)
    name = repo.name
    return {
        f"{name}/bad/syntax.py": None,
        f"{name}/bad/undecodable.py": None,
        f"{name}/bad/huge.py": "too_large",
        f"{name}/bad/deep.py": None,  # RecursionError in ast
        f"{name}/bad/blob.py": "binary",
        f"{name}/bad/escape.py": "symlink_outside",
        f"{name}/bad/escape_dir": "symlink_outside",
        f"{name}/bad/dangling.py": "unreadable",
        f"{name}/bad/pipe.py": "not_regular",
        # root reads a chmod-000 file anyway: then it is an ordinary (ok) file
        f"{name}/bad/locked.py": "ok" if os.geteuid() == 0 else "unreadable",
    }
