"""``rebalance-guard check --fix`` and the fixes ``migrate`` applies, through the real CLI.

Exit codes as ruff's: 0 when nothing is left (fixed or not), 1 when findings remain or a file
could not be checked or fixed, 2 for usage errors. Files are replaced atomically (a new inode,
the old permission bits, no temporary file left), a file that does not parse is never touched,
and each finding left alone is named with its reason on stderr.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from rebalance_codemods.fixing import apply_fixes
from rebalance_lint.fixing import plan_file

from tests.codemods.examples import run_cli

FIXES = Path(__file__).parent / "fixtures" / "fixes"
BROKEN = b"from kafka import KafkaConsumer\ndef broken(:\n"


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "svc").mkdir(parents=True)
    for name in ("kafka_python_view.py", "refused_krb104.py", "confluent_callbacks.py"):
        shutil.copy(FIXES / name, root / "svc" / name)
    (root / "svc" / "broken.py").write_bytes(BROKEN)
    (root / "svc" / "plain.py").write_text("print('no Kafka here')\n")
    return root


def test_check_fix_rewrites_atomically_and_reports_what_remains(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    svc = root / "svc"
    view = svc / "kafka_python_view.py"
    view.chmod(0o640)
    inode = view.stat().st_ino
    refused = (svc / "refused_krb104.py").read_bytes()

    result = run_cli("check", "--fix", str(root))
    assert result.returncode == 1, result.stdout + result.stderr  # refusals and broken.py remain
    assert view.read_bytes() == (FIXES / "fixed" / "kafka_python_view.py").read_bytes()
    assert (svc / "confluent_callbacks.py").read_bytes() == (
        FIXES / "fixed" / "confluent_callbacks.py"
    ).read_bytes()
    assert view.stat().st_ino != inode, "replaced, not written in place"
    assert view.stat().st_mode & 0o777 == 0o640
    assert not [p for p in root.rglob("*") if ".tmp" in p.name], "temporary files left behind"
    # a file that does not parse is untouched, and check says why, as without --fix
    assert (svc / "broken.py").read_bytes() == BROKEN
    assert f"{svc / 'broken.py'}: syntax_error: syntax error at line 2" in result.stdout
    # what has no safe fix stays, is still reported, and --fix says why at its line
    assert (svc / "refused_krb104.py").read_bytes() == refused
    assert f"{svc / 'refused_krb104.py'}:16:9: KRB104 " in result.stdout
    assert (
        f"{svc / 'refused_krb104.py'}:16: KRB104 not fixed: on_partitions_revoked() does more "
        "than commit (self.offsets.clear())"
    ) in result.stderr
    assert "fixed 13 finding(s) in 2 file(s); 0 file(s) could not be fixed" in result.stderr
    assert f"{view}:" not in result.stdout, "everything in it was fixed"
    assert "Traceback" not in result.stderr

    again = run_cli("check", "--fix", str(root))
    assert again.returncode == 1
    assert "fixed 0 finding(s) in 0 file(s)" in again.stderr
    assert again.stdout == result.stdout, "a second run changes nothing"


def test_exit_zero_when_everything_is_fixed_and_check_alone_writes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "listener.py"
    shutil.copy(FIXES / "kafka_python_view.py", path)
    before = path.read_bytes()
    plain = run_cli("check", str(path))
    assert plain.returncode == 1 and "(fixable: rebalance-guard migrate)" in plain.stdout
    assert path.read_bytes() == before, "check without --fix never writes"
    fixed = run_cli("check", "--fix", str(path))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert fixed.stdout == ""
    # 3 KRB103 + 2 KRB104 where commits fail on loss (explicit offsets, or a lost handler of
    # its own), and the KRB103 of the two bare commits on the view, which need no lost handler
    assert "fixed 7 finding(s) in 1 file(s)" in fixed.stderr
    assert run_cli("check", str(path)).returncode == 0


def test_select_and_noqa_decide_what_is_fixed(tmp_path: Path) -> None:
    path = tmp_path / "listener.py"
    shutil.copy(FIXES / "kafka_python_view.py", path)
    result = run_cli("check", "--fix", "--select", "KRB104", "--output-format", "json", str(path))
    assert result.returncode == 0, result.stdout + result.stderr  # nothing selected is left
    data = json.loads(result.stdout)
    assert data["summary"]["fixed"] == 2 and data["summary"]["files_fixed"] == 1
    text = path.read_text()
    # two added, one already there; none for the bare commits on the view (no KRB104)
    assert text.count("def on_partitions_lost(") == 3
    assert "consumer.commit_async(" in text, (
        "KRB103 was not selected: its commits stay asynchronous"
    )
    rest = run_cli("check", "--select", "KRB103", str(path))
    assert rest.returncode == 1 and rest.stdout.count(" KRB103 ") == 5
    # now the revocations no longer run on loss; their KRB103 fixes stand on their own
    assert run_cli("check", "--fix", str(path)).returncode == 0
    assert "consumer.commit_async(" not in path.read_text()


def test_fix_needs_the_console_script() -> None:
    from rebalance_lint.check_command import run

    assert run(["--fix", str(FIXES / "kafka_python_view.py")]) == 2


def test_a_file_changed_since_planning_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "listener.py"
    shutil.copy(FIXES / "kafka_python_view.py", path)
    planned = plan_file(path)
    assert planned is not None and planned.plan.edits
    path.write_bytes(planned.source + b"# edited meanwhile\n")
    new, problem = apply_fixes(path, planned.source, planned.plan)
    assert problem == "the file changed while it was being fixed; run again"
    assert new == planned.source
    assert path.read_bytes() == planned.source + b"# edited meanwhile\n"


def test_migrate_applies_the_fixes_too(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    svc = root / "svc"
    (svc / "broken.py").unlink()
    view = svc / "kafka_python_view.py"
    pending = run_cli("migrate", "--check", str(root))
    assert pending.returncode == 1, pending.stdout + pending.stderr
    assert f"would migrate {view} (0 site(s), 7 fix(es))" in pending.stdout
    assert view.read_bytes() == (FIXES / "kafka_python_view.py").read_bytes()

    done = run_cli("migrate", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    assert view.read_bytes() == (FIXES / "fixed" / "kafka_python_view.py").read_bytes()
    assert f"{svc / 'refused_krb104.py'}:" in done.stdout and "KRB104 not fixed:" in done.stdout
    assert "KRB103/KRB104 finding(s) fixed" in done.stderr
    clean = run_cli("migrate", "--check", str(root))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert not [p for p in root.rglob("*") if ".tmp" in p.name]
    assert os.access(view, os.R_OK)
