"""``rebalance-guard scan`` as a user runs it: the README command, two executor JVMs, errors."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest
import rebalance_scan
from rebalance_cli import main

from tests.pipeline.conftest import EXAMPLE_FLEET, ROOT
from tests.pipeline.helpers import add_bad_files, copy_fleet, finding_keys, run_scan

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from rebalance_scan.scan import ScanResult

BIN = Path(sys.executable).parent
REPO_FIXTURE = ROOT / "tests" / "lint" / "fixtures" / "repo_listener_elsewhere"


def _readme_scan_command() -> list[str]:
    """The quick start's scan, taken from README.md itself so the two cannot drift apart."""
    for line in (ROOT / "README.md").read_text().splitlines():
        if "rebalance-guard scan" in line:
            command = line.split("&&")[-1].strip()
            argv = shlex.split(command)
            assert argv[0] == ".venv/bin/rebalance-guard"
            return [str(BIN / "rebalance-guard"), *argv[1:]]
    raise AssertionError("README.md has no rebalance-guard scan command")


def _table(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def _files(out: Path) -> list[tuple[object, ...]]:
    return sorted(
        (r["repo"], r["path"], r["status"], r["reason"], r["findings"], r["migrated_sites"])
        for r in _table(out / "files.parquet")
    )


@pytest.mark.spark
@pytest.mark.slow
def test_readme_command_scans_the_example_fleet(fleet_scan: ScanResult, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE_FLEET, tmp_path / "examples" / "fleet")
    done = subprocess.run(
        _readme_scan_command(), cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    files = len(list(EXAMPLE_FLEET.rglob("*.py")))
    assert f"Scanned {files} Python files" in done.stdout
    assert "Migration readiness:" in done.stdout and "orders-service" in done.stdout
    assert "[3/4] scanning on executors (local[*]" in done.stderr
    assert f"files scanned {files} (done)" in done.stderr
    assert "Traceback" not in done.stderr
    out = tmp_path / "scan-out"
    # the embedded default local[*] and the fixture's local[1] agree
    assert finding_keys(_table(out / "findings.parquet")) == finding_keys(
        _table(fleet_scan.out / "findings.parquet")
    )
    assert _files(out) == _files(fleet_scan.out)


@pytest.mark.spark
@pytest.mark.slow
def test_spark_submit_on_two_executor_jvms_matches_local_1(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The unchanged job under spark-submit on local-cluster[2,1,1024] (two executor JVMs,
    each with its own Python workers) gives what the fixture's local[1] gives, repository
    mode included (a listener class in one module, registered in another)."""
    import pyspark

    fleet = copy_fleet(EXAMPLE_FLEET, tmp_path / "fleet")
    shutil.copytree(REPO_FIXTURE, fleet / REPO_FIXTURE.name)
    outside = tmp_path / "outside"
    outside.mkdir()
    add_bad_files(fleet / "payments-worker", outside)
    local = run_scan(spark, tmp_path / "local1", fleets=[str(fleet)], max_bytes=8192)
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    main_py = Path(rebalance_scan.__file__).parent / "__main__.py"
    cluster = tmp_path / "cluster"
    command = [
        str(submit),
        "--master",
        "local-cluster[2,1,1024]",
        str(main_py),
        "--fleet",
        str(fleet),
        "--max-file-bytes",
        "8192",
        "--out",
        str(cluster),
    ]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}  # driver and executors' Python
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    # spark-submit merges the Python driver's stderr into its stdout
    assert "scanning on executors (local-cluster[2,1,1024]" in done.stdout + done.stderr
    assert finding_keys(_table(cluster / "findings.parquet")) == finding_keys(
        _table(local.out / "findings.parquet")
    )
    assert _files(cluster) == _files(local.out)
    assert _table(cluster / "readiness.parquet") == _table(local.out / "readiness.parquet")
    # KRB201 on the listener's constructor needs main.py's registration: repository mode
    assert any(
        (f["repo"], f["path"], f["code"]) == (REPO_FIXTURE.name, "app/listeners.py", "KRB201")
        for f in _table(cluster / "findings.parquet")
    )


def test_usage_errors_exit_2_before_starting_spark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_output = tmp_path / "home"
    not_output.mkdir()
    (not_output / "notes.txt").write_text("precious")
    cases = [
        ["scan", "--out", str(tmp_path / "o")],
        ["scan", str(tmp_path / "missing"), "--out", str(tmp_path / "o")],
        ["scan", "--fleet", str(not_output / "notes.txt"), "--out", str(tmp_path / "o")],
        ["scan", str(EXAMPLE_FLEET / "docs-site"), "--out", str(not_output)],
        [
            "scan",
            str(EXAMPLE_FLEET / "docs-site"),
            "--out",
            str(tmp_path / "o"),
            "--max-file-bytes",
            "0",
        ],
        [
            "scan",
            str(EXAMPLE_FLEET / "docs-site"),
            "--out",
            str(tmp_path / "o"),
            "--diffs",
            "--rules-only",
        ],
    ]
    for argv in cases:
        assert main(argv) == 2, argv
        assert "rebalance-guard scan:" in capsys.readouterr().err
    assert (not_output / "notes.txt").read_text() == "precious"
    assert not (tmp_path / "o").exists()
