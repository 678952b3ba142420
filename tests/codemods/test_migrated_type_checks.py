"""Migrated code type-checks (issue 12 item 6): mypy --strict and pyright (standard) report no
error on a migrated file that they did not already report on the file before the migration.

Inputs: every example, lint fixture and codemod fixture that ``migrate`` changes. Each is
checked twice, as it was and as migrated, and the errors are compared per file by error code
(mypy's ``[code]``, pyright's ``(reportRule)``): a migration renames functions and moves lines,
so messages and lines differ even for the same error, but an error the migration causes shows up
as one more error of its code (mypy: one more line with it). Lint fixtures are deliberately
buggy and untyped, so they have errors of their own; what counts is that the migration adds
none, and that a file mypy found fully typed stays so.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source

from tests.codemods.examples import ROOT
from tests.codemods.type_check_diff import added, mypy_errors, pyright_errors, unbound_names

SOURCES = sorted(
    [
        *(ROOT / "examples").rglob("*.py"),
        *(ROOT / "tests" / "lint" / "fixtures").glob("*.py"),
        *(ROOT / "tests" / "codemods" / "fixtures").glob("*.py"),
    ]
)


def _pairs(tmp: Path) -> tuple[Path, Path, list[str]]:
    """``before/`` and ``after/`` directories with every file the migration changes."""
    before, after = tmp / "before", tmp / "after"
    before.mkdir()
    after.mkdir()
    names: list[str] = []
    for path in SOURCES:
        source = path.read_bytes()
        result = migrate_source(source, path.name)
        if result.new_source is None:
            continue
        name = f"{path.parent.name.replace('-', '_')}_{path.name}"
        (before / name).write_bytes(source)
        (after / name).write_bytes(result.new_source)
        names.append(name)
    return before, after, names


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    return _pairs(tmp_path_factory.mktemp("typed"))


def test_there_is_migrated_code_to_check(pairs: tuple[Path, Path, list[str]]) -> None:
    names = pairs[2]
    assert any("confluent_aio" in n for n in names) and any("owner_" in n for n in names), names
    assert len(names) >= 20, names


@pytest.mark.slow
def test_mypy_strict_reports_nothing_new_on_migrated_code(
    pairs: tuple[Path, Path, list[str]],
) -> None:
    before, after, _ = pairs
    assert added(mypy_errors(before), mypy_errors(after)) == {}


@pytest.mark.slow
def test_pyright_reports_nothing_new_on_migrated_code(
    pairs: tuple[Path, Path, list[str]],
) -> None:
    before, after, _ = pairs
    assert added(pyright_errors(before), pyright_errors(after)) == {}


def test_migrated_code_reads_no_name_it_does_not_bind(pairs: tuple[Path, Path, list[str]]) -> None:
    """pyflakes: no undefined name or use after ``del`` the original did not have (compile()
    accepts both; the first run raises NameError or UnboundLocalError)."""
    before, after, names = pairs
    gained = {
        name: unbound_names((after / name).read_bytes(), name)
        - unbound_names((before / name).read_bytes(), name)
        for name in names
    }
    assert {name: found for name, found in gained.items() if found} == {}


def test_the_unbound_name_check_sees_a_use_after_del() -> None:
    """The check above can fail: development 064's migrated shape before the fix."""
    source = (
        b"def on_revoke(self, consumer, partitions):\n"
        b"    del consumer\n"
        b"    self.flush(consumer=consumer)\n"
    )
    assert unbound_names(source, "app.py") == Counter({"UndefinedName consumer": 1})
