"""Derive the output tables from the per-file result table (small: no file contents)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from rebalance_lint.kinds import count_kinds
from rebalance_lint.report import Kind

FINDINGS_COLUMNS = ["repo", "path", "line", "col", "code", "message", "fixable", "kind"]


def _explode(results: pa.Table, column: str, fields: list[str]) -> pa.Table:
    """One row per list element, with that file's repo and path in front."""
    lists = results.column(column).combine_chunks()
    parents = pc.list_parent_indices(lists)
    flat = pc.list_flatten(lists)
    out = {
        "repo": pc.take(results.column("repo"), parents),
        "path": pc.take(results.column("path"), parents),
    }
    for name in fields:
        out[name] = pc.struct_field(flat, name)
    return pa.table(out)


def findings_table(results: pa.Table) -> pa.Table:
    """repo, path, line, col, code, message, fixable, kind: one row per finding, sorted."""
    table = _explode(results, "findings", FINDINGS_COLUMNS[2:])
    return table.sort_by([(c, "ascending") for c in ("repo", "path", "line", "col", "code")])


def manual_sites_table(results: pa.Table) -> pa.Table:
    """repo, path, line, reason: the sites the codemods leave for a person."""
    return _explode(results, "manual", ["line", "reason"])


def diffs_table(results: pa.Table) -> pa.Table:
    """repo, path, diff: the files the codemods would rewrite (scan --diffs only)."""
    has_diff = pc.invert(pc.is_null(results.column("diff")))
    return results.filter(has_diff).select(["repo", "path", "diff"])


def files_table(results: pa.Table) -> pa.Table:
    """The per-file status table: nested lists replaced by their counts."""
    return (
        results.drop_columns(["findings", "manual", "diff"])
        .append_column(
            "findings", pc.list_value_length(results.column("findings")).cast(pa.int32())
        )
        .append_column(
            "manual_sites", pc.list_value_length(results.column("manual")).cast(pa.int32())
        )
    )


@dataclass
class RepoReadiness:
    """How much of one repository's migration the codemods can do."""

    repo: str
    files: int = 0
    kafka_files: int = 0
    bad_files: int = 0
    bugs: int = 0  # findings of kind bug (rebalance_lint.kinds), whatever their code
    risks: int = 0
    advice: int = 0
    auto_sites: int = 0
    manual_sites: int = 0
    files_to_rewrite: int = 0

    @property
    def readiness(self) -> float | None:
        sites = self.auto_sites + self.manual_sites
        return None if sites == 0 else self.auto_sites / sites

    @property
    def verdict(self) -> str:
        if self.auto_sites == 0 and self.manual_sites == 0:
            return "nothing to migrate" if self.kafka_files else "no Kafka listeners"
        if self.manual_sites == 0:
            return "fully automatic"
        return "partly automatic" if self.auto_sites else "manual only"


def readiness(results: pa.Table) -> list[RepoReadiness]:
    """Per-repository counts, sorted by repository name."""
    repos: dict[str, RepoReadiness] = {}
    for row in results.to_pylist():
        entry = repos.setdefault(row["repo"], RepoReadiness(row["repo"]))
        entry.files += 1
        entry.kafka_files += bool(row["kafka"])
        entry.bad_files += row["status"] != "ok"
        kinds = count_kinds(row["findings"])
        entry.bugs += kinds["bug"]
        entry.risks += kinds["risk"]
        entry.advice += kinds["advice"]
        entry.auto_sites += row["migrated_sites"]
        entry.manual_sites += len(row["manual"])
        entry.files_to_rewrite += bool(row["would_change"])
    return [repos[name] for name in sorted(repos)]


def readiness_table(entries: list[RepoReadiness]) -> pa.Table:
    rows: list[dict[str, Any]] = [
        {**vars(e), "readiness": e.readiness, "verdict": e.verdict} for e in entries
    ]
    schema = pa.schema(
        [(name, pa.string() if name == "repo" else pa.int64()) for name in vars(RepoReadiness(""))]
        + [("readiness", pa.float64()), ("verdict", pa.string())]
    )
    return pa.Table.from_pylist(rows, schema=schema)


@dataclass(frozen=True)
class Totals:
    """Fleet-wide counts for the console summary and the reports."""

    files: int
    bytes: int
    repos: int
    statuses: dict[str, int]
    rules: dict[str, int]
    kinds: dict[Kind, int]  # findings per kind: bug, risk, advice
    rule_kinds: dict[str, int]  # findings per "CODE kind" (a rule can give several kinds)
    auto_sites: int
    manual_sites: int


def totals(results: pa.Table, findings: pa.Table, entries: list[RepoReadiness]) -> Totals:
    statuses = Counter(results.column("status").to_pylist())
    rules: defaultdict[str, int] = defaultdict(int)
    rule_kinds: defaultdict[str, int] = defaultdict(int)
    rows = findings.select(["code", "kind"]).to_pylist()
    for row in rows:
        rules[row["code"]] += 1
        rule_kinds[f"{row['code']} {row['kind']}"] += 1
    return Totals(
        files=results.num_rows,
        bytes=int(pc.sum(results.column("size_bytes")).as_py() or 0),
        repos=len(entries),
        statuses=dict(sorted(statuses.items())),
        rules=dict(sorted(rules.items())),
        kinds=dict(count_kinds(rows)),
        rule_kinds=dict(sorted(rule_kinds.items())),
        auto_sites=sum(e.auto_sites for e in entries),
        manual_sites=sum(e.manual_sites for e in entries),
    )
