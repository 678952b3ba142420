"""The Spark job: paths (or dataset rows) in, one result row per file out, via ``mapInArrow``.

The rules check each repository as one (``rebalance_lint.check_repository``, as
``rebalance-guard check DIR``), so a repository is never split between tasks. Contents never
reach the driver. Directory sources: the driver balances whole repositories (their file
paths) into buckets and broadcasts them; ``spark.range`` gives one row per bucket, and the
executor that gets bucket ``i`` reads and scans those repositories. Dataset sources are read
by Spark on the executors, hash-partitioned by repository and sorted by (repository, path)
within each partition, so each task receives each of its repositories as one run of rows and
holds one repository at a time; Spark's sort spills to disk, so a partition larger than the
executor's memory still flows through. What comes back to the driver is the small result
table (statuses, findings, migration counts), never a file's content.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from rebalance_scan.executor import (
    RESULT_DDL,
    RESULT_SCHEMA,
    scan_checkouts,
    scan_sorted_batches,
)
from rebalance_scan.partitioning import balance, group_repositories, partition_count
from rebalance_scan.progress import Progress
from rebalance_scan.reading import ScanOptions
from rebalance_scan.sources import Dataset, FileRef, SourceError

ROWS_PER_ARROW_BATCH = 64  # dataset rows carry whole files: keep Arrow batches small


@dataclass(frozen=True)
class JobInput:
    """What the driver listed: repository files (paths only) and datasets."""

    files: Sequence[FileRef]
    datasets: Sequence[Dataset]


def _bucket_scan(
    batches: Iterator[pa.RecordBatch], buckets: Any, options: ScanOptions, progress: Any
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow`` body over ``spark.range``: each id names a bucket of repositories."""
    for batch in batches:
        for bucket in batch.column("id").to_pylist():
            yield from scan_checkouts(buckets.value[bucket], options, progress)


def _files_results(
    spark: SparkSession, files: Sequence[FileRef], options: ScanOptions, progress: Any
) -> DataFrame:
    parallelism = spark.sparkContext.defaultParallelism
    repos = group_repositories(files)
    buckets = balance(repos, partition_count(len(files), parallelism, options.diffs))
    shipped = spark.sparkContext.broadcast(
        [[(r.repo, r.root, list(r.paths)) for r in bucket] for bucket in buckets]
    )
    body = functools.partial(_bucket_scan, buckets=shipped, options=options, progress=progress)
    return spark.range(0, len(buckets), 1, len(buckets)).mapInArrow(body, RESULT_DDL)


def _dataset_frame(spark: SparkSession, dataset: Dataset) -> DataFrame:
    frame = spark.read.format(dataset.format).load(dataset.path)
    missing = {"repo", "path", "content"} - set(frame.columns)
    if missing:
        raise SourceError(f"{dataset.path}: missing column(s) {', '.join(sorted(missing))}")
    return frame.select(
        F.col("repo").cast("string").alias("repo"),
        F.col("path").cast("string").alias("path"),
        F.col("content").cast("binary").alias("content"),  # strings become their UTF-8 bytes
    )


def _datasets_results(
    spark: SparkSession, datasets: Sequence[Dataset], options: ScanOptions, progress: Any
) -> DataFrame:
    """Every dataset's rows together (a repository may span datasets), one repository per run
    of rows: hash-partitioned by repository, sorted by (repository, path) in each partition."""
    frame = functools.reduce(DataFrame.unionByName, [_dataset_frame(spark, d) for d in datasets])
    partitions = max(spark.sparkContext.defaultParallelism * 2, frame.rdd.getNumPartitions())
    grouped = frame.repartition(partitions, "repo").sortWithinPartitions("repo", "path")
    body = functools.partial(scan_sorted_batches, options=options, progress=progress)
    return grouped.mapInArrow(body, RESULT_DDL)


def results_frame(
    spark: SparkSession, job: JobInput, options: ScanOptions, progress: Any
) -> DataFrame:
    """One result row per input file, from every source."""
    frames = [_datasets_results(spark, job.datasets, options, progress)] if job.datasets else []
    if job.files or not frames:
        frames.insert(0, _files_results(spark, job.files, options, progress))
    return functools.reduce(DataFrame.unionByName, frames)


def _to_arrow(frame: DataFrame) -> pa.Table:
    collect: Any = frame  # pyspark's annotations route unknown attributes to Column
    if hasattr(DataFrame, "toArrow"):  # pyspark >= 4.0
        table: pa.Table = collect.toArrow()
        return table
    return pa.Table.from_batches(collect._collect_as_arrow(), schema=RESULT_SCHEMA)


def run_job(
    spark: SparkSession, job: JobInput, options: ScanOptions, progress: Progress | None = None
) -> pa.Table:
    """Scan every input file on the executors and return the per-file result table."""
    conf_key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    previous = spark.conf.get(conf_key, None)
    spark.conf.set(conf_key, str(ROWS_PER_ARROW_BATCH))
    counter: Any = spark.sparkContext.accumulator(0)
    try:
        frame = results_frame(spark, job, options, counter)
        if progress is not None:
            with progress.watch(spark.sparkContext, counter):
                table = _to_arrow(frame)
        else:
            table = _to_arrow(frame)
    finally:
        if previous is None:
            spark.conf.unset(conf_key)
        else:
            spark.conf.set(conf_key, previous)
    return table.cast(RESULT_SCHEMA).sort_by([("repo", "ascending"), ("path", "ascending")])
