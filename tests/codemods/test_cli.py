"""``rebalance-guard migrate``: --check, --diff, -j, atomic writes, errors, and libcst.tool."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.migrate_command import FILES_PER_WORKER

from tests.codemods.examples import LEGACY, PROGRAMS, ROOT, run_cli

KAFKA_PY = LEGACY / "kafka_python_consumer.py"


def _tree(tmp_path: Path) -> dict[Path, bytes]:
    """The legacy programs, a refused shape, and a file without Kafka."""
    files = {tmp_path / name: (LEGACY / name).read_bytes() for name in PROGRAMS}
    files[tmp_path / "pkg" / "refused.py"] = (
        b"from kafka import KafkaConsumer\nmake().subscribe(['a'], listener=L())\n"
    )
    files[tmp_path / "pkg" / "plain.py"] = b"print('no client here')\n"
    for path, data in files.items():
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
    return files


def _expected(data: bytes) -> bytes:
    result = migrate_source(data)
    return data if result.new_source is None else result.new_source


def test_check_reports_pending_changes_and_writes_nothing(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    result = run_cli("migrate", "--check", str(tmp_path))
    assert result.returncode == 1, result.stderr
    for name in PROGRAMS:
        assert f"would migrate {tmp_path / name}" in result.stdout
    assert (
        f"{tmp_path / 'pkg' / 'refused.py'}:2: manual: the consumer is not a plain name"
        in result.stdout
    )
    assert all(path.read_bytes() == data for path, data in files.items())


def test_diff_prints_the_change_and_writes_nothing(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    result = run_cli("migrate", "--diff", str(tmp_path / "kafka_python_consumer.py"))
    assert result.returncode == 0, result.stderr
    assert (
        "-    consumer.subscribe([topic], listener=CommitOnRevoke(consumer, outfile))"
        in result.stdout
    )
    assert "+    set_rebalance_listener(consumer, CommitOnRevoke(outfile))" in result.stdout
    assert all(path.read_bytes() == data for path, data in files.items())


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_migrate_writes_what_migrate_source_computes_then_check_is_clean(
    tmp_path: Path, jobs: str
) -> None:
    files = _tree(tmp_path)
    # enough Kafka files for -j 2's two workers (FILES_PER_WORKER each), and no more
    copies = 0 if jobs == "1" else -(-2 * FILES_PER_WORKER // len(PROGRAMS))
    for copy in range(copies):
        for name in PROGRAMS:
            path = tmp_path / "fleet" / f"svc{copy}" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            files[path] = (LEGACY / name).read_bytes()
            path.write_bytes(files[path])
    (tmp_path / "kafka_python_consumer.py").chmod(0o750)
    result = run_cli("migrate", "-j", jobs, str(tmp_path))
    assert result.returncode == 0, result.stderr
    k = len(PROGRAMS)
    n = k * copies
    summary = f"{k + 2 + n} file(s): {k + n} migrated, 1 skipped without Kafka, 1 manual site(s)"
    assert summary in result.stderr
    for path, data in files.items():
        assert path.read_bytes() == _expected(data), path
    assert (tmp_path / "kafka_python_consumer.py").stat().st_mode & 0o777 == 0o750
    assert not [p for p in tmp_path.rglob("*") if ".tmp" in p.name], "temporary files left behind"
    again = run_cli("migrate", "--check", "-j", jobs, str(tmp_path))
    assert again.returncode == 0, again.stdout + again.stderr


def test_bad_files_and_bad_usage_get_clear_messages(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"import kafka\ndef (:\n")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"import kafka\nx = '\xff'\n")
    result = run_cli("migrate", str(tmp_path))
    assert result.returncode == 1
    assert f"{broken}: error: syntax_error:" in result.stderr
    assert f"{latin}: error: decode_error: cannot decode line 2" in result.stderr
    assert "Traceback" not in result.stderr
    missing = run_cli("migrate", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr
    jobs = run_cli("migrate", "-j", "0", str(tmp_path))
    assert jobs.returncode == 2 and "at least 1" in jobs.stderr
    both = run_cli("migrate", "--diff", "--check", str(tmp_path))
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_a_run_killed_midway_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    """SIGKILL the whole run (parent and workers) while it writes hundreds of files."""
    old = KAFKA_PY.read_bytes()
    new = _expected(old)
    paths = [tmp_path / f"service_{i:04d}.py" for i in range(200)]
    for path in paths:
        path.write_bytes(old)
    proc = subprocess.Popen(
        [sys.executable, "-m", "rebalance_cli", "migrate", "-j", "2", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    seen_new = 0
    while seen_new < 10:  # meanwhile, every read of every file must see old or new
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended too early"
        contents = [p.read_bytes() for p in paths]
        assert all(c in (old, new) for c in contents), "a reader saw a half-written file"
        seen_new = contents.count(new)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.2)  # let orphaned writes (if any) settle
    contents = [p.read_bytes() for p in paths]
    assert all(c in (old, new) for c in contents), "a file was left half-written"
    assert contents.count(new) > 0 and contents.count(old) > 0, "the kill did not land midway"


@pytest.mark.parametrize("how", ["external", "config"])
def test_runnable_through_libcst_tool(tmp_path: Path, how: str) -> None:
    work = tmp_path / "repo"
    work.mkdir()
    for name in PROGRAMS:
        shutil.copy(LEGACY / name, work / name)
    if how == "external":
        command = ["-x", "rebalance_codemods.commands.MigrateRebalanceListeners"]
    else:
        (work / ".libcst.codemod.yaml").write_text(
            "generated_code_marker: '@generated'\nformatter: []\nblacklist_patterns: []\n"
            "modules:\n  - rebalance_codemods\nrepo_root: .\n"
        )
        command = ["commands.MigrateRebalanceListeners"]
    result = subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", "--no-format", *command, "."],
        cwd=work, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    for name in PROGRAMS:
        assert (work / name).read_bytes() == _expected((LEGACY / name).read_bytes()), name
