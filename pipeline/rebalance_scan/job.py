"""The Spark job: paths (or dataset rows) in, one result row per file out, via ``mapInArrow``.

Contents never reach the driver: directory sources ship only ``(repo, root, path)`` and
executors read the files; dataset sources are read by Spark on the executors. What comes
back to the driver is the small result table (statuses, findings, migration counts).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import BinaryType, StringType, StructField, StructType

from rebalance_scan.executor import RESULT_DDL, RESULT_SCHEMA, scan_batches
from rebalance_scan.partitioning import balance, partition_count
from rebalance_scan.progress import Progress
from rebalance_scan.sources import Dataset, FileRef, SourceError

INPUT_SCHEMA = StructType(
    [
        StructField("repo", StringType(), False),
        StructField("path", StringType(), False),
        StructField("root", StringType(), True),
        StructField("content", BinaryType(), True),
    ]
)
ROWS_PER_ARROW_BATCH = 64  # dataset rows carry whole files: keep Arrow batches small


@dataclass(frozen=True)
class JobInput:
    """What the driver listed: repository files (paths only) and datasets."""

    files: Sequence[FileRef]
    datasets: Sequence[Dataset]


def _files_frame(spark: SparkSession, files: Sequence[FileRef]) -> DataFrame:
    parallelism = spark.sparkContext.defaultParallelism
    buckets = balance(files, partition_count(len(files), parallelism))
    rows = [[(f.repo, f.path, f.root, None) for f in bucket] for bucket in buckets]
    rdd = spark.sparkContext.parallelize(rows, len(rows)).flatMap(lambda bucket: bucket)
    return spark.createDataFrame(rdd, INPUT_SCHEMA)


def _dataset_frame(spark: SparkSession, dataset: Dataset) -> DataFrame:
    frame = spark.read.format(dataset.format).load(dataset.path)
    missing = {"repo", "path", "content"} - set(frame.columns)
    if missing:
        raise SourceError(f"{dataset.path}: missing column(s) {', '.join(sorted(missing))}")
    frame = frame.select(
        F.col("repo").cast("string").alias("repo"),
        F.col("path").cast("string").alias("path"),
        F.lit(None).cast("string").alias("root"),
        F.col("content").cast("binary").alias("content"),  # strings become their UTF-8 bytes
    )
    parallelism = spark.sparkContext.defaultParallelism
    if frame.rdd.getNumPartitions() < parallelism:
        frame = frame.repartition(parallelism * 2)
    return frame


def input_frame(spark: SparkSession, job: JobInput) -> DataFrame:
    """Union of every source in the executors' input shape ``repo, path, root, content``."""
    frames = [_dataset_frame(spark, dataset) for dataset in job.datasets]
    if job.files or not frames:
        frames.insert(0, _files_frame(spark, job.files))
    return functools.reduce(DataFrame.unionByName, frames)


def run_job(
    spark: SparkSession, job: JobInput, max_bytes: int, progress: Progress | None = None
) -> pa.Table:
    """Scan every input file on the executors and return the per-file result table."""
    conf_key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    previous = spark.conf.get(conf_key, None)
    spark.conf.set(conf_key, str(ROWS_PER_ARROW_BATCH))
    counter: Any = spark.sparkContext.accumulator(0)
    body = functools.partial(scan_batches, max_bytes=max_bytes, progress=counter)
    try:
        frame = input_frame(spark, job).mapInArrow(body, RESULT_DDL)
        if progress is not None:
            with progress.watch(spark.sparkContext, counter):
                table = frame.toArrow()
        else:
            table = frame.toArrow()
    finally:
        if previous is None:
            spark.conf.unset(conf_key)
        else:
            spark.conf.set(conf_key, previous)
    return table.cast(RESULT_SCHEMA).sort_by([("repo", "ascending"), ("path", "ascending")])
