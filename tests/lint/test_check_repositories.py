"""``rebalance-guard check DIR`` where DIR holds several repositories (issue 26 item 3).

A directory of clones side by side (in no project itself) is split into its repositories,
each checked as if given alone, in worker processes when there are several: peak memory
follows the largest repository, not the whole tree, and the output is the one of each
repository given on its own, in the order a walk of DIR finds the files. Inside a project
(a monorepo), a directory stays one repository: its subprojects import each other.
"""

from __future__ import annotations

import ast
import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
from rebalance_codemods.migrate_command import run as migrate
from rebalance_lint.analysis.imports import ImportMap
from rebalance_lint.analysis.migration_facts import bindings_of, facts_shared, file_facts
from rebalance_lint.analysis.walk import LEAVES, breadth_first
from rebalance_lint.check_command import run
from rebalance_lint.check_runner import check_directory, check_given, check_paths, tasks_of
from rebalance_lint.reading import iter_python_files, repositories_in
from rebalance_lint.report import FileReport, Finding

from tests.lint.expectations import FIXTURES

ELSEWHERE = FIXTURES / "repo_listener_elsewhere"


@pytest.fixture
def clones(tmp_path: Path) -> Path:
    """``clones/``: ``one`` (a module of listener classes) and ``two`` (a module registering
    classes of those names through ``from app.listeners import ...``, a module it does not
    have), each with a ``pyproject.toml``; ``three`` a copy of another fixture repository (a
    ``.git``); a loose script; a plain directory (part of no repository)."""
    root = tmp_path / "clones"
    root.mkdir()
    for name, keep in (("one", {"listeners.py"}), ("two", {"__init__.py", "main.py"})):
        shutil.copytree(ELSEWHERE, root / name, ignore=_keeping(keep))
        (root / name / "pyproject.toml").write_text(f"[project]\nname = '{name}'\n")
    shutil.copytree(FIXTURES / "repo_callbacks_elsewhere", root / "three")
    (root / "three" / ".git").mkdir()
    shutil.copy(FIXTURES / "krb103_async_commit.py", root / "loose.py")
    shutil.copytree(FIXTURES / "repo_owner_elsewhere", root / "scripts")
    assert not any(p.name in {".git", "pyproject.toml"} for p in tmp_path.parents)
    return root


def _keeping(names: set[str]):  # type: ignore[no-untyped-def]
    def ignore(directory: str, entries: list[str]) -> list[str]:
        return [e for e in entries if e.endswith(".py") and e not in names]

    return ignore


def test_a_directory_of_repositories_is_checked_as_each_repository_alone(clones: Path) -> None:
    assert repositories_in(clones) == [clones / "one", clones / "three", clones / "two"]
    assert [len(named or ()) for _, named in tasks_of(clones)] == [1, 2, 2, 4]  # + the rest
    checked = check_given(clones)
    assert [path for path, _ in checked] == list(iter_python_files(clones))
    alone = {
        path: report
        for given in (clones / "one", clones / "two", clones / "three")
        for path, report in check_given(given)
    }
    rest = dict(check_directory(clones))  # the directory as ONE repository
    assert dict(checked) == {path: alone.get(path, rest[path]) for path, _ in checked}
    # As one repository, two's ``from app.listeners import CommitOnRevoke`` resolved into
    # the other clone (one/app/listeners.py), whose class then looked registered and
    # fixable; as the clones they are, two imports a module it does not have.
    listeners = clones / "one" / "app" / "listeners.py"
    assert _codes(dict(checked)[listeners]) == {"KRB202"}
    assert _codes(rest[listeners]) == {"KRB201", "KRB202", "KRB104", "KRB105"}


def _codes(report: object) -> set[str]:
    assert isinstance(report, FileReport)
    return {f.code for f in report.findings}


def test_the_split_runs_in_worker_processes_with_the_same_output(
    clones: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_paths([clones], 2, None) == [check_given(clones)]
    run(["--output-format", "json", "--no-cache", "-j", "1", str(clones)])
    whole = json.loads(capsys.readouterr().out)
    run(["--output-format", "json", "--no-cache", "-j", "2", str(clones)])
    assert json.loads(capsys.readouterr().out) == whole
    assert whole["summary"]["files_checked"] == len(list(iter_python_files(clones)))


def test_migrate_splits_the_same_way(clones: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``migrate --check DIR`` would rewrite exactly the files where ``check DIR`` calls a
    KRB2xx finding fixable (the one decision on fixability, per repository)."""
    run(["--output-format", "json", "--no-cache", str(clones)])
    fixable = {
        row["path"]
        for row in json.loads(capsys.readouterr().out)["files"]
        if any(f["fixable"] and f["code"].startswith("KRB2") for f in row["findings"])
    }
    migrate(["--check", "-j", "1", str(clones)])
    printed = capsys.readouterr().out.splitlines()
    would = {line.split()[2] for line in printed if line.startswith("would migrate ")}
    assert would == fixable and fixable
    assert str(clones / "one" / "app" / "listeners.py") not in would


def test_inside_a_project_a_directory_stays_one_repository(clones: Path) -> None:
    (clones / "setup.cfg").write_text("[metadata]\nname = mono\n")
    assert repositories_in(clones) == []
    assert repositories_in(clones / "scripts") == []  # below a project root too
    assert tasks_of(clones) == [(clones, None)]
    assert check_given(clones) == check_directory(clones)


def test_finding_as_dict_is_asdict() -> None:
    finding = Finding(3, 4, "KRB203", "message", True, "advice")
    assert finding.as_dict() == asdict(finding)
    assert list(finding.as_dict()) == list(asdict(finding))


def test_breadth_first_is_ast_walk_without_the_leaves() -> None:
    for path in sorted(FIXTURES.glob("*.py")):
        tree = ast.parse(path.read_bytes())
        expected = [node for node in ast.walk(tree) if type(node) not in LEAVES]
        assert list(breadth_first(tree)) == expected


def test_facts_shared_builds_a_trees_index_and_bindings_once() -> None:
    text = (FIXTURES / "krb2xx_migration.py").read_text()
    tree = ast.parse(text)
    with facts_shared():
        first, second = (file_facts(tree, text, ImportMap()) for _ in range(2))
        assert first.bindings is second.bindings is bindings_of(tree)
        assert first.index.calls is second.index.calls
        first.index.claimed["x"] = "kafka.x"
        assert second.index.claimed == {}  # each planning run claims its own names
    assert bindings_of(tree) is not first.bindings  # nothing kept after it
    assert file_facts(tree, text, ImportMap()).index.calls is not first.index.calls
