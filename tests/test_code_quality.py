"""The project's own standards, enforced: ruff clean everywhere, mypy --strict on the packages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["stubs/rebalance_guard", "lint_rules/rebalance_lint", "codemods/rebalance_codemods",
            "pipeline/rebalance_scan", "cli/rebalance_cli"]  # fmt: skip


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_packages() -> None:
    result = _run("mypy", "--strict", "--config-file", "pyproject.toml", *PACKAGES)
    assert result.returncode == 0, result.stdout + result.stderr
