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
from rebalance_scan.ranking import RANKING_RULE, RankedRepo
from rebalance_scan.sarif import fleet_sarif, repo_sarif
from rebalance_scan.tables import (
    Totals,
    diffs_table,
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
    "repositories.parquet",
    "report.sarif",
    "sarif/",
    "report.html",
    MARKER,
)


def repositories_table(ranked: list[RankedRepo]) -> pa.Table:
    """One row per repository in ranking order: rank, tier and reason, then the counts."""
    counts = readiness_table([r.entry for r in ranked])
    front = pa.table(
        {
            "rank": pa.array([r.rank for r in ranked], pa.int32()),
            "repo": counts.column("repo"),
            "tier": pa.array([r.tier for r in ranked], pa.string()),
            "reason": pa.array([r.reason for r in ranked], pa.string()),
        }
    )
    for name in counts.column_names[1:]:
        front = front.append_column(counts.schema.field(name), counts.column(name))
    return front


def _safe_name(repo: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", repo).strip("._") or "repo"


def _write_json(path: Path, data: Any, indent: int | None = 1) -> None:
    """``indent=None`` for the machine-read SARIF logs: json's C encoder only runs without
    an indent, and writing one log per repository was most of the outputs' time."""
    text = json.dumps(data, indent=indent, separators=None if indent else (",", ":"))
    path.write_text(text + "\n", encoding="utf-8")


def _file_names(repos: list[str]) -> dict[str, str]:
    """A distinct safe file name (no extension) per repository name."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for repo in repos:
        name = _safe_name(repo)
        while name in used:
            name += "_"
        used.add(name)
        names[repo] = name
    return names


def _write_diffs(directory: Path, results: pa.Table) -> None:
    """diffs.parquet (repo, path, diff: bytes in the file's encoding) and diffs/<repo>.diff,
    one patch per repository that ``git apply`` (or ``patch -p1``) applies from its root."""
    table = diffs_table(results)
    pq.write_table(table, directory / "diffs.parquet")
    (directory / "diffs").mkdir()
    patches: dict[str, list[bytes]] = {}
    for row in table.to_pylist():
        patches.setdefault(row["repo"], []).append(row["diff"])
    for repo, name in _file_names(sorted(patches)).items():
        (directory / "diffs" / f"{name}.diff").write_bytes(b"".join(patches[repo]))


def write_outputs(
    directory: Path,
    results: pa.Table,
    ranked: list[RankedRepo],
    totals: Totals,
    context: dict[str, Any],
) -> None:
    """Parquet tables, SARIF (fleet and per repository), the HTML report and summary.json;
    with ``context["diffs"]`` also the migration's diffs."""
    findings = findings_table(results)
    pq.write_table(findings, directory / "findings.parquet")
    pq.write_table(files_table(results), directory / "files.parquet")
    manual = manual_sites_table(results)
    pq.write_table(manual, directory / "manual_sites.parquet")
    entries = sorted((r.entry for r in ranked), key=lambda e: e.repo)
    pq.write_table(readiness_table(entries), directory / "readiness.parquet")
    pq.write_table(repositories_table(ranked), directory / "repositories.parquet")
    if context.get("diffs"):
        _write_diffs(directory, results)

    rows = results.drop_columns(["diff"]).to_pylist()
    _write_json(directory / "report.sarif", fleet_sarif(rows), indent=None)
    (directory / "sarif").mkdir()
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_repo.setdefault(row["repo"], []).append(row)
    for repo, name in _file_names(list(by_repo)).items():
        _write_json(directory / "sarif" / f"{name}.sarif", repo_sarif(by_repo[repo]), indent=None)

    sources = list(context["sources"])
    named = ", ".join(sources[:3]) + (f" and {len(sources) - 3} more" if len(sources) > 3 else "")
    generated = (
        f"Generated {datetime.now(UTC):%Y-%m-%d %H:%M UTC} from {named} on {context['master']}"
        + (" (migration dry-run planned, no diffs)." if context.get("dry_run") else ".")
    )
    problems = [r for r in rows if r["status"] != "ok"]
    html = render_report(
        totals, ranked, findings.to_pylist(), problems, manual.to_pylist(), generated
    )
    (directory / "report.html").write_text(html, encoding="utf-8")
    _write_json(
        directory / MARKER,
        {
            **context,
            "totals": vars(totals),
            "ranking": RANKING_RULE,
            "repositories": repositories_table(ranked).to_pylist(),
        },
    )
