"""The published pre-commit hooks: a valid manifest, and the check hook run by ``try-repo``.

try-repo installs this repository into pre-commit's own virtualenv (``pip install .``), so
the run test needs the package index and is marked slow. It points at a clone of the
committed HEAD, never at the working checkout (try-repo would stage local changes there).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"

BAD = """\
from confluent_kafka import Consumer


def on_revoke(consumer, partitions):
    consumer.poll(0)


Consumer({}).subscribe(["t"], on_revoke=on_revoke)
"""


def pre_commit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_manifest_is_valid_and_names_both_hooks() -> None:
    result = pre_commit("validate-manifest", str(MANIFEST), cwd=ROOT, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}
    assert hooks["rebalance-guard-check"]["entry"] == "rebalance-guard check"
    assert hooks["rebalance-guard-check"]["args"] == ["--fail-on=bug"]  # fails on bugs only
    assert hooks["rebalance-guard-migrate"]["entry"] == "rebalance-guard migrate --check"
    assert all(hook["types"] == ["python"] for hook in hooks.values())


@pytest.mark.slow
def test_check_hook_through_try_repo(tmp_path: Path) -> None:
    hook_repo = tmp_path / "hook-repo"
    git("clone", "--quiet", str(ROOT), str(hook_repo), cwd=tmp_path)
    if not (hook_repo / ".pre-commit-hooks.yaml").exists():
        pytest.fail(".pre-commit-hooks.yaml is not committed: try-repo uses the committed HEAD")
    project = tmp_path / "project"
    project.mkdir()
    git("init", "--quiet", cwd=project)
    (project / "consumer.py").write_text(BAD)
    (project / "clean.py").write_text("import kafka\n")
    git("add", ".", cwd=project)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    result = pre_commit(
        "try-repo", str(hook_repo), "rebalance-guard-check", "--all-files", "--verbose",
        cwd=project, env=env,
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "consumer.py:5:5: KRB101 [bug] poll() on the consumer inside on_revoke()" in output
    assert "KRB203 [advice]" in output  # listed, but only the bug fails the hook
    assert "clean.py" not in output.replace("- files were modified", "")


def test_check_hook_passes_on_advice_alone(tmp_path: Path) -> None:
    """The hook's --fail-on=bug: a file with only migration advice does not fail the commit."""
    from rebalance_lint.rule_table import BY_CODE

    (tmp_path / "listener.py").write_text(BY_CODE["KRB202"].invalid[0])
    hooks = {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}
    result = subprocess.run(
        [sys.executable, "-m", "rebalance_cli", "check", *hooks["rebalance-guard-check"]["args"],
         "listener.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "KRB202 [advice]" in result.stdout
