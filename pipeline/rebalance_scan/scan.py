"""One fleet scan from listed sources to an output directory, on a given SparkSession."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql import SparkSession

from rebalance_scan.atomic_dir import atomic_directory
from rebalance_scan.job import JobInput, run_job
from rebalance_scan.progress import Progress
from rebalance_scan.ranking import RankedRepo, rank_repositories
from rebalance_scan.reading import ScanOptions
from rebalance_scan.sources import Dataset, FileRef, Repository, list_files
from rebalance_scan.tables import RepoReadiness, Totals, findings_table, readiness, totals
from rebalance_scan.write_outputs import write_outputs


@dataclass(frozen=True)
class ScanResult:
    """What a scan produced, for the console summary and for tests."""

    out: Path
    results: pa.Table
    readiness: list[RepoReadiness]  # alphabetical
    ranked: list[RankedRepo]  # the same repositories, ranked by what to do first
    totals: Totals
    seconds: float


def list_inputs(repos: list[Repository], datasets: list[Dataset]) -> JobInput:
    """List repository files on the driver (paths and sizes only)."""
    files: list[FileRef] = [ref for repo in repos for ref in list_files(repo)]
    return JobInput(files, datasets)


def scan_to_directory(
    spark: SparkSession,
    job: JobInput,
    out: str | Path,
    options: ScanOptions | None = None,
    progress: Progress | None = None,
    sources: list[str] | None = None,
) -> ScanResult:
    """Run the job, derive the tables and write every output atomically under ``out``."""
    options = options or ScanOptions()
    started = time.monotonic()
    master = spark.sparkContext.master
    if progress is not None:
        progress.expected_files = len(job.files) if not job.datasets else None
        work = "rules + migration dry-run" if options.dry_run else "rules only"
        work += " + diffs" if options.dry_run and options.diffs else ""
        progress.stage(f"scanning on executors ({master}, {work})")
    results = run_job(spark, job, options, progress)
    entries = readiness(results)
    ranked = rank_repositories(entries)
    summary = totals(results, findings_table(results), entries)
    if progress is not None:
        progress.stage(f"writing outputs to {out}")
    context: dict[str, Any] = {
        "sources": sources or sorted({f.repo for f in job.files} | {d.path for d in job.datasets}),
        "master": master,
        "max_bytes": options.max_bytes,
        "dry_run": options.dry_run,
        "diffs": options.dry_run and options.diffs,
    }
    with atomic_directory(out) as staging:
        write_outputs(staging, results, ranked, summary, context)
    return ScanResult(Path(out), results, entries, ranked, summary, time.monotonic() - started)
