"""The reading layer and source listing, without Spark: every bad file becomes a reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rebalance_scan.atomic_dir import MARKER, OutputError, atomic_directory
from rebalance_scan.partitioning import balance, group_repositories, partition_count
from rebalance_scan.reading import Unreadable, check_content, read_repo_file
from rebalance_scan.sources import FileRef, Repository, SourceError, list_files, resolve_sources

from tests.pipeline.conftest import EXAMPLE_FLEET
from tests.pipeline.helpers import add_bad_files


def test_each_bad_file_gets_a_status_and_a_reason(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    expected = add_bad_files(repo, outside)
    fixed = {p.removeprefix("repo/"): s for p, s in expected.items() if s and s != "ok"}
    for rel, status in fixed.items():
        outcome = read_repo_file(str(repo), rel, max_bytes=8192)
        assert isinstance(outcome, Unreadable), rel
        assert outcome.status == status and outcome.reason, (rel, outcome)
    escape = read_repo_file(str(repo), "bad/escape.py", 8192)
    assert isinstance(escape, Unreadable) and "outside the source tree" in escape.reason
    assert isinstance(read_repo_file(str(repo), "bad/syntax.py", 8192), bytes)


@pytest.mark.skipif(os.geteuid() != 0, reason="covered by the non-root branch below")
def test_chmod_000_as_root_is_read(tmp_path: Path) -> None:
    """root ignores file permissions, so an honest scan reads the file."""
    locked = tmp_path / "locked.py"
    locked.write_bytes(b"x = 1\n")
    locked.chmod(0)
    assert read_repo_file(str(tmp_path), "locked.py", 100) == b"x = 1\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_chmod_000_is_unreadable(tmp_path: Path) -> None:
    locked = tmp_path / "locked.py"
    locked.write_bytes(b"x = 1\n")
    locked.chmod(0)
    outcome = read_repo_file(str(tmp_path), "locked.py", 100)
    assert isinstance(outcome, Unreadable) and outcome.status == "unreadable"
    assert "Permission" in outcome.reason


@pytest.mark.skipif(os.geteuid() == 0, reason="root can list a chmod 000 directory")
def test_unlistable_directory_is_a_row(tmp_path: Path) -> None:
    (tmp_path / "closed").mkdir()
    (tmp_path / "closed" / "x.py").write_text("x = 1\n")
    (tmp_path / "closed").chmod(0)
    try:
        listed = [f.path for f in list_files(Repository("r", str(tmp_path)))]
        assert listed == ["closed"]
        outcome = read_repo_file(str(tmp_path), "closed", 100)
        assert isinstance(outcome, Unreadable) and outcome.status == "unreadable"
    finally:
        (tmp_path / "closed").chmod(0o755)


def test_vanished_file_and_inside_symlink(tmp_path: Path) -> None:
    outcome = read_repo_file(str(tmp_path), "gone.py", 100)
    assert isinstance(outcome, Unreadable) and outcome.status == "unreadable"
    (tmp_path / "real.py").write_bytes(b"x = 1\n")
    os.symlink("real.py", tmp_path / "alias.py")
    alias = read_repo_file(str(tmp_path), "alias.py", 100)
    assert isinstance(alias, Unreadable) and alias.status == "symlink"


def test_content_checks() -> None:
    assert check_content(b"x = 1\n", 10) is None
    assert check_content(None, 10) == Unreadable("unreadable", "no content (null)")
    big = check_content(b"x" * 11, 10)
    assert big is not None and big.status == "too_large"
    binary = check_content(b"a\x00b", 10)
    assert binary is not None and binary.status == "binary"


def test_sources_resolve_repositories_fleets_and_datasets(tmp_path: Path) -> None:
    repos, datasets = resolve_sources(
        [str(EXAMPLE_FLEET / "docs-site"), "s3a://bucket/corpus.parquet"], [str(EXAMPLE_FLEET)]
    )
    assert sorted(r.name for r in repos) == sorted(p.name for p in EXAMPLE_FLEET.iterdir())
    for name in ("a", "b"):
        (tmp_path / name / "same").mkdir(parents=True)
    clash, _ = resolve_sources([str(tmp_path / "a" / "same"), str(tmp_path / "b" / "same")])
    assert len({r.name for r in clash}) == 2
    assert [(d.path, d.format) for d in datasets] == [("s3a://bucket/corpus.parquet", "parquet")]
    with pytest.raises(SourceError):
        resolve_sources([str(tmp_path / "nope.json")])
    with pytest.raises(SourceError):
        (tmp_path / "empty").mkdir()
        resolve_sources([], [str(tmp_path / "empty")])  # a fleet without repositories


def test_listing_skips_vcs_and_caches_and_reports_symlinked_dirs(tmp_path: Path) -> None:
    for rel in ("a.py", "pkg/b.py", ".git/hook.py", "pkg/__pycache__/c.py", "notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    os.symlink("/usr", tmp_path / "vendor")
    listed = sorted(f.path for f in list_files(Repository("r", str(tmp_path))))
    assert listed == ["a.py", "pkg/b.py", "vendor"]


def test_partitions_are_balanced_by_size_with_each_repository_whole() -> None:
    sizes = {"big": [900], "mid": [500], "small": [400], "many": [1] * 9}
    files = [
        FileRef(repo, f"/{repo}", f"f{i}.py", size)
        for repo, repo_sizes in sizes.items()
        for i, size in enumerate(repo_sizes)
    ]
    repos = group_repositories(files)
    assert [r.repo for r in repos] == list(sizes)  # listing order
    assert repos[3].paths == tuple(f"f{i}.py" for i in range(9))
    buckets = balance(repos, 2)
    loads = sorted(sum(r.weight for r in bucket) for bucket in buckets)
    assert loads[1] - loads[0] <= max(r.weight for r in repos)  # longest-first's bound
    assert [[r.repo for r in b] for b in buckets] == [["many"], ["big", "mid", "small"]]
    assert sorted(r.repo for b in buckets for r in b) == sorted(sizes)  # each repository once
    assert len(balance(repos, 10)) == 4  # never more tasks than repositories
    assert partition_count(0, 2) == 1 and partition_count(3, 2) == 3
    assert partition_count(100_000, 2) == 500
    # without LibCST rewrites (no --diffs) fewer, larger tasks: each task has a fixed cost
    assert partition_count(100_000, 2, rewrites=False) == 100
    assert partition_count(3_599, 2, rewrites=False) == 8
    assert partition_count(3, 2, rewrites=False) == 3


def test_failed_write_leaves_the_previous_outputs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with atomic_directory(out) as staging:
        (staging / MARKER).write_text("{}")
        (staging / "findings.parquet").write_text("old")
    with pytest.raises(RuntimeError), atomic_directory(out) as staging:
        (staging / "findings.parquet").write_text("half")
        raise RuntimeError("executor lost")
    assert (out / "findings.parquet").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    with atomic_directory(out) as staging:
        (staging / MARKER).write_text("{}")
    assert sorted(p.name for p in out.iterdir()) == [MARKER]
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("years of work")
    with pytest.raises(OutputError), atomic_directory(tmp_path / "mine"):
        pass
    assert (tmp_path / "mine" / "thesis.tex").exists()
