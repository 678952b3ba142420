"""How much of the KRB2xx advice ``rebalance-guard migrate`` fixes on its own, and why not the rest.

Usage: ``python benchmarks/migration_refusals.py [--repository | --each-subdirectory] DIR...``

For every ``*.py`` file under the directories (each file on its own, as ``migrate FILE`` sees
it): the KRB201-KRB203 findings of ``rebalance-guard check`` and how many of them are fixable
(the migration plan rewrites exactly those sites), and every site ``migrate`` refuses, grouped by
its reason with the names and line numbers taken out (the reason's template in the planner's
source). Also counted: files the migration would change, files where it failed (a status other
than ok: a crash, or output that would not parse) and files where a second run would change
something more (not idempotent).

``--repository``: each directory is one repository, as ``rebalance-guard check DIR`` and
``migrate DIR`` see it (findings from ``check_repository``, the migration from
``rebalance_codemods.repository.migrate_repository``: a listener class in one module is
migrated with its registrations in the others).

``--each-subdirectory``: repository mode, with every immediate subdirectory of each DIR one
repository (a corpus of several projects, e.g. ``benchmarks/real_world_corpus``); ``*.py`` files
directly in DIR are taken on their own.

A migrated file counts as broken too when its new source does not ``compile()``.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from rebalance_codemods.api import MigrationResult, migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository, check_source
from rebalance_lint.analysis import migration_confluent, migration_listeners, migration_repository
from rebalance_lint.report import FileReport

MIGRATION_CODES = frozenset({"KRB201", "KRB202", "KRB203"})
_LISTENER_PREFIX = re.compile(r"listener class [\w.]+: ")
_LINE_SUFFIX = r"(?: \(line \d+\))?"
_BY_HAND_SUFFIX = re.compile(r" \(line \d+\); migrate it by hand$")


def _templates() -> list[tuple[re.Pattern[str], str]]:
    """Every refusal message the planners can produce, as (regex, template with ``{}``)."""
    found: dict[str, re.Pattern[str]] = {}
    for module in (migration_listeners, migration_confluent, migration_repository):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.JoinedStr):
                parts = [(v.value if isinstance(v, ast.Constant) else None) for v in node.values]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                parts = [node.value]
            else:
                continue
            literal = "".join(p for p in parts if isinstance(p, str))
            if len(literal.strip()) < 12 or literal.startswith(" (line"):
                continue  # too short to tell reasons apart, or a wrapper of another reason
            template = "".join("{}" if p is None else p for p in parts)
            regex = "".join(".+?" if p is None else re.escape(str(p)) for p in parts)
            found[template] = re.compile(regex + _LINE_SUFFIX)
    by_specificity = sorted(found.items(), key=lambda item: -len(item[0].replace("{}", "")))
    return [(regex, template) for template, regex in by_specificity]


TEMPLATES = _templates()


def normalise(reason: str) -> str:
    """The reason with names and line numbers stripped: the planner's template for it."""
    prefix = suffix = ""
    match = _LISTENER_PREFIX.match(reason)
    if match:
        prefix, reason = "listener class {}: ", reason[match.end() :]
    for regex, template in TEMPLATES:
        if regex.fullmatch(reason):
            return prefix + template
    match = _BY_HAND_SUFFIX.search(reason)
    if match:  # a final assign/unassign reason, with its line, then the next step
        suffix, reason = " (line {}); migrate it by hand", reason[: match.start()]
        for regex, template in TEMPLATES:
            if regex.fullmatch(reason):
                return prefix + template + suffix
    return prefix + re.sub(r"\d+", "N", reason) + suffix


def python_files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
        else:
            yield from sorted(p for p in root.rglob("*.py") if p.is_file())


Outcome = tuple[str, bytes, FileReport, MigrationResult, bool]  # path, source, ..., idempotent


def single_files(roots: list[Path]) -> Iterator[Outcome]:
    for path in python_files(roots):
        source = path.read_bytes()
        result = migrate_source(source, str(path))
        again = (
            result.new_source is not None
            and migrate_source(result.new_source, str(path)).new_source is not None
        )
        yield str(path), source, check_source(source, str(path)), result, not again


def repositories(roots: list[Path]) -> Iterator[Outcome]:
    for root in roots:
        if root.is_file():
            yield from single_files([root])
            continue
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in python_files([root])}
        reports = check_repository(files)
        done = migrate_repository(files)
        after = {path: done.results[path].new_source or source for path, source in files.items()}
        again = migrate_repository(after).pending
        for path, source in files.items():
            name = str(root / path)
            yield name, source, reports[path], done.results[path], path not in again


def subdirectories(roots: list[Path]) -> list[Path]:
    """Every immediate subdirectory of each root (one repository each), and its loose files."""
    found: list[Path] = []
    for root in roots:
        if root.is_file():
            found.append(root)
            continue
        found += sorted(p for p in root.iterdir() if p.is_dir() or p.suffix == ".py")
    return found


def compiles(source: bytes, path: str) -> bool:
    try:
        compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--repository", action="store_true",
                        help="each directory is one repository (check/migrate DIR)")  # fmt: skip
    parser.add_argument("--each-subdirectory", action="store_true",
                        help="each subdirectory of each DIR is one repository")  # fmt: skip
    args = parser.parse_args(argv)
    roots = subdirectories(args.paths) if args.each_subdirectory else args.paths
    repository_mode = args.repository or args.each_subdirectory
    started = time.perf_counter()
    files = changed = 0
    broken: list[str] = []
    not_idempotent: list[str] = []
    sites = Counter[str]()
    fixable = Counter[str]()
    reasons = Counter[str]()
    outcomes = repositories(roots) if repository_mode else single_files(roots)
    for path, _source, report, result, idempotent in outcomes:
        files += 1
        for finding in report.findings:
            if finding.code in MIGRATION_CODES:
                sites[finding.code] += 1
                fixable[finding.code] += finding.fixable
        if result.status != "ok":
            broken.append(f"{path}: {result.status}: {result.reason}")
            continue
        reasons.update(normalise(site.reason) for site in result.manual)
        if result.new_source is not None and not compiles(result.new_source, path):
            broken.append(f"{path}: migrated source does not compile")
            continue
        if result.new_source is not None:
            changed += 1
            if not idempotent:
                not_idempotent.append(path)
    total, automatic = sum(sites.values()), sum(fixable.values())
    share = 100 * automatic / total if total else 100.0
    mode = "single file"
    if args.repository:
        mode = "repository (each directory)"
    if args.each_subdirectory:
        mode = f"repository (each subdirectory: {len(roots)})"
    print(f"paths: {' '.join(str(p) for p in args.paths)} ({mode})")
    print(
        f"files: {files}, migrated: {changed}, broken: {len(broken)}, "
        f"not idempotent: {len(not_idempotent)}"
    )
    per_code = ", ".join(f"{c} {fixable[c]}/{sites[c]}" for c in sorted(sites))
    print(f"KRB2xx sites: {total}, migrated automatically: {automatic} ({share:.1f}%)")
    print(f"  by code (migrated/all): {per_code or 'none'}")
    print(f"refused sites: {sum(reasons.values())}, by reason (names and lines stripped):")
    for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count:4d}  {reason}")
    for line in broken + [f"{p}: a second run changes it" for p in not_idempotent]:
        print(f"  problem: {line}")
    print(f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 1 if broken or not_idempotent else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
