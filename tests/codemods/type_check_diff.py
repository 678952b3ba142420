"""Run mypy --strict and pyright on a directory of files and compare two such runs: which
error codes a migration added per file. One place for ``test_migrated_type_checks.py`` (the
fixtures and examples) and ``benchmarks/migration_refusals.py --type-check`` (the corpora).

A migration renames functions and moves lines, so messages and lines differ even for the same
error; an error it causes shows up as one more error of its code (mypy: one more line with
it). Both tools run from the project root with its configuration, as a user of the project's
stubs runs them."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from pyflakes import checker  # flake8's, a dependency of the lint plugin

ROOT = Path(__file__).resolve().parents[2]
Errors = dict[str, Counter[str]]  # file (relative path) -> error code -> on how many lines

#: mypy's "this code is untyped" codes. A migration of untyped code writes untyped code (a
#: listener method kept in the style of the function it came from, or one calling a method the
#: user left untyped), so for these the question is whether a file was typed before and not after.
UNTYPED = frozenset({"no-untyped-def", "no-untyped-call"})


def mypy_errors(directory: Path) -> Errors:
    """mypy --strict's errors on every ``*.py`` under ``directory``, per file and code."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--show-error-codes",
         "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(directory / ".cache"),
         *sorted(str(p) for p in directory.rglob("*.py"))],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if "error: " in result.stderr or "errors prevented further checking" in result.stdout:
        raise RuntimeError(f"mypy did not check everything: {result.stderr}{result.stdout}")
    # mypy reports an unannotated def once and a partly annotated one (a migrated method with
    # its view annotated) once per missing part: count lines with the code, not messages.
    found = {
        (_relative(m[1], directory), m[2], m[3])
        for m in (re.match(r"(.+?\.py):(\d+): error: .*\[([\w-]+)\]$", line)
                  for line in result.stdout.splitlines())
        if m
    }  # fmt: skip
    errors: Errors = {}
    for name, _line, code in found:
        errors.setdefault(name, Counter())[code] += 1
    return errors


def pyright_errors(directory: Path) -> Errors:
    """pyright's (standard mode) errors on ``directory``, per file and rule."""
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
            errors.setdefault(_relative(diagnostic["file"], directory), Counter())[rule] += 1
    return errors


def _relative(path: str, directory: Path) -> str:
    return Path(path).resolve().relative_to(directory.resolve()).as_posix()


def added(before: Errors, after: Errors) -> dict[str, dict[str, int]]:
    """Per file, the error codes reported more often after the migration than before (for
    :data:`UNTYPED` codes: reported after, never before)."""
    more_by_file: dict[str, dict[str, int]] = {}
    for name, codes in after.items():
        had = before.get(name, Counter())
        more = {code: n - had[code] for code, n in codes.items() if n > had[code]}
        more = {code: n for code, n in more.items() if code not in UNTYPED or not had[code]}
        if more:
            more_by_file[name] = more
    return more_by_file


#: pyflakes messages of names a run would not find (NameError, UnboundLocalError)
UNBOUND = ("UndefinedName", "UndefinedLocal", "UndefinedExport")


def unbound_names(source: bytes, path: str) -> Counter[str]:
    """pyflakes' undefined-name messages of ``source``, by kind and name (lines left out: the
    migration moves them); a migrated file gaining one reads a name it deleted or never bound,
    which ``compile()`` accepts and the first run raises (development 064 did until 2026-11-27)."""
    tree = ast.parse(source, path)
    found = checker.Checker(tree, filename=path).messages
    return Counter(
        f"{type(m).__name__} {m.message_args[0]}" for m in found if type(m).__name__ in UNBOUND
    )
