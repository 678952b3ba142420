"""The Spark job on a real SparkSession: findings, statuses, datasets, outputs."""

from __future__ import annotations

import json
import os
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_repository, check_source
from rebalance_scan.scan_command import _first_line
from rebalance_scan.sources import SourceError

from tests.pipeline.conftest import EXAMPLE_FLEET
from tests.pipeline.helpers import add_bad_files, copy_fleet, finding_keys, run_scan, statuses

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from rebalance_scan.scan import ScanResult

pytestmark = pytest.mark.spark


def _read(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def _direct_findings(fleet: Path) -> list[tuple[str, str, int, int, str, str, bool]]:
    """What the shared rule entry point says about each repository of the fleet."""
    keys: list[tuple[str, str, int, int, str, str, bool]] = []
    for repo in sorted(p for p in fleet.iterdir() if p.is_dir()):
        files = {f.relative_to(repo).as_posix(): f.read_bytes() for f in sorted(repo.rglob("*.py"))}
        for rel, report in check_repository(files).items():
            keys.extend(
                (repo.name, rel, f.line, f.col, f.code, f.message, f.fixable)
                for f in report.findings
            )
    return sorted(keys)


def test_example_fleet_findings_are_the_rule_functions_findings(fleet_scan: ScanResult) -> None:
    findings = _read(fleet_scan.out / "findings.parquet")
    assert finding_keys(findings) == _direct_findings(EXAMPLE_FLEET)
    codes = {f["code"] for f in findings}
    assert any(c.startswith("KRB1") for c in codes) and any(c.startswith("KRB2") for c in codes)
    assert set(statuses(fleet_scan).values()) == {"ok"}


def test_every_output_counts_bugs_by_kind_not_by_code(fleet_scan: ScanResult) -> None:
    """The fleet's "bugs" are the findings of kind bug, in every output; SARIF levels follow."""
    from rebalance_lint.kinds import SARIF_LEVEL

    direct: dict[tuple[str, str, int, int, str], str] = {}
    for repo in sorted(p for p in EXAMPLE_FLEET.iterdir() if p.is_dir()):
        files = {f.relative_to(repo).as_posix(): f.read_bytes() for f in sorted(repo.rglob("*.py"))}
        for rel, report in check_repository(files).items():
            direct.update(
                ((repo.name, rel, f.line, f.col, f.code), str(f.kind)) for f in report.findings
            )
    findings = _read(fleet_scan.out / "findings.parquet")
    scanned = {(f["repo"], f["path"], f["line"], f["col"], f["code"]): f["kind"] for f in findings}
    assert scanned == direct
    kinds = {kind for kind in direct.values()}
    assert kinds == {"bug", "risk", "advice"}, "the example fleet must show every kind"
    assert any(f["code"].startswith("KRB1") and f["kind"] != "bug" for f in findings)
    bugs: dict[str, int] = {}
    for f in findings:
        bugs[f["repo"]] = bugs.get(f["repo"], 0) + (f["kind"] == "bug")
    repositories = _read(fleet_scan.out / "repositories.parquet")
    assert {r["repo"]: r["bugs"] for r in repositories} == {
        r["repo"]: bugs.get(r["repo"], 0) for r in repositories
    }
    assert all((r["tier"] == "bugs") == (r["bugs"] > 0) for r in repositories)
    summary = json.loads((fleet_scan.out / "summary.json").read_text())
    assert summary["totals"]["kinds"]["bug"] == sum(bugs.values())
    log = json.loads((fleet_scan.out / "report.sarif").read_text())
    results = log["runs"][0]["results"]
    assert len(results) == len(findings)
    assert all(r["level"] == SARIF_LEVEL[r["properties"]["kind"]] for r in results)
    assert {r["level"] for r in results} == {"error", "warning", "note"}


def test_readiness_sums_the_codemod_dry_run(fleet_scan: ScanResult) -> None:
    expected: dict[str, tuple[int, int]] = {}
    for file in sorted(EXAMPLE_FLEET.rglob("*.py")):
        repo = file.relative_to(EXAMPLE_FLEET).parts[0]
        result = migrate_source(file.read_bytes(), file.name)
        auto, manual = expected.get(repo, (0, 0))
        expected[repo] = (auto + result.migrated_sites, manual + len(result.manual))
    table = {r["repo"]: r for r in _read(fleet_scan.out / "readiness.parquet")}
    assert {repo: (r["auto_sites"], r["manual_sites"]) for repo, r in table.items()} == expected
    assert sum(a for a, _ in expected.values()) > 0, "the example fleet must show auto sites"
    assert sum(m for _, m in expected.values()) > 0, "the example fleet must show manual sites"
    assert table["docs-site"]["verdict"] == "no Kafka listeners"
    manual_rows = _read(fleet_scan.out / "manual_sites.parquet")
    assert len(manual_rows) == sum(m for _, m in expected.values())


def test_outputs_and_summary(fleet_scan: ScanResult) -> None:
    names = {p.name for p in fleet_scan.out.iterdir()}
    assert names == {
        "findings.parquet",
        "files.parquet",
        "manual_sites.parquet",
        "readiness.parquet",
        "repositories.parquet",
        "report.sarif",
        "sarif",
        "report.html",
        "summary.json",
    }
    assert pq.read_schema(fleet_scan.out / "findings.parquet").names == [
        "repo",
        "path",
        "line",
        "col",
        "code",
        "message",
        "fixable",
        "kind",
    ]
    files = _read(fleet_scan.out / "files.parquet")
    assert len(files) == len(list(EXAMPLE_FLEET.rglob("*.py")))
    summary = json.loads((fleet_scan.out / "summary.json").read_text())
    assert summary["totals"]["files"] == len(files)
    assert {p.name for p in (fleet_scan.out / "sarif").iterdir()} == {
        f"{d.name}.sarif" for d in EXAMPLE_FLEET.iterdir()
    }


def test_html_report_is_self_contained(fleet_scan: ScanResult) -> None:
    html = (fleet_scan.out / "report.html").read_text()
    assert html.count("<svg") >= 3
    for external in ("<link", "src=", "@import", "url(", "fetch(", "XMLHttpRequest", "import("):
        assert external not in html
    # one inline script (sorting and filtering the table), nothing it could load
    assert html.count("<script") == html.count("<script>") == 1
    for repo in EXAMPLE_FLEET.iterdir():
        assert repo.name in html
    for finding in _read(fleet_scan.out / "findings.parquet"):
        assert str(finding["code"]) in html
    manual = _read(fleet_scan.out / "manual_sites.parquet")
    assert manual and all(escape(str(m["reason"])) in html for m in manual)


def test_bad_input_is_a_row_and_good_findings_stay(
    spark: SparkSession, fleet_scan: ScanResult, tmp_path: Path
) -> None:
    fleet = copy_fleet(EXAMPLE_FLEET, tmp_path / "fleet")
    outside = tmp_path / "outside"
    outside.mkdir()
    expected = add_bad_files(fleet / "orders-service", outside)
    result = run_scan(spark, tmp_path / "out", fleets=[str(fleet)], max_bytes=8 * 1024)

    by_path = {f"{r}/{p}": s for (r, p), s in statuses(result).items()}
    rows = {f"{r['repo']}/{r['path']}": r for r in result.results.to_pylist()}
    for path, status in expected.items():
        assert path in by_path, f"no row for {path}"
        if status is None:
            direct = check_source((fleet / path).read_bytes(), path).status
            assert by_path[path] == direct != "ok", (path, rows[path]["reason"])
        else:
            assert by_path[path] == status, (path, rows[path]["reason"])
        assert rows[path]["reason"] or status == "ok"
    assert "secret.py" not in json.dumps(sorted(by_path)), "followed a symlink out of the tree"

    good = [
        f for f in _read(result.out / "findings.parquet") if not str(f["path"]).startswith("bad/")
    ]
    assert finding_keys(good) == finding_keys(_read(fleet_scan.out / "findings.parquet"))
    good_files = {k: v for k, v in by_path.items() if "/bad/" not in k}
    assert set(good_files.values()) == {"ok"}
    assert len(good_files) == len(statuses(fleet_scan))


def test_parquet_and_json_datasets_match_the_directory_scan(
    spark: SparkSession, fleet_scan: ScanResult, tmp_path: Path
) -> None:
    rows = []
    for file in sorted(EXAMPLE_FLEET.rglob("*.py")):
        rel = file.relative_to(EXAMPLE_FLEET)
        rows.append(
            {
                "repo": rel.parts[0],
                "path": rel.relative_to(rel.parts[0]).as_posix(),
                "content": file.read_text(encoding="utf-8"),
            }
        )
    half = len(rows) // 2
    pq.write_table(pa.Table.from_pylist(rows[:half]), tmp_path / "corpus.parquet")
    with open(tmp_path / "corpus.jsonl", "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows[half:])
    sources = [str(tmp_path / "corpus.parquet"), str(tmp_path / "corpus.jsonl")]
    result = run_scan(spark, tmp_path / "out", sources=sources)
    assert finding_keys(_read(result.out / "findings.parquet")) == finding_keys(
        _read(fleet_scan.out / "findings.parquet")
    )
    assert statuses(result) == statuses(fleet_scan)


def test_dataset_bad_rows_and_missing_columns(spark: SparkSession, tmp_path: Path) -> None:
    table = pa.table(
        {
            "repo": ["r", "r", "r"],
            "path": ["none.py", "blob.py", "big.py"],
            "content": [None, b"\x00\x01kafka", b"import kafka\n" + b"#" * 5000],
        }
    )
    pq.write_table(table, tmp_path / "bad.parquet")
    result = run_scan(
        spark, tmp_path / "out", sources=[str(tmp_path / "bad.parquet")], max_bytes=1024
    )
    assert statuses(result) == {
        ("r", "none.py"): "unreadable",
        ("r", "blob.py"): "binary",
        ("r", "big.py"): "too_large",
    }
    pq.write_table(pa.table({"repo": ["r"], "text": ["x"]}), tmp_path / "nocontent.parquet")
    with pytest.raises(SourceError, match=r"missing column.*content.*path"):
        run_scan(spark, tmp_path / "out2", sources=[str(tmp_path / "nocontent.parquet")])
    assert not (tmp_path / "out2").exists()


def test_rerun_replaces_outputs(spark: SparkSession, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_scan(spark, out, fleets=[str(EXAMPLE_FLEET)])
    (out / "stale.txt").write_text("from an older run")
    result = run_scan(spark, out, sources=[str(EXAMPLE_FLEET / "docs-site")])
    assert not (out / "stale.txt").exists()
    assert {r["repo"] for r in _read(out / "files.parquet")} == {"docs-site"}
    assert result.totals.repos == 1
    assert [p.name for p in tmp_path.iterdir()] == ["out"], "temporary directories left behind"
    assert os.listdir(out / "sarif") == ["docs-site.sarif"]


def test_rules_only_scan_has_the_same_findings_and_no_dry_run(
    spark: SparkSession, fleet_scan: ScanResult, tmp_path: Path
) -> None:
    result = run_scan(spark, tmp_path / "out", fleets=[str(EXAMPLE_FLEET)], dry_run=False)
    assert finding_keys(_read(result.out / "findings.parquet")) == finding_keys(
        _read(fleet_scan.out / "findings.parquet")
    )
    files = _read(result.out / "files.parquet")
    assert {f["migration_reason"] for f in files} == {"dry-run disabled"}
    assert result.totals.auto_sites == result.totals.manual_sites == 0


def test_a_corrupt_dataset_fails_the_job_with_one_clear_line(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Not a row (Spark cannot even list its rows), but one line and no outputs."""
    bogus = tmp_path / "bogus.parquet"
    bogus.write_text("not parquet")
    with pytest.raises(Exception) as caught:  # whatever py4j raises
        run_scan(spark, tmp_path / "out", sources=[str(bogus)])
    line = _first_line(caught.value)
    assert "bogus.parquet" in line and "\n" not in line
    assert not (tmp_path / "out").exists()
