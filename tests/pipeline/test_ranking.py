"""One ranking everywhere, and the migration dry-run's two modes (plan only; --diffs)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest
from rebalance_codemods.api import migrate_source
from rebalance_scan.ranking import RANKING_RULE, rank_repositories
from rebalance_scan.summary import TOP_REPOSITORIES, format_summary
from rebalance_scan.tables import RepoReadiness

from tests.pipeline.conftest import EXAMPLE_FLEET
from tests.pipeline.helpers import copy_fleet, run_scan, synthetic_fleet

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from rebalance_scan.scan import ScanResult


def _read(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def test_the_ranking_rule() -> None:
    entries = [
        RepoReadiness("c-auto", kafka_files=1, auto_sites=50),
        RepoReadiness("d-quiet", kafka_files=1),
        RepoReadiness("b-manual", kafka_files=1, manual_sites=5, auto_sites=1),
        RepoReadiness("a-bug", kafka_files=1, bugs=1),
        RepoReadiness("e-bug-manual", kafka_files=1, bugs=1, manual_sites=1),
        RepoReadiness("f-two-bugs", kafka_files=1, bugs=2, auto_sites=3),
        RepoReadiness("g-no-kafka"),
        RepoReadiness("h-bad", bad_files=2),
        RepoReadiness("i-risk-manual", kafka_files=1, risks=1, manual_sites=9),
        RepoReadiness("j-advice-only", kafka_files=1, advice=40, auto_sites=2),
    ]
    ranked = rank_repositories(entries)
    assert [(r.rank, r.entry.repo, r.tier) for r in ranked] == [
        (1, "f-two-bugs", "bugs"),
        (2, "e-bug-manual", "bugs"),
        (3, "a-bug", "bugs"),
        (4, "i-risk-manual", "risks"),
        (5, "b-manual", "manual"),
        (6, "c-auto", "auto"),
        (7, "j-advice-only", "auto"),  # advice alone (KRB110 on raw confluent) is no bug
        (8, "d-quiet", "none"),
        (9, "g-no-kafka", "none"),
        (10, "h-bad", "none"),
    ]
    reasons = {r.entry.repo: r.reason for r in ranked}
    assert reasons["f-two-bugs"] == ("2 bugs to fix, then 3 auto-migratable sites")
    assert reasons["i-risk-manual"] == "1 risk to judge, then 9 sites to migrate by hand"
    assert reasons["b-manual"] == "5 sites to migrate by hand, then 1 auto-migratable site"
    assert reasons["d-quiet"] == "nothing to do"
    assert reasons["g-no-kafka"] == "no Kafka consumers found"
    assert reasons["h-bad"] == "nothing found; 2 files could not be checked"
    assert RANKING_RULE.index("bugs") < RANKING_RULE.index("risks") < RANKING_RULE.index("manual")
    assert RANKING_RULE.index("manual") < RANKING_RULE.index("auto")


@pytest.mark.spark
def test_report_console_summary_json_and_parquet_share_the_ranking(
    spark: SparkSession, tmp_path: Path
) -> None:
    fleet = tmp_path / "fleet"
    synthetic_fleet().write_fleet(fleet, 25, seed=3)
    result = run_scan(spark, tmp_path / "out", fleets=[str(fleet)])
    expected = [(r.rank, r.entry.repo, r.reason) for r in rank_repositories(result.readiness)]
    assert [(r.rank, r.entry.repo, r.reason) for r in result.ranked] == expected

    table = _read(result.out / "repositories.parquet")
    assert [(r["rank"], r["repo"], r["reason"]) for r in table] == expected
    assert {r["tier"] for r in table} >= {"bugs", "auto"}

    summary = json.loads((result.out / "summary.json").read_text())
    assert summary["ranking"] == RANKING_RULE
    assert [(r["rank"], r["repo"], r["reason"]) for r in summary["repositories"]] == expected

    html = (result.out / "report.html").read_text()
    rows = re.findall(r'<tr data-tier="\w+"><td class="n">(\d+)</td><td class="name">'
                      r'<a href="#repo-\d+">([^<]*)</a>', html)  # fmt: skip
    assert [(int(rank), unescape(repo)) for rank, repo in rows] == [e[:2] for e in expected]

    console = format_summary(result).splitlines()
    start = next(i for i, line in enumerate(console) if line.startswith("Where to start"))
    listed = console[start + 2 : start + 2 + TOP_REPOSITORIES]
    for line, (rank, repo, reason) in zip(listed, expected[:TOP_REPOSITORIES], strict=True):
        assert line.split()[:2] == [str(rank), repo] and line.endswith(reason), line
    more = len(expected) - TOP_REPOSITORIES
    assert console[start + 2 + TOP_REPOSITORIES].startswith(f"  ... {more} more (")
    assert sum(repo in "\n".join(console) for _, repo, _ in expected) == TOP_REPOSITORIES


@pytest.mark.spark
def test_diffs_option_writes_the_codemods_rewrites(
    spark: SparkSession, fleet_scan: ScanResult, tmp_path: Path
) -> None:
    result = run_scan(spark, tmp_path / "out", fleets=[str(EXAMPLE_FLEET)], diffs=True)
    # the same findings and readiness as the plan-only scan
    assert _read(result.out / "readiness.parquet") == _read(fleet_scan.out / "readiness.parquet")
    changing = {(r["repo"], r["path"]) for r in result.results.to_pylist() if r["would_change"]}
    diffs = _read(result.out / "diffs.parquet")
    assert {(d["repo"], d["path"]) for d in diffs} == changing and changing
    assert not (fleet_scan.out / "diffs.parquet").exists()  # only when asked

    # each repository's patch applies to a copy and gives what `migrate` writes
    fleet = copy_fleet(EXAMPLE_FLEET, tmp_path / "fleet")
    git = shutil.which("git")
    assert git is not None
    for patch in sorted((result.out / "diffs").iterdir()):
        repo = fleet / patch.stem
        done = subprocess.run(
            [git, "apply", "--unsafe-paths", str(patch)], cwd=repo, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    for repo, path in changing:
        original = (EXAMPLE_FLEET / repo / path).read_bytes()
        rewritten = migrate_source(original, path).new_source
        assert (fleet / repo / path).read_bytes() == rewritten


NO_LIBCST = """
import sys
from pathlib import Path
from rebalance_scan.executor import scan_content

