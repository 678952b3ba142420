"""Write every output of one scan into a directory (the caller makes it atomic)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rebalance_scan.atomic_dir import MARKER
from rebalance_scan.html_report import render_report
from rebalance_scan.sarif import fleet_sarif, repo_sarif
from rebalance_scan.tables import (
    RepoReadiness,
    Totals,
    files_table,
    findings_table,
    manual_sites_table,
    readiness_table,
)

OUTPUT_NAMES = (
    "findings.parquet",
    "files.parquet",
    "manual_sites.parquet",
    "readiness.parquet",
    "report.sarif",
    "sarif/",
    "report.html",
    MARKER,
)


def _safe_name(repo: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", repo).strip("._") or "repo"


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def write_outputs(
    directory: Path,
    results: pa.Table,
    entries: list[RepoReadiness],
    totals: Totals,
    context: dict[str, Any],
) -> None:
    """Parquet tables, SARIF (fleet and per repository), the HTML report and summary.json."""
    findings = findings_table(results)
    pq.write_table(findings, directory / "findings.parquet")
    pq.write_table(files_table(results), directory / "files.parquet")
    manual = manual_sites_table(results)
    pq.write_table(manual, directory / "manual_sites.parquet")
    pq.write_table(readiness_table(entries), directory / "readiness.parquet")

    rows = results.to_pylist()
    _write_json(directory / "report.sarif", fleet_sarif(rows))
    (directory / "sarif").mkdir()
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_repo.setdefault(row["repo"], []).append(row)
    used: set[str] = set()
    for repo, repo_rows in by_repo.items():
        name = _safe_name(repo)
        while name in used:
            name += "_"
        used.add(name)
        _write_json(directory / "sarif" / f"{name}.sarif", repo_sarif(repo_rows))

    generated = (
        f"Generated {datetime.now(UTC):%Y-%m-%d %H:%M UTC} from {', '.join(context['sources'])}"
        f" on {context['master']}."
    )
    problems = [r for r in rows if r["status"] != "ok"]
    html = render_report(
        totals, entries, findings.to_pylist(), problems, manual.to_pylist(), generated
    )
    (directory / "report.html").write_text(html, encoding="utf-8")
    _write_json(
        directory / MARKER,
        {
            **context,
            "totals": vars(totals),
            "readiness": [
                {**vars(e), "readiness": e.readiness, "verdict": e.verdict} for e in entries
            ],
        },
    )
