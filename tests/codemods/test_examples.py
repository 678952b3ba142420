"""The legacy example programs: the lint finds KRB201-KRB203, the migrated ones are clean.

The migration is done by the CLI on copies; the migrated programs must then pass
``mypy --strict`` and raise no KRB finding at all. (They run against a real broker in
tests/integration/test_migrated_examples.py.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rebalance_lint import check_source

from tests.codemods.examples import LEGACY, PROGRAMS, ROOT, migrated_examples


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated_examples(tmp_path_factory.mktemp("migrated"))


@pytest.mark.parametrize("program", PROGRAMS)
def test_legacy_program_has_what_the_codemods_rewrite(program: str) -> None:
    report = check_source((LEGACY / program).read_bytes(), program)
    codes = {finding.code for finding in report.findings}
    wanted = {"KRB203"} | ({"KRB201", "KRB202"} if "confluent" not in program else set())
    assert wanted <= codes, report.findings


@pytest.mark.parametrize("program", PROGRAMS)
def test_migrated_program_raises_no_krb_finding(migrated: Path, program: str) -> None:
    report = check_source((migrated / program).read_bytes(), program)
    assert report.status == "ok", report.reason
    assert not report.findings, report.findings


def test_migrated_programs_pass_mypy_strict(migrated: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--config-file", str(ROOT / "pyproject.toml"), *(str(migrated / p) for p in PROGRAMS)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
