"""The multi-module legacy programs (examples/legacy/<package>/): ``check DIR`` reports every
migration site as fixable, ``migrate DIR`` rewrites the listener module and the module that
registers it in one run, and afterwards ``check DIR`` reports nothing and the migrated
package passes ``mypy --strict``. (They run against a real broker in
tests/integration/test_migrated_examples.py.)
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.codemods.examples import LEGACY, PACKAGE_MIGRATED, PACKAGES, ROOT, run_cli

FIXABLE = "(fixable: rebalance-guard migrate)"
FINDING = re.compile(r"^(?P<path>\S+?):\d+:\d+: (?P<code>KRB\d+) .*$", re.MULTILINE)


def _findings(output: str, root: Path) -> list[tuple[str, str, bool]]:
    """(path relative to root, code, fixable) of every finding ``check`` printed."""
    return sorted(
        (
            Path(m["path"]).relative_to(root).as_posix(),
            m["code"],
            m.group(0).endswith(FIXABLE),
        )
        for m in FINDING.finditer(output)
    )


@pytest.fixture(params=PACKAGES)
def package(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """A copy of one legacy package under a fresh directory (the directory given to the CLI)."""
    name: str = request.param
    shutil.copytree(LEGACY / name, tmp_path / "repo" / name)
    return tmp_path / "repo", name


def test_check_reports_the_sites_fixable_and_migrate_dir_leaves_none(
    package: tuple[Path, str],
) -> None:
    root, name = package
    before = run_cli("check", "--select", "KRB2", str(root))
    assert before.returncode == 1, before.stdout + before.stderr
    assert _findings(before.stdout, root) == [
        (f"{name}/listeners.py", "KRB201", True),
        (f"{name}/listeners.py", "KRB202", True),
        (f"{name}/worker.py", "KRB203", True),
    ], before.stdout

    sources = {p: p.read_bytes() for p in (root / name).glob("*.py")}
    migrated = run_cli("migrate", str(root))
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    assert "manual" not in migrated.stdout, migrated.stdout
    changed = sorted(p.name for p, data in sources.items() if p.read_bytes() != data)
    assert changed == sorted(PACKAGE_MIGRATED)
    for module in PACKAGE_MIGRATED:
        assert f"migrated {root / name / module} " in migrated.stdout, migrated.stdout

    after = run_cli("check", "--select", "KRB2", str(root))
    assert after.returncode == 0, after.stdout + after.stderr
    assert _findings(after.stdout, root) == [], after.stdout
    everything = run_cli("check", str(root))
    assert everything.returncode == 0, everything.stdout + everything.stderr
    again = run_cli("migrate", "--check", str(root))
    assert again.returncode == 0, again.stdout + again.stderr

    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(root / ".cache"),
         "-p", name],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_migrating_the_package_directory_itself_is_all_or_nothing(tmp_path: Path) -> None:
    """``migrate app/`` on a package whose modules import each other both ways
    (``from app.listeners import`` and ``from .listeners import``): the listener class and
    every creation of it are migrated together (as ``migrate .`` does), or none of them.

    Files are named below the packages the given directory is in
    (:func:`rebalance_lint.reading.repository_files`); named relative to ``app/`` alone,
    ``from app.listeners import X`` did not resolve and the class was migrated without the
    registration that imports it that way (``TypeError`` at run time)."""
    repo = ROOT / "tests" / "codemods" / "fixtures" / "repos" / "registered_in_two"
    shutil.copytree(repo / "before", tmp_path / "repo")
    result = run_cli("migrate", str(tmp_path / "repo" / "app"))
    assert result.returncode == 0, result.stdout + result.stderr
    produced = {p.name: p.read_bytes() for p in (tmp_path / "repo" / "app").glob("*.py")}
    before = {p.name: p.read_bytes() for p in (repo / "before" / "app").glob("*.py")}
    after = {p.name: p.read_bytes() for p in (repo / "after" / "app").glob("*.py")}
    assert produced in (before, after), result.stdout
