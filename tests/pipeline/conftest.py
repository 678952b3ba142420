"""One SparkSession for the whole pipeline test session (starting a JVM costs seconds)."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from rebalance_scan.scan import ScanResult

# The [spark] extra (pyspark, pyarrow) is absent from CI's kafka-python 2.x environment,
# which only selects -m kafka_python: collecting these modules there would fail on import.
if any(importlib.util.find_spec(name) is None for name in ("pyspark", "pyarrow")):
    collect_ignore_glob = ["test_*.py"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_FLEET = ROOT / "examples" / "fleet"
# Screenshots of the report taken by the browser tests (build/ is git-ignored); their paths
# are printed at the end of the run.
ARTIFACTS = ROOT / "build" / "test-artifacts"
_SESSION_START = time.time()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not ARTIFACTS.is_dir():
        return
    fresh = sorted(p for p in ARTIFACTS.iterdir() if p.stat().st_mtime >= _SESSION_START)
    if fresh:
        terminalreporter.write_sep("-", "report screenshots (test artifacts)")
        for path in fresh:
            terminalreporter.write_line(str(path))


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    from rebalance_scan.session import spark_session

    session = spark_session("local[1]")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def fleet_scan(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> ScanResult:
    """The example fleet scanned once on ``local[1]``; tests compare other scans with it."""
    from tests.pipeline.helpers import run_scan

    return run_scan(spark, tmp_path_factory.mktemp("fleet") / "out", fleets=[str(EXAMPLE_FLEET)])
