"""Repository fixtures: cases that span files, checked together (``rebalance-guard check DIR``).

Each ``fixtures/repo_*`` directory is one repository; every file carries its expected
findings as trailing ``# KRBnnn: col`` comments, as the single-file fixtures do. Checked one
file at a time (flake8's view), a case that needs both halves says less, never more.
"""

from __future__ import annotations

import json
import os
import re
import sysconfig
from pathlib import Path

import pytest
from rebalance_lint import check_repository, check_source
from rebalance_lint.check_command import run

from tests.lint.expectations import FIXTURES, expected_findings

REPOSITORIES = sorted(p for p in FIXTURES.glob("repo_*") if p.is_dir())


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


@pytest.mark.parametrize("root", REPOSITORIES, ids=[p.name for p in REPOSITORIES])
def test_repository_fixture(root: Path) -> None:
    files = _files(root)
    assert len(files) >= 2
    reports = check_repository(files)
    assert set(reports) == set(files)
    missed_alone = 0
    for path, source in files.items():
        report = reports[path]
        assert report.status == "ok", (path, report.reason)
        actual = {(f.line, f.col, f.code) for f in report.findings}
        expected = expected_findings(source)
        assert sorted(actual - expected) == [], f"unexpected findings in {path}"
        assert sorted(expected - actual) == [], f"missing findings in {path}"
        for finding in report.findings:
            assert "\n" not in finding.message and "<client>" not in finding.message
        alone = {(f.line, f.col, f.code) for f in check_source(source, path).findings}
        assert alone <= actual, f"single-file mode says something repository mode does not: {path}"
        missed_alone += len(actual - alone)
    assert missed_alone, "this case does not need repository mode"


def test_check_directory_is_repository_mode(capsys: pytest.CaptureFixture[str]) -> None:
    root = FIXTURES / "repo_owner_elsewhere"
    assert run(["--output-format", "json", str(root)]) == 1
    data = json.loads(capsys.readouterr().out)
    reported = {
        (Path(f["path"]).relative_to(root).as_posix(), x["line"], x["code"])
        for f in data["files"]
        for x in f["findings"]
    }
    expected = {
        (path, line, code)
        for path, source in _files(root).items()
        for line, _col, code in expected_findings(source)
    }
    assert reported == expected
    via = [
        x["message"]
        for f in data["files"]
        for x in f["findings"]
        if "via self.worker.flush() at pipeline/worker.py:10" in x["message"]
    ]
    assert via, "a finding reached through another file's method names the call and the line"


def test_a_repository_never_raises() -> None:
    reports = check_repository(
        {
            "a.py": b"from kafka import KafkaConsumer\nfrom .b import X\nX(",
            "b.py": b"\xff\xfe not python",
            "c/__init__.py": b"from .. import a\nimport kafka\n",
        }
    )
    assert reports["a.py"].status == "syntax_error"
    assert reports["b.py"].skipped
    assert reports["c/__init__.py"].status == "ok"


#: An unresolved template placeholder in a message (``rebalance_guard.<client>.…``).
PLACEHOLDER = re.compile(r"<[a-z_]+>")
ALL_FIXTURES = sorted(FIXTURES.rglob("*.py"))


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=[p.name for p in ALL_FIXTURES])
def test_no_message_has_an_unresolved_placeholder(path: Path) -> None:
    for finding in check_source(path.read_bytes(), str(path)).findings:
        assert not PLACEHOLDER.search(finding.message), finding.message


def test_repository_mode_no_noise_over_the_standard_library_and_site_packages() -> None:
    """Each top-level package of site-packages (and the standard library) as one repository."""
    from tests.lint.test_no_noise import CLIENT_PACKAGES

    roots = {Path(sysconfig.get_paths()[key]) for key in ("stdlib", "purelib", "platlib")}
    repositories: dict[tuple[Path, str], dict[str, bytes]] = {}
    for root in sorted(roots):
        for directory, _dirs, names in os.walk(root):
            for name in names:
                if name.endswith(".py"):
                    path = Path(directory, name)
                    relative = path.relative_to(root)
                    try:
                        source = path.read_bytes()
                    except OSError:
                        continue
                    repositories.setdefault((root, relative.parts[0]), {})[relative.as_posix()] = (
                        source
                    )
    noise: list[str] = []
    crashed: list[str] = []
    for (_root, top), files in repositories.items():
        for path, report in check_repository(files).items():
            if report.status == "crashed":
                crashed.append(f"{path}: {report.reason}")
            if top not in CLIENT_PACKAGES and "rebalance" not in path:
                noise += [f"{path}:{f.line}: {f.code} {f.message}" for f in report.findings]
    assert crashed == []
    assert noise == []


def test_check_directory_reads_again_only_what_it_needs_and_says_the_same() -> None:
    """``check DIR`` keeps in memory only the files that mention Kafka and reads the others
    again when a Kafka module imports them: the same reports as the bytes given at once."""
    from rebalance_lint.check_runner import check_directory
    from rebalance_lint.screening import mentions_kafka

    without_kafka = 0
    for root in REPOSITORIES:
        files = _files(root)
        without_kafka += sum(not mentions_kafka(source) for source in files.values())
        reports = {p.relative_to(root).as_posix(): r for p, r in check_directory(root)}
        assert reports == check_repository(files), root.name
    assert without_kafka, "no fixture has a module that does not mention Kafka"
