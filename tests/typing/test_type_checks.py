"""Run mypy and pyright over the typeshed-style check files in this folder.

Each ``check_*.py`` uses ``assert_type`` for what must type-check and a coded
``# type: ignore[code]`` on each line that must be rejected; ``--warn-unused-ignores``
(mypy) and ``reportUnnecessaryTypeIgnoreComment`` (pyright) turn an accepted forbidden
call into a failure, so the checks cannot pass vacuously.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
CHECK_FILES = sorted(HERE.glob("check_*.py"))


def test_there_are_check_files() -> None:
    assert CHECK_FILES, "no tests/typing/check_*.py files found"


@pytest.mark.parametrize("check_file", CHECK_FILES, ids=lambda p: p.name)
def test_mypy(check_file: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--warn-unused-ignores",
         "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"), str(check_file)],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("check_file", CHECK_FILES, ids=lambda p: p.name)
def test_pyright(check_file: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pyright", "--project", str(ROOT / "pyproject.toml"),
         "--pythonpath", sys.executable, str(check_file)],  # the clients installed next to us
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
