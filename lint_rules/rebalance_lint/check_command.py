"""``rebalance-guard check PATH...``: the KRB rules without flake8, text or JSON output.

Exit status: 0 nothing found, 1 findings or files that could not be checked, 2 usage error.
Directories are searched for ``*.py`` without following symlinks out of them; a file that
cannot be read is reported on its own line and the rest are still checked.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from rebalance_lint.api import FileReport, check_source
from rebalance_lint.reading import Unreadable, iter_python_files, read_source


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rebalance-guard check",
        description="Check Python files for Kafka rebalance-callback bugs (KRB rules).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--select",
        type=_codes,
        default=("KRB",),
        metavar="CODES",
        help="comma-separated codes or prefixes to report, as flake8 (default: KRB, all)",
    )
    parser.add_argument(
        "--ignore", type=_codes, default=(), metavar="CODES", help="codes or prefixes to skip"
    )
    return parser


def _codes(value: str) -> tuple[str, ...]:
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    if not all(c.startswith("KRB") for c in codes):
        raise argparse.ArgumentTypeError(f"not KRB codes: {value!r}")
    return codes


def selected(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """flake8's rule: the longest matching prefix decides between select and ignore."""
    chosen = max((len(p) for p in select if code.startswith(p)), default=-1)
    dropped = max((len(p) for p in ignore if code.startswith(p)), default=-1)
    return chosen > dropped


def check_path(path: Path) -> FileReport | Unreadable:
    """The report for one file, or why it could not be read."""
    source = read_source(path)
    return source if isinstance(source, Unreadable) else check_source(source, str(path))


def run(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse already printed the usage message
        return 0 if exc.code == 0 else 2
    results: list[dict[str, object]] = []
    checked = skipped = findings = problems = 0
    for given in args.paths:
        root = Path(given)
        if not root.exists() and not root.is_symlink():
            results.append(
                {"path": given, "status": "unreadable", "reason": "no such file or directory"}
            )
            problems += 1
            continue
        for path in iter_python_files(root):
            report = check_path(path)
            checked += 1
            if isinstance(report, Unreadable):
                results.append(
                    {"path": str(path), "status": report.status, "reason": report.reason}
                )
                problems += 1
                continue
            report = replace(
                report,
                findings=tuple(
                    f for f in report.findings if selected(f.code, args.select, args.ignore)
                ),
            )
            skipped += report.skipped
            findings += len(report.findings)
            problems += report.status != "ok"
            if report.findings or report.status != "ok":
                results.append(
                    {
                        "path": str(path),
                        "status": report.status,
                        "reason": report.reason,
                        "findings": [asdict(f) for f in report.findings],
                    }
                )
    summary = {
        "files_checked": checked,
        "files_skipped_no_kafka": skipped,
        "findings": findings,
        "files_not_checked": problems,
    }
    if args.format == "json":
        json.dump({"files": results, "summary": summary}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_text(results, summary)
    return 1 if findings or problems else 0


def _print_text(results: list[dict[str, object]], summary: dict[str, int]) -> None:
    out = sys.stdout
    for result in results:
        if result["status"] != "ok":
            out.write(f"{result['path']}: {result['status']}: {result['reason']}\n")
        for f in result.get("findings", []):  # type: ignore[attr-defined]
            out.write(f"{result['path']}:{f['line']}:{f['col'] + 1}: {f['code']} {f['message']}\n")
    if summary["findings"] or summary["files_not_checked"]:
        sys.stderr.write(
            f"{summary['findings']} finding(s) in {summary['files_checked']} file(s); "
            f"{summary['files_not_checked']} file(s) could not be checked\n"
        )
