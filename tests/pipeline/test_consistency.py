"""``rebalance-guard scan`` and ``rebalance-guard check`` agree on the same files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest

from tests.pipeline.conftest import EXAMPLE_FLEET
from tests.pipeline.helpers import KAFKA_HEADER, copy_fleet, finding_keys, run_scan

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark


def _check_json(repos: list[Path]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "rebalance_cli", "check", "--format", "json", *map(str, repos)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # 1: something was found
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_scan_and_check_report_the_same_findings(spark: SparkSession, tmp_path: Path) -> None:
    fleet = copy_fleet(EXAMPLE_FLEET, tmp_path / "fleet")
    extra = fleet / "legacy-billing" / "billing"
    (extra / "noqa.py").write_bytes(
        KAFKA_HEADER
        + b"from kafka.consumer.subscription_state import ConsumerRebalanceListener\n"
        + b"class L(ConsumerRebalanceListener):  # noqa: KRB202\n"
        + b"    def on_partitions_revoked(self, revoked): pass\n"
        + b"    def on_partitions_assigned(self, assigned): pass\n"
    )
    (extra / "broken.py").write_bytes(KAFKA_HEADER + b"def f(:\n")
    repos = sorted(p for p in fleet.iterdir() if p.is_dir())
    result = run_scan(spark, tmp_path / "out", fleets=[str(fleet)])

    checked = _check_json(repos)
    expected: list[tuple[Any, ...]] = []
    bad: set[tuple[Any, ...]] = set()
    for file in checked["files"]:
        repo, *rest = Path(file["path"]).relative_to(fleet).parts
        path = "/".join(rest)
        if file["status"] != "ok":
            bad.add((repo, path, file["status"], file["reason"]))
        expected.extend(
            (repo, path, f["line"], f["col"], f["code"], f["message"], f["fixable"])
            for f in file["findings"]
        )
    scanned = pq.read_table(result.out / "findings.parquet").to_pylist()
    assert finding_keys(scanned) == sorted(expected)
    assert len(expected) > 10
    scan_bad = {
        (r["repo"], r["path"], r["status"], r["reason"])
        for r in result.results.to_pylist()
        if r["status"] != "ok"
    }
    assert scan_bad == bad
    assert {(repo, path) for repo, path, _, _ in bad} == {("legacy-billing", "billing/broken.py")}
    summary = checked["summary"]
    assert summary["files_checked"] == result.totals.files
