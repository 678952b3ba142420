"""``rebalance-guard migrate DIR``: a listener class defined in one module and created and
registered in others is migrated together with them, or not at all.

Each ``fixtures/repos/<case>/before`` is a repository; ``after`` is what ``migrate DIR``
makes of it. Negative cases keep the class byte-identical, with a refusal naming the other
file:line.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods import engine
from rebalance_codemods.api import migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository

from tests.codemods.examples import run_cli

REPOS = Path(__file__).parent / "fixtures" / "repos"
CASES = sorted(p.name for p in REPOS.iterdir() if (p / "before").is_dir())
MIGRATION_CODES = {"KRB201", "KRB202", "KRB203"}
LISTENERS = "app/listeners.py"

#: negative cases: the refusal reported at the class (line 4 of app/listeners.py)
REFUSED = {
    "unregistered_instance": "the instance created at app/tools.py:5 is not registered",
    "subclassed_elsewhere": (
        "subclassed in another module (class LoudCommit at app/loud.py:4); the codemod cannot "
        "migrate a class hierarchy across modules; migrate both by hand (each derives from "
        "rebalance_guard's RebalanceListener and its on_partitions_*() take the view)"
    ),
    "used_as_value_elsewhere": (
        "CommitOnRevoke is used at app/registry.py:3 other than to create an instance "
        "({'billing': CommitOnRevoke}); create and register it there directly "
        "(subscribe(listener=CommitOnRevoke(...))), then run rebalance-guard migrate on the "
        "directory again"
    ),
    "isinstance_elsewhere": "tested with isinstance() at app/checks.py:5",
    "unparsable_member": "app/broken.py mentions CommitOnRevoke but it cannot be parsed",
    "never_created": "no instance is created in this file or anywhere else in the repository",
}

#: test modules migrate DIR rewrites with their listener class, which have no KRB2xx finding
#: of their own (their direct callback calls go through the test harness)
DRIVEN_BY_TESTS = {"harness_tests": ("checks/listener_checks.py",)}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_every_case_is_listed() -> None:
    migrated = {"registered_in_two", "harness_tests", "async_listener_elsewhere"}
    assert set(REFUSED) | migrated == set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_repository_case(case: str) -> None:
    before, after = _files(REPOS / case / "before"), _files(REPOS / case / "after")
    done = migrate_repository(before)
    assert all(r.status == "ok" for r in done.results.values())
    produced = {path: done.results[path].new_source or source for path, source in before.items()}
    assert produced == after
    assert done.pending == {path for path in before if before[path] != after[path]}
    manual = [(site.line, site.reason) for site in done.results[LISTENERS].manual]
    if case in REFUSED:
        assert after[LISTENERS] == before[LISTENERS]
        assert [line for line, reason in manual if REFUSED[case] in reason] == [4], manual
    else:
        assert manual == []
        assert b"RebalanceListener" in after[LISTENERS]


@pytest.mark.parametrize("case", CASES)
def test_a_second_run_changes_nothing(case: str) -> None:
    after = _files(REPOS / case / "after")
    done = migrate_repository(after)
    assert done.pending == set()
    assert all(r.new_source is None for r in done.results.values())
    assert migrate_repository(after, plan_only=True).pending == set()


@pytest.mark.parametrize("case", CASES)
def test_check_dir_fixable_exactly_where_migrate_dir_rewrites(case: str) -> None:
    """check DIR and migrate DIR read one plan: a fixable KRB2xx finding is gone after
    migrate DIR, and a file changes exactly when it has one (KRB202 on the class too)."""
    before, after = _files(REPOS / case / "before"), _files(REPOS / case / "after")
    reports, migrated = check_repository(before), check_repository(after)
    for path in before:
        findings = [f for f in reports[path].findings if f.code in MIGRATION_CODES]
        fixable = Counter(f.code for f in findings if f.fixable)
        kept = Counter(f.code for f in findings if not f.fixable)
        left = Counter(f.code for f in migrated[path].findings if f.code in MIGRATION_CODES)
        assert all(left[code] <= kept[code] for code in left), (path, fixable, kept, left)
        driven = path in DRIVEN_BY_TESTS.get(case, ())  # no KRB2xx there: the harness calls
        assert (before[path] != after[path]) == (bool(fixable) or driven), (path, fixable)
    class_fixable = [f.fixable for f in reports[LISTENERS].findings if f.code == "KRB202"]
    assert class_fixable == [case not in REFUSED]


def test_migrate_file_alone_keeps_the_refusal_and_names_migrate_dir() -> None:
    source = (REPOS / "registered_in_two" / "before" / LISTENERS).read_bytes()
    result = migrate_source(source, LISTENERS)
    assert result.new_source is None
    reasons = [site.reason for site in result.manual]
    assert any(
        "no instance is created in this file" in r and "rebalance-guard migrate DIR" in r
        for r in reasons
    ), reasons


def test_a_group_is_written_whole_or_not_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """One file of the group fails to rewrite: none of the group's files changes, and each
    says why (the class would otherwise take two arguments the client never passes)."""
    rewrite = engine._rewrite

    def failing(source: bytes, plan: object) -> bytes:
        if b'group_id="audit"' in source:
            raise RuntimeError("simulated LibCST failure")
        return rewrite(source, plan)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_rewrite", failing)
    before = _files(REPOS / "registered_in_two" / "before")
    done = migrate_repository(before)
    assert done.results["app/audit.py"].status == "crashed"
    for path in (LISTENERS, "app/billing.py"):
        result = done.results[path]
        assert result.status == "ok" and result.new_source is None, path
        assert any(
            "not written: listener class CommitOnRevoke (app/listeners.py:4)" in site.reason
            and "app/audit.py, which failed (crashed: RuntimeError: simulated" in site.reason
            for site in result.manual
        ), result.manual
    assert done.pending == set()


def test_cli_migrate_dir_check_then_write(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "registered_in_two" / "before", root)
    before = _files(root)
    check = run_cli("migrate", "--check", str(root))
    assert check.returncode == 1, check.stderr
    for name in (LISTENERS, "app/billing.py", "app/audit.py"):
        assert f"would migrate {root / name}" in check.stdout
    assert _files(root) == before
    write = run_cli("migrate", str(root))
    assert write.returncode == 0, write.stderr
    assert _files(root) == _files(REPOS / "registered_in_two" / "after")
    again = run_cli("migrate", "--check", str(root))
    assert again.returncode == 0, again.stdout + again.stderr


def test_cli_migrate_file_alone(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "registered_in_two" / "before", root)
    result = run_cli("migrate", "--check", str(root / LISTENERS))
    assert result.returncode == 0, result.stderr
    assert f"{root / LISTENERS}:4: manual: listener class CommitOnRevoke: no instance" in (
        result.stdout
    )
    assert "rebalance-guard migrate DIR" in result.stdout


def test_cli_refused_class_in_dir(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(REPOS / "subclassed_elsewhere" / "before", root)
    result = run_cli("migrate", str(root))
    assert result.returncode == 0, result.stderr
    assert f"{root / LISTENERS}:4: manual: listener class CommitOnRevoke: " in result.stdout
    assert "app/loud.py:4" in result.stdout
    assert _files(root) == _files(REPOS / "subclassed_elsewhere" / "after")
