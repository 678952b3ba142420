"""``rebalance-guard scan``: parse arguments, start (or join) Spark, scan, print the summary."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rebalance_scan.reading import DEFAULT_MAX_BYTES
from rebalance_scan.sources import SourceError, resolve_sources
from rebalance_scan.summary import format_summary

DESCRIPTION = """\
Run the KRB rules and the migration dry-run over repositories with Spark.
A directory SOURCE is one repository; --fleet DIR makes each subdirectory of DIR one;
a SOURCE ending in .parquet, .json, .jsonl or .ndjson is a dataset with columns
repo, path, content (local path or any URL Spark reads)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rebalance-guard scan",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("sources", nargs="*", metavar="SOURCE")
    parser.add_argument(
        "--fleet",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory whose subdirectories are repositories (repeatable)",
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="output directory, replaced atomically"
    )
    parser.add_argument(
        "--master",
        default=None,
        metavar="URL",
        help="Spark master URL (default local[*]; under spark-submit, its master)",
    )
    parser.add_argument(
        "--max-file-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"files larger than this are reported too_large (default {DEFAULT_MAX_BYTES})",
    )
    parser.add_argument(
        "--rules-only",
        action="store_true",
        help="skip the migration dry-run (findings only; no readiness figures)",
    )
    parser.add_argument(
        "--diffs",
        action="store_true",
        help="also rewrite each file with a migration site in memory (LibCST) and write "
        "diffs.parquet and diffs/<repo>.diff; without it the dry-run only plans (no LibCST)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser


def _first_line(error: Exception) -> str:
    """The JVM's own exception text when there is one (py4j's wrapper says only "o31.load")."""
    java = getattr(error, "java_exception", None)
    text = str(java.toString()) if java is not None else f"{type(error).__name__}: {error}"
    return (text.strip().splitlines() or [""])[0][:500]


def run(argv: Sequence[str]) -> int:
    """Exit 0 after a scan (findings are data, not failure), 1 when Spark fails, 2 for bad
    arguments or an output directory that must not be replaced."""
    args = _parser().parse_args(list(argv))
    if not args.sources and not args.fleet:
        print("rebalance-guard scan: give at least one SOURCE or --fleet DIR", file=sys.stderr)
        return 2
    if args.diffs and args.rules_only:
        print(
            "rebalance-guard scan: --diffs needs the dry-run (drop --rules-only)", file=sys.stderr
        )
        return 2
    if args.max_file_bytes < 1:
        print("rebalance-guard scan: --max-file-bytes must be positive", file=sys.stderr)
        return 2
    from rebalance_scan.atomic_dir import OutputError, check_replaceable
    from rebalance_scan.progress import Progress
    from rebalance_scan.reading import ScanOptions
    from rebalance_scan.scan import list_inputs, scan_to_directory
    from rebalance_scan.session import spark_session

    progress = Progress(total_stages=4, enabled=not args.quiet)
    try:
        check_replaceable(Path(args.out).absolute())  # fail before starting Spark
        repos, datasets = resolve_sources(args.sources, args.fleet)
        progress.stage("listing sources")
        job = list_inputs(repos, datasets)
        progress.line(
            f"{len(repos)} repositories, {len(job.files)} files, {len(datasets)} datasets"
        )
        progress.stage("starting Spark")
        spark = spark_session(args.master)
    except (SourceError, OutputError, OSError) as error:
        print(f"rebalance-guard scan: {error}", file=sys.stderr)
        return 2
    try:
        result = scan_to_directory(
            spark,
            job,
            args.out,
            ScanOptions(args.max_file_bytes, dry_run=not args.rules_only, diffs=args.diffs),
            progress,
            sources=list(args.sources) + list(args.fleet),
        )
    except (SourceError, OutputError) as error:
        print(f"rebalance-guard scan: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # Spark itself failed (unreadable dataset, lost cluster...)
        print(
            f"rebalance-guard scan: the Spark job failed, nothing was written to {args.out}: "
            f"{_first_line(error)}",
            file=sys.stderr,
        )
        return 1
    finally:
        spark.stop()
    print(format_summary(result))
    return 0
