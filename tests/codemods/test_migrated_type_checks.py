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

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source

from tests.codemods.examples import ROOT

SOURCES = sorted(
    [
        *(ROOT / "examples").rglob("*.py"),
        *(ROOT / "tests" / "lint" / "fixtures").glob("*.py"),
        *(ROOT / "tests" / "codemods" / "fixtures").glob("*.py"),
    ]
)
Errors = dict[str, Counter[str]]  # file name -> error code -> on how many lines


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


def _mypy(directory: Path) -> Errors:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--show-error-codes",
         "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(directory / ".cache"),
         *sorted(str(p) for p in directory.glob("*.py"))],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert "error: " not in result.stderr, result.stderr
    # mypy reports an unannotated def once and a partly annotated one (a migrated method with
    # its view annotated) once per missing part: count lines with the code, not messages.
    found = {
        (Path(m[1]).name, m[2], m[3])
        for m in (re.match(r"(.+?\.py):(\d+): error: .*\[([\w-]+)\]$", line)
                  for line in result.stdout.splitlines())
        if m
    }  # fmt: skip
    errors: Errors = {}
    for name, _line, code in found:
        errors.setdefault(name, Counter())[code] += 1
    return errors


def _pyright(directory: Path) -> Errors:
    config = {
        "typeCheckingMode": "standard",
        "pythonVersion": "3.11",
        "extraPaths": [str(ROOT / part) for part in ("stubs", "lint_rules", "codemods")],
    }
    (directory / "pyrightconfig.json").write_text(json.dumps(config))
    result = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--project", str(directory),
         "--pythonpath", sys.executable, str(directory)],
        cwd=directory, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    report = json.loads(result.stdout)
    errors: Errors = {}
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            rule = diagnostic.get("rule", "error")
            errors.setdefault(Path(diagnostic["file"]).name, Counter())[rule] += 1
    return errors


#: mypy's "this code is untyped" codes. A migration of untyped code writes untyped code (a
#: listener method kept in the style of the function it came from, or one calling a method the
#: user left untyped), so for these the question is whether a file was typed before and not after.
UNTYPED = frozenset({"no-untyped-def", "no-untyped-call"})


def _added(before: Errors, after: Errors) -> dict[str, dict[str, int]]:
    """Per file, the error codes reported more often after the migration than before (for
    :data:`UNTYPED` codes: reported after, never before)."""
    added: dict[str, dict[str, int]] = {}
    for name, codes in after.items():
        had = before.get(name, Counter())
        more = {code: n - had[code] for code, n in codes.items() if n > had[code]}
        more = {code: n for code, n in more.items() if code not in UNTYPED or not had[code]}
        if more:
            added[name] = more
    return added


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
    assert _added(_mypy(before), _mypy(after)) == {}


@pytest.mark.slow
def test_pyright_reports_nothing_new_on_migrated_code(
    pairs: tuple[Path, Path, list[str]],
) -> None:
    before, after, _ = pairs
    assert _added(_pyright(before), _pyright(after)) == {}
