"""Copy the legacy example programs somewhere and migrate them with the real CLI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "examples" / "legacy"
PROGRAMS = (
    "kafka_python_consumer.py",
    "aiokafka_consumer.py",
    "confluent_consumer.py",
    "confluent_aio_consumer.py",
    "confluent_class_consumer.py",
)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``rebalance-guard ARGS`` in a fresh interpreter, the way a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "rebalance_cli", *args],
        cwd=cwd or ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def migrated_examples(destination: Path) -> Path:
    """The legacy programs copied to ``destination`` and migrated by ``rebalance-guard migrate``."""
    for name in PROGRAMS:
        shutil.copy(LEGACY / name, destination / name)
    result = run_cli("migrate", str(destination))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "manual" not in result.stdout, result.stdout
    for name in PROGRAMS:
        assert (destination / name).read_bytes() != (LEGACY / name).read_bytes(), name
    return destination
