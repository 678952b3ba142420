"""``rebalance-guard check``: text and JSON output, exit codes, directories, symlinks, bad files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint.expectations import FIXTURES

BAD = b"""\
from confluent_kafka import Consumer

def on_revoke(consumer, partitions):
    consumer.poll(0)

Consumer({}).subscribe(["t"], on_revoke=on_revoke)
"""


def check(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rebalance_cli", "check", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "bad.py").write_bytes(BAD)
    (root / "pkg" / "sub" / "clean.py").write_text("import kafka\nprint(kafka)\n")
    (root / "pkg" / "plain.py").write_text("print('no client here')\n")
    (root / "pkg" / "broken.py").write_text("import kafka\ndef f(:\n")
    (root / "pkg" / "latin.py").write_bytes(b"import kafka\nname = '\xe9'\n")
    (root / ".git").mkdir()
    (root / ".git" / "hook.py").write_bytes(BAD)  # never searched
    return root


def test_text_output_and_exit_code(tree: Path) -> None:
    result = check(tree)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    bad = tree / "pkg" / "bad.py"
    assert f"{bad}:4:5: KRB101 [bug] poll() on the consumer inside on_revoke()" in result.stdout
    assert any(line.startswith(f"{bad}:6:") and " KRB203 " in line for line in lines)
    assert f"{tree / 'pkg' / 'broken.py'}: syntax_error: syntax error at line 2" in result.stdout
    assert f"{tree / 'pkg' / 'latin.py'}: decode_error: cannot decode line 2" in result.stdout
    assert ".git" not in result.stdout
    assert "Traceback" not in result.stderr


def test_json_output(tree: Path) -> None:
    result = check("--format", "json", tree)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["summary"] == {
        "files_checked": 5,
        "files_skipped_no_kafka": 1,
        "findings": 2,
        "findings_bug": 1,
        "findings_risk": 0,
        "findings_advice": 1,
        "findings_failing": 2,
        "files_not_checked": 2,
    }
    by_path = {Path(f["path"]).name: f for f in data["files"]}
    assert [f["code"] for f in by_path["bad.py"]["findings"]] == ["KRB101", "KRB203"]
    assert [f["kind"] for f in by_path["bad.py"]["findings"]] == ["bug", "advice"]
    # not fixable: the consumer is not a plain name, so migrate cannot name it twice
    assert by_path["bad.py"]["findings"][1]["fixable"] is False
    assert by_path["broken.py"]["status"] == "syntax_error"
    assert "clean.py" not in by_path and "plain.py" not in by_path


def test_fail_on_sets_which_kinds_fail_the_run(tmp_path: Path) -> None:
    """Every finding is reported whatever --fail-on says; only the exit status follows it."""
    from rebalance_lint.rule_table import BY_CODE

    (tmp_path / "advice.py").write_text(BY_CODE["KRB202"].invalid[0])  # advice only
    (tmp_path / "risk.py").write_text(BY_CODE["KRB104"].invalid[0])  # a risk
    (tmp_path / "bug.py").write_text(BY_CODE["KRB101"].invalid[0])  # a bug (and advice)
    advice, risk, bug = tmp_path / "advice.py", tmp_path / "risk.py", tmp_path / "bug.py"
    assert check(advice).returncode == 1  # default: any finding fails, as before
    assert check("--fail-on", "advice", advice).returncode == 1
    assert check("--fail-on", "risk", advice).returncode == 0
    assert check("--fail-on", "risk", risk).returncode == 1
    assert check("--fail-on=bug", risk).returncode == 0
    passed = check("--fail-on=bug", advice, risk)
    assert "KRB202" in passed.stdout and "KRB104" in passed.stdout  # still reported
    assert "0 at or above --fail-on bug" in passed.stderr
    failed = check("--fail-on", "bugs", bug, "--output-format", "json")
    assert failed.returncode == 1
    summary = json.loads(failed.stdout)["summary"]
    assert summary["findings_failing"] == summary["findings_bug"] == 1
    assert summary["findings"] > 1
    assert check("--fail-on", "warning", bug).returncode == 2
    # files that could not be checked still fail the run, whatever the threshold
    (tmp_path / "broken.py").write_text("import kafka\ndef (:\n")
    assert check("--fail-on", "bug", tmp_path / "broken.py").returncode == 1


def test_select_and_ignore_work_like_flake8(tree: Path) -> None:
    bugs_only = check("--select", "KRB1", tree)
    assert "KRB101" in bugs_only.stdout and "KRB203" not in bugs_only.stdout
    advice_only = check("--select=KRB2", "--ignore=KRB201", tree)
    assert "KRB203" in advice_only.stdout and "KRB101" not in advice_only.stdout
    longest_prefix_wins = check("--ignore=KRB1", "--select=KRB101", tree / "pkg" / "bad.py")
    assert "KRB101" in longest_prefix_wins.stdout
    assert check("--select=E501", tree).returncode == 2


def test_clean_tree_exits_zero(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import kafka\n")
    result = check(tmp_path)
    assert result.returncode == 0 and result.stdout == ""


def test_usage_error_exits_two() -> None:
    assert check().returncode == 2
    assert check("--format", "xml", ".").returncode == 2


def test_missing_and_unreadable_paths_are_reported_per_file(tree: Path) -> None:
    (tree / "pkg" / "dangling.py").symlink_to(tree / "pkg" / "gone.py")
    result = check(tree / "nope.py", tree)
    assert result.returncode == 1
    assert f"{tree / 'nope.py'}: unreadable: no such file or directory" in result.stdout
    assert f"{tree / 'pkg' / 'dangling.py'}: unreadable:" in result.stdout
    assert "KRB101" in result.stdout  # the other files were still checked


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied(tree: Path) -> None:
    locked = tree / "pkg" / "locked.py"
    locked.write_bytes(BAD)
    locked.chmod(0)
    try:
        result = check(tree)
    finally:
        locked.chmod(0o644)
    assert f"{locked}: unreadable: Permission denied" in result.stdout


def test_symlinks_are_not_followed_out_of_the_tree(tmp_path: Path, tree: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_bytes(BAD)
    (tree / "pkg" / "link.py").symlink_to(outside / "secret.py")
    (tree / "pkg" / "linkdir").symlink_to(outside, target_is_directory=True)
    (tree / "pkg" / "inner.py").symlink_to(tree / "pkg" / "bad.py")  # inside: same file once
    result = check("--format", "json", tree)
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert not any("secret" in p or "linkdir" in p or "link.py" in p for p in paths)
    assert sum(p.endswith(("bad.py", "inner.py")) for p in paths) == 1


def test_console_script_is_installed() -> None:
    exe = shutil.which("rebalance-guard", path=str(Path(sys.executable).parent))
    assert exe is not None
    result = subprocess.run(
        [exe, "check", str(FIXTURES / "krb101_reentrant.py")], capture_output=True, text=True
    )
    assert result.returncode == 1 and "KRB101" in result.stdout
