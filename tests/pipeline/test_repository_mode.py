"""The scan checks each repository as one, as ``rebalance-guard check DIR`` does (issue 11 item 3).

The repositories are the multi-file lint fixtures (``tests/lint/fixtures/repo_*``): a listener
class in one module registered in another, callbacks imported from elsewhere, an owner of the
consumer whose method commits in a third module. Checked one file at a time, as the scan did
before, each says less; the scan must say exactly what ``check`` says on the same directory.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rebalance_lint import check_repository, check_source
from rebalance_scan.executor import RepositoryFiles, scan_repository
from rebalance_scan.reading import ScanOptions, Unreadable

from tests.pipeline.helpers import KAFKA_HEADER, add_bad_files, finding_keys, run_scan, statuses

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parents[2]
REPO_FIXTURES = sorted(p for p in (ROOT / "tests" / "lint" / "fixtures").glob("repo_*"))
Key = tuple[str, str, int, int, str, str, bool]


def _fleet(target: Path) -> Path:
    """The repository fixtures, each a repository of one fleet."""
    for repo in REPO_FIXTURES:
        shutil.copytree(repo, target / repo.name)
    return target


def _check(repo: Path) -> dict[str, Any]:
    """``rebalance-guard check --format json REPO``, the command a developer runs."""
    done = subprocess.run(
        [sys.executable, "-m", "rebalance_cli", "check", "--format", "json", str(repo)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _check_findings(fleet: Path) -> list[Key]:
    keys: list[Key] = []
    for repo in sorted(p for p in fleet.iterdir() if p.is_dir()):
        for file in _check(repo)["files"]:
            path = Path(file["path"]).relative_to(repo).as_posix()
            keys.extend(
                (repo.name, path, f["line"], f["col"], f["code"], f["message"], f["fixable"])
                for f in file["findings"]
            )
    return sorted(keys)


def _single_file_findings(fleet: Path) -> list[Key]:
    """What the scan reported before repository mode: ``check_source`` on each file alone."""
    keys: list[Key] = []
    for file in sorted(fleet.rglob("*.py")):
        if not file.is_file() or file.is_symlink():
            continue
        repo, *parts = file.relative_to(fleet).parts
        path = "/".join(parts)
        report = check_source(file.read_bytes(), path)
        keys.extend(
            (repo, path, f.line, f.col, f.code, f.message, f.fixable) for f in report.findings
        )
    return sorted(keys)


def _findings(result: Any) -> list[Key]:
    return finding_keys(pq.read_table(result.out / "findings.parquet").to_pylist())


@pytest.mark.spark
def test_scan_findings_are_check_dir_findings_with_bad_files(
    spark: SparkSession, tmp_path: Path
) -> None:
    fleet = _fleet(tmp_path / "fleet")
    outside = tmp_path / "outside"
    outside.mkdir()
    # every kind of bad input inside the repository whose listener imports its owner's module
    expected_bad = add_bad_files(fleet / "repo_owner_elsewhere", outside)
    result = run_scan(spark, tmp_path / "out", fleets=[str(fleet)], max_bytes=8 * 1024)

    scanned = _findings(result)
    assert scanned == _check_findings(fleet)
    across = set(scanned) - set(_single_file_findings(fleet))
    assert {repo for repo, *_ in across} == {p.name for p in REPO_FIXTURES}, (
        "every fixture repository has findings only repository mode can make"
    )
    # e.g. the listener class in one module, registered in another
    assert any(k[:2] == ("repo_listener_elsewhere", "app/listeners.py") for k in across)

    by_path = {f"{r}/{p}": s for (r, p), s in statuses(result).items()}
    for path, status in expected_bad.items():
        assert by_path[path] != "ok" if status is None else by_path[path] == status, path
    good = {p: s for p, s in by_path.items() if "/bad/" not in p}
    assert set(good.values()) == {"ok"}


@pytest.mark.spark
def test_datasets_group_rows_by_repository_across_batches_and_datasets(
    spark: SparkSession, tmp_path: Path
) -> None:
    """Dataset rows: a repository split between two datasets, its rows over several Arrow
    batches (64 rows each), is still checked as one repository."""
    fleet = _fleet(tmp_path / "fleet")
    filler = fleet / "repo_listener_elsewhere" / "app" / "filler"
    filler.mkdir()
    for i in range(150):  # more rows than one Arrow batch holds
        (filler / f"m{i:03}.py").write_text(f"VALUE = {i}\n")
    rows = [
        {"repo": repo, "path": "/".join(parts), "content": file.read_bytes()}
        for file in sorted(fleet.rglob("*.py"))
        for repo, *parts in [file.relative_to(fleet).parts]
    ]
    # the listener class module in one dataset, its registration in the other
    split = {"app/listeners.py": 0, "app/main.py": 1}
    first = [r for i, r in enumerate(rows) if split.get(r["path"], i % 2) == 0]
    second = [r for i, r in enumerate(rows) if split.get(r["path"], i % 2) == 1]
    pq.write_table(pa.Table.from_pylist(first), tmp_path / "first.parquet")
    with open(tmp_path / "second.jsonl", "w", encoding="utf-8") as handle:
        for row in second:
            handle.write(json.dumps({**row, "content": row["content"].decode()}) + "\n")
    sources = [str(tmp_path / "first.parquet"), str(tmp_path / "second.jsonl")]
    from_datasets = run_scan(spark, tmp_path / "out", sources=sources)
    from_directories = run_scan(spark, tmp_path / "out2", fleets=[str(fleet)])
    assert _findings(from_datasets) == _findings(from_directories) == _check_findings(fleet)
    assert statuses(from_datasets) == statuses(from_directories)


@pytest.mark.spark
def test_a_repository_over_the_memory_budget_spills_and_finds_the_same(
    spark: SparkSession, tmp_path: Path
) -> None:
    """With a 1-byte budget every file without Kafka waits on disk (repo_owner_elsewhere's
    owner classes are such files, imported by its listener): the findings do not change."""
    fleet = _fleet(tmp_path / "fleet")
    tight = run_scan(spark, tmp_path / "out", fleets=[str(fleet)], memory_bytes=1)
    assert _findings(tight) == _check_findings(fleet)


def test_repository_files_keep_kafka_in_memory_and_spill_the_rest() -> None:
    files = RepositoryFiles(memory_bytes=10)
    files.add("small.py", b"x = 1\n")
    files.add("owner.py", b"class Worker:\n    pass\n")  # over the budget, no Kafka
    files.add("listener.py", KAFKA_HEADER)  # over the budget, but Kafka
    assert files.spilled == 1
    assert list(files) == ["small.py", "owner.py", "listener.py"]
    assert files["owner.py"] == b"class Worker:\n    pass\n"
    assert files["listener.py"] == KAFKA_HEADER and "missing.py" not in files
    with pytest.raises(KeyError):
        files.add("small.py", b"")
    files.close()


def test_bad_entries_are_rows_and_the_rest_is_one_repository() -> None:
    root = ROOT / "tests" / "lint" / "fixtures" / "repo_listener_elsewhere"
    sources = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    bad: list[tuple[str, bytes | Unreadable, int]] = [
        ("app/broken.py", KAFKA_HEADER + b"def f(:\n", 40),
        ("app/gone.py", Unreadable("unreadable", "PermissionError: denied"), 0),
        ("app/main.py", b"import kafka\n", 13),  # the same path again: checked on its own
    ]
    entries = [(path, source, len(source)) for path, source in sources.items()] + bad
    rows = list(scan_repository("r", iter(entries), ScanOptions(dry_run=False)))
    assert sorted(r["path"] for r in rows) == sorted(path for path, _, _ in entries)
    by_status = {(r["path"], r["status"]): r for r in rows}
    assert by_status[("app/gone.py", "unreadable")]["reason"] == "PermissionError: denied"
    assert ("app/broken.py", "syntax_error") in by_status
    checked = {r["path"]: r for r in rows[: len(rows) - 1] if r["status"] == "ok"}
    for path, report in check_repository(sources).items():
        assert [(f["line"], f["code"], f["message"]) for f in checked[path]["findings"]] == [
            (f.line, f.code, f.message) for f in sorted(report.findings)
        ], path
    assert checked["app/listeners.py"]["findings"], "the listener registered in main.py"
    assert rows[-1]["path"] == "app/main.py" and rows[-1]["findings"] == []


@pytest.mark.parametrize("diffs", [False, True])
def test_dry_run_migrates_exactly_the_fixable_sites_across_modules(diffs: bool) -> None:
    """The scan's dry-run is ``migrate DIR``'s: a listener class in one module registered in
    two others is fixable (check DIR) and migrated (dry-run) in all three files; ``migrate
    FILE`` alone would refuse the class, so a per-file dry-run fails this."""
    from rebalance_codemods.repository import migrate_repository

    root = ROOT / "tests" / "codemods" / "fixtures" / "repos" / "registered_in_two" / "before"
    sources = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    entries = [(path, source, len(source)) for path, source in sources.items()]
    rows = {r["path"]: r for r in scan_repository("r", iter(entries), ScanOptions(diffs=diffs))}
    expected = migrate_repository(sources, plan_only=not diffs).results
    class_file = "app/listeners.py"
    class_finding = [f for f in rows[class_file]["findings"] if f["code"] == "KRB202"]
    assert class_finding and all(f["fixable"] for f in class_finding)
    for path, row in rows.items():
        fixable = sum(f["fixable"] for f in row["findings"] if f["code"].startswith("KRB2"))
        result = expected[path]
        if not any(f["code"].startswith("KRB2") for f in row["findings"]):
            assert row["migration_status"] == "not_needed" and result.migrated_sites == 0
            continue
        assert (row["migration_status"], row["migrated_sites"]) == (
            result.status,
            result.migrated_sites,
        ), path
        assert row["manual"] == [{"line": m.line, "reason": m.reason} for m in result.manual]
        assert (row["migrated_sites"] > 0) == (fixable > 0), path  # a class counts once
    assert rows[class_file]["migrated_sites"] > 0
    if diffs:
        assert b"RebalanceListener" in rows[class_file]["diff"]


def test_a_repository_rooted_at_its_package_resolves_absolute_imports(tmp_path: Path) -> None:
    """A scanned root that is itself a package (``app/`` with ``__init__.py``): the rules see
    its files below the package chain, as ``check app/`` does. Here ``app/listeners.py`` and
    ``app/legacy/listeners.py`` both define ``CommitOnRevoke``; ``billing.py`` imports
    ``from app.listeners import CommitOnRevoke``. Named without the chain, the scan's dry-run
    migrated the legacy class (never created) and refused the registered one; rows keep the
    paths relative to the root."""
    from rebalance_codemods.repository import migrate_repository
    from rebalance_scan.executor import scan_checkouts

    fixture = ROOT / "tests" / "codemods" / "fixtures" / "repos" / "registered_in_two" / "before"
    package = tmp_path / "app"
    shutil.copytree(fixture / "app", package)
    (package / "legacy").mkdir()
    (package / "legacy" / "__init__.py").write_bytes(b"")
    shutil.copy(package / "listeners.py", package / "legacy" / "listeners.py")
    paths = sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py"))
    batches = scan_checkouts([("app", str(package), paths)], ScanOptions(diffs=False))
    rows = {r["path"]: r for batch in batches for r in batch.to_pylist()}
    assert sorted(rows) == paths
    named = {f"app/{path}": (package / path).read_bytes() for path in paths}
    expected = check_repository(named)
    for path, row in rows.items():
        got = [(f["line"], f["code"], f["fixable"]) for f in row["findings"]]
        want = sorted(expected[f"app/{path}"].findings)
        assert got == [(f.line, f.code, f.fixable) for f in want], path
    krb202 = {
        p: [f["fixable"] for f in r["findings"] if f["code"] == "KRB202"] for p, r in rows.items()
    }
    assert krb202["listeners.py"] == [True] and krb202["legacy/listeners.py"] == [False]
    migrated = migrate_repository(named, plan_only=True).results
    assert rows["listeners.py"]["migrated_sites"] == migrated["app/listeners.py"].migrated_sites > 0
    assert rows["legacy/listeners.py"]["migrated_sites"] == 0