fleet = Path(sys.argv[1])
rows = [scan_content(f.parts[-3], f.name, f.read_bytes()) for f in sorted(fleet.rglob("*.py"))]
assert sum(r["migrated_sites"] for r in rows) and sum(len(r["manual"]) for r in rows)
assert all(r["diff"] is None for r in rows)
print(sorted(m for m in sys.modules if m.split(".")[0] == "libcst"))
row = scan_content("r", "c.py", (fleet / "orders-service/orders/consumer.py").read_bytes(),
                   diffs=True)
assert row["diff"].startswith(b"--- a/c.py\\n+++ b/c.py\\n"), row
print("libcst" in sys.modules)
"""


def test_the_dry_run_plans_without_libcst() -> None:
    """What an executor runs for readiness imports no LibCST; --diffs does."""
    done = subprocess.run(
        [sys.executable, "-c", NO_LIBCST, str(EXAMPLE_FLEET)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "True"]


def test_diffs_apply_with_form_feeds_crlf_and_no_final_newline(tmp_path: Path) -> None:
    from rebalance_scan.executor import unified_diff

    old = b"# -*- coding: latin-1 -*-\nx = 1\n\x0cy = '\xe9'\r\nz = 3"
    new = b"# -*- coding: latin-1 -*-\nx = 1\n\x0cy = '\xe8'\r\nz = 4"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_bytes(old)
    patch = tmp_path / "m.diff"
    patch.write_bytes(unified_diff("pkg/m.py", old, new))
    git = shutil.which("git")
    assert git is not None
    done = subprocess.run([git, "apply", str(patch)], cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pkg" / "m.py").read_bytes() == new
