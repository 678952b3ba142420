"""Copy the legacy example programs somewhere and migrate them with the real CLI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "examples" / "legacy"
#: single-file programs: ``python PROGRAM BOOTSTRAP TOPIC GROUP OUTFILE``
PROGRAMS = (
    "kafka_python_consumer.py",
    "aiokafka_consumer.py",
    "confluent_consumer.py",
    "confluent_aio_consumer.py",
    "confluent_class_consumer.py",
    "kafka_python_own_listener.py",
    "confluent_bound_methods_consumer.py",
    "confluent_app_shapes_consumer.py",
    "confluent_helper_consumer.py",
)
#: multi-module programs (packages): the listener class in ``listeners.py``, created and
#: registered in ``worker.py``; ``python -m PACKAGE BOOTSTRAP TOPIC GROUP OUTFILE``
PACKAGES = ("kafka_python_service", "aiokafka_service")
#: the modules of each package that ``migrate DIR`` rewrites (together, or neither)
PACKAGE_MIGRATED = ("listeners.py", "worker.py")


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``rebalance-guard ARGS`` in a fresh interpreter, the way a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "rebalance_cli", *args],
        cwd=cwd or ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def package_files(root: Path, package: str) -> dict[str, bytes]:
    """``{relative path: bytes}`` of the package's modules under ``root``."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / package).rglob("*.py"))
    }


def migrated_examples(destination: Path) -> Path:
    """The legacy programs and packages copied to ``destination`` and migrated by one
    ``rebalance-guard migrate DESTINATION`` (repository mode: a package's listener class is
    migrated together with the module that creates and registers it)."""
    for name in PROGRAMS:
        shutil.copy(LEGACY / name, destination / name)
    for package in PACKAGES:
        shutil.copytree(LEGACY / package, destination / package)
    result = run_cli("migrate", str(destination))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "manual" not in result.stdout, result.stdout
    for name in PROGRAMS:
        assert (destination / name).read_bytes() != (LEGACY / name).read_bytes(), name
    for package in PACKAGES:
        before, after = package_files(LEGACY, package), package_files(destination, package)
        changed = {path for path in before if before[path] != after[path]}
        assert changed == {f"{package}/{name}" for name in PACKAGE_MIGRATED}, package
    return destination
