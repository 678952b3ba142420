"""The shared reading layer: bad files are an outcome with a reason, never a hang or a crash.

`check`, `migrate` and the scan all read through rebalance_lint.reading, so a FIFO named
`.py` (which a plain read would block on forever) or a symlink out of the tree behaves the
same in all three.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rebalance_lint.reading import Unreadable, iter_python_files, read_source

LEGACY = b"""from kafka import ConsumerRebalanceListener

class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        self.consumer.commit()

    def on_partitions_assigned(self, assigned):
        pass
"""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from rebalance_cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    outcome = read_source(fifo)
    assert isinstance(outcome, Unreadable) and outcome.status == "not_regular"


def test_check_and_migrate_report_a_fifo_and_go_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "listener.py").write_bytes(LEGACY)
    check = _cli("check", str(tmp_path), cwd=tmp_path)  # the timeout fails the test on a hang
    assert "pipe.py: not_regular" in check.stdout
    assert "KRB201" in check.stdout
    migrate = _cli("migrate", "--check", str(tmp_path), cwd=tmp_path)
    assert migrate.returncode == 1
    assert "pipe.py" in migrate.stdout + migrate.stderr


def test_size_limit_is_checked_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * 100)
    outcome = read_source(big, max_bytes=64)
    assert isinstance(outcome, Unreadable) and outcome.status == "too_large"
    assert read_source(big, max_bytes=10_000) == b"x = 1\n" * 100


def test_walk_never_leaves_the_tree_through_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.py").write_bytes(LEGACY)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "link.py").symlink_to(outside / "victim.py")
    (repo / "linkdir").symlink_to(outside)
    assert list(iter_python_files(repo)) == []
    migrate = _cli("migrate", str(repo), cwd=tmp_path)
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr
    assert (outside / "victim.py").read_bytes() == LEGACY  # never rewritten through the link


def test_a_file_is_read_whole_in_one_read_or_more(tmp_path: Path) -> None:
    content = b"".join(b"x = %d\n" % i for i in range(40_000))  # over 64 KiB
    path = tmp_path / "big.py"
    path.write_bytes(content)
    assert read_source(path) == content
    assert read_source(path, max_bytes=len(content)) == content
    limited = read_source(path, max_bytes=len(content) - 1)
    assert isinstance(limited, Unreadable) and limited.status == "too_large"
