"""How much of the KRB2xx advice ``rebalance-guard migrate`` fixes on its own, and why not the rest.

Usage: ``python benchmarks/migration_refusals.py [--repository | --each-subdirectory] [--sites]
       DIR...``

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

A migrated file counts as broken too when its new source does not ``compile()``, or when
pyflakes finds a name it reads unbound (undefined, or used after ``del``) that the original
did not read. A file whose
input cannot be read (the check report's status is not ok, e.g. a syntax error, or an input that
does not ``compile()`` either) is counted and listed apart as unreadable input: broken means the
migration made something worse, and only broken or not idempotent files make the exit code 1.

``--sites``: after the summary, per repository (per path in single-file mode) a one-line
summary and one line per KRB201-KRB203 finding, ``path:line: CODE migrated`` or
``path:line: CODE manual: <reason>``, the reason being the refusal the migration gives on that
line, else the nearest one before it (else after it) in the same file, marked
``[refusal at line N]``; ``manual: (no reason given)`` when the file has no refusal at all.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rebalance_codemods.api import ManualSite, MigrationResult, migrate_source
from rebalance_codemods.repository import migrate_repository
from rebalance_lint import check_repository, check_source
from rebalance_lint.analysis import migration_confluent, migration_listeners, migration_repository
from rebalance_lint.report import FileReport

MIGRATION_CODES = frozenset({"KRB201", "KRB202", "KRB203"})
_LISTENER_PREFIX = re.compile(r"listener class [\w.]+: ")
_LINE_SUFFIX = r"(?: \(line \d+\))?"
_BY_HAND_SUFFIX = re.compile(r" \(line \d+\); migrate it by hand$")


def _templates() -> list[tuple[re.Pattern[str], str]]:
    """Every refusal message the planners can produce, as (regex, template with ``{}``): the
    migration planners' own and their shape modules' (those the confluent, listener and
    repository planners dispatch to)."""
    found: dict[str, re.Pattern[str]] = {}
    try:  # an older tree (measured from a ``git archive`` export) has no shape modules
        from rebalance_lint.analysis import shapes
    except ImportError:
        planned = []
    else:
        planned = [
            module
            for module in shapes.modules()
            if module.SHAPE.planner in ("confluent", "listeners", "repository")
        ]
    for module in (migration_listeners, migration_confluent, migration_repository, *planned):
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
            template = "".join("{}" if p is None else str(p) for p in parts)
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


#: check statuses that are the tool's own failure, not the input's (every other status but
#: "ok" means the input itself could not be read or parsed: counted as unreadable input)
TOOL_FAILURES = frozenset({"crashed"})


def nearest_manual(manual: list[ManualSite], line: int) -> ManualSite | None:
    """The refusal on ``line``, else the nearest one before it, else the nearest one after."""
    before = [site for site in manual if site.line <= line]
    if before:
        return max(before, key=lambda site: site.line)
    after = [site for site in manual if site.line > line]
    return min(after, key=lambda site: site.line) if after else None


@dataclass
class Tally:
    """What one repository (or the whole run) measured."""

    files: int = 0
    changed: int = 0
    sites: Counter[str] = field(default_factory=Counter[str])
    fixable: Counter[str] = field(default_factory=Counter[str])
    reasons: Counter[str] = field(default_factory=Counter[str])
    broken: list[str] = field(default_factory=list[str])
    not_idempotent: list[str] = field(default_factory=list[str])
    unreadable: list[str] = field(default_factory=list[str])
    no_reason: int = 0  # refused KRB2xx sites whose file gives no manual reason at all
    site_lines: list[str] = field(default_factory=list[str])
    migrated: list[tuple[str, bytes, bytes]] = field(default_factory=list)  # path, before, after

    def add(self, other: Tally) -> None:
        self.files += other.files
        self.changed += other.changed
        self.sites.update(other.sites)
        self.fixable.update(other.fixable)
        self.reasons.update(other.reasons)
        self.broken += other.broken
        self.not_idempotent += other.not_idempotent
        self.unreadable += other.unreadable
        self.no_reason += other.no_reason
        self.migrated += other.migrated

    def summary(self) -> str:
        total, automatic = sum(self.sites.values()), sum(self.fixable.values())
        return (
            f"files {self.files}, KRB2xx sites {total}, migrated {automatic}, "
            f"manual {total - automatic} (no reason given: {self.no_reason}), "
            f"migrated files {self.changed}, unreadable input {len(self.unreadable)}, "
            f"broken {len(self.broken)}, not idempotent {len(self.not_idempotent)}"
        )


def sites_of(path: str, report: FileReport, result: MigrationResult) -> tuple[list[str], int]:
    """One line per KRB201-203 finding of the file: migrated, or the refusal that covers it
    (the one on its line, else the nearest before it, else after it, in the same file)."""
    manual = list(result.manual) if result.status == "ok" else []
    lines: list[str] = []
    no_reason = 0
    for finding in sorted(f for f in report.findings if f.code in MIGRATION_CODES):
        where = f"{path}:{finding.line}: {finding.code}"
        if result.status != "ok":
            lines.append(f"{where} not migrated: the migration failed ({result.status})")
        elif finding.fixable:
            unchanged = " (but the file is not changed)" if result.new_source is None else ""
            lines.append(f"{where} migrated{unchanged}")
        else:
            site = nearest_manual(manual, finding.line)
            if site is None:
                no_reason += 1
                lines.append(f"{where} manual: (no reason given)")
                continue
            at = "" if site.line == finding.line else f" [refusal at line {site.line}]"
            lines.append(f"{where} manual: {site.reason}{at}")
    return lines, no_reason


def unbound_gained(source: bytes, new_source: bytes, path: str) -> Counter[str]:
    """The unbound-name reads the migration added (``tests/codemods/type_check_diff.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/
    from tests.codemods.type_check_diff import unbound_names

    return unbound_names(new_source, path) - unbound_names(source, path)


def measure(outcomes: Iterator[Outcome]) -> Tally:
    tally = Tally()
    for path, source, report, result, idempotent in outcomes:
        tally.files += 1
        for finding in report.findings:
            if finding.code in MIGRATION_CODES:
                tally.sites[finding.code] += 1
                tally.fixable[finding.code] += finding.fixable
        lines, no_reason = sites_of(path, report, result)
        tally.site_lines += lines
        tally.no_reason += no_reason
        if report.status != "ok" and report.status not in TOOL_FAILURES:
            tally.unreadable.append(f"{path}: {report.status}: {report.reason}")
            continue
        if result.status != "ok":
            tally.broken.append(f"{path}: {result.status}: {result.reason}")
            continue
        tally.reasons.update(normalise(site.reason) for site in result.manual)
        if result.new_source is not None and not compiles(result.new_source, path):
            if not compiles(source, path):
                tally.unreadable.append(f"{path}: the input does not compile either")
                continue
            tally.broken.append(f"{path}: migrated source does not compile")
            continue
        if result.new_source is not None:
            gained = unbound_gained(source, result.new_source, path)
            if gained:
                shown = ", ".join(sorted(gained))
                tally.broken.append(f"{path}: the migrated source reads unbound names: {shown}")
                continue
        if result.new_source is not None:
            tally.changed += 1
            tally.migrated.append((path, source, result.new_source))
            if not idempotent:
                tally.not_idempotent.append(path)
    return tally


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--repository", action="store_true",
                        help="each directory is one repository (check/migrate DIR)")  # fmt: skip
    parser.add_argument("--each-subdirectory", action="store_true",
                        help="each subdirectory of each DIR is one repository")  # fmt: skip
    parser.add_argument("--sites", action="store_true",
                        help="also one line per KRB201-203 site and per repository")  # fmt: skip
    parser.add_argument("--new-findings", action="store_true",
                        help="also the KRB1xx findings each migrated file has and "
                             "its original had not")  # fmt: skip
    parser.add_argument("--type-check", action="store_true",
                        help="also mypy --strict and pyright on each migrated file, before "
                             "and after: the error codes the migration added")  # fmt: skip
    args = parser.parse_args(argv)
    roots = subdirectories(args.paths) if args.each_subdirectory else args.paths
    repository_mode = args.repository or args.each_subdirectory
    started = time.perf_counter()
    total = Tally()
    per_root: list[tuple[Path, Tally]] = []
    for root in roots:
        tally = measure(repositories([root]) if repository_mode else single_files([root]))
        per_root.append((root, tally))
        total.add(tally)
    sites, fixable, reasons = total.sites, total.fixable, total.reasons
    all_sites, automatic = sum(sites.values()), sum(fixable.values())
    share = 100 * automatic / all_sites if all_sites else 100.0
    mode = "single file"
    if args.repository:
        mode = "repository (each directory)"
    if args.each_subdirectory:
        mode = f"repository (each subdirectory: {len(roots)})"
    print(f"paths: {' '.join(str(p) for p in args.paths)} ({mode})")
    print(
        f"files: {total.files}, migrated: {total.changed}, broken: {len(total.broken)}, "
        f"not idempotent: {len(total.not_idempotent)}, unreadable input: {len(total.unreadable)}"
    )
    per_code = ", ".join(f"{c} {fixable[c]}/{sites[c]}" for c in sorted(sites))
    print(f"KRB2xx sites: {all_sites}, migrated automatically: {automatic} ({share:.1f}%)")
    print(f"  by code (migrated/all): {per_code or 'none'}")
    print(
        f"manual sites: {all_sites - automatic} (no reason given: {total.no_reason}); "
        f"refusals given: {sum(reasons.values())} (one may cover several sites), "
        "by reason (names and lines stripped):"
    )
    for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count:4d}  {reason}")
    problems = total.broken + [f"{p}: a second run changes it" for p in total.not_idempotent]
    for line in problems:
        print(f"  problem: {line}")
    for line in total.unreadable:
        print(f"  unreadable input (not counted as broken): {line}")
    typed = type_check(total.migrated) if args.type_check else 0
    if args.new_findings:
        new_findings(total.migrated)
    if args.sites:
        print(f"sites (KRB201-203), per repository; manual sites with no reason: {total.no_reason}")
        for root, tally in per_root:
            print(f"{root}: {tally.summary()}")
            for line in tally.site_lines:
                print(f"  {line}")
    print(f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 1 if total.broken or total.not_idempotent or typed else 0


def new_findings(migrated: list[tuple[str, bytes, bytes]]) -> None:
    """Per migrated file, the KRB1xx findings (by code) its migrated source has beyond the
    original's: a migration the benchmark counts as done may still leave, say, a helper method
    committing on the stored consumer instead of the view (KRB112), which ``check`` reports."""
    gained: Counter[str] = Counter()
    files = 0
    for path, before, after in migrated:
        old = Counter(f.code for f in check_source(before, path).findings if f.code < "KRB2")
        new = Counter(f.code for f in check_source(after, path).findings if f.code < "KRB2")
        added = new - old
        if added:
            files += 1
            gained.update(added)
            print(f"  new findings: {path}: {dict(sorted(added.items()))}")
    codes = ", ".join(f"{code} {n}" for code, n in sorted(gained.items())) or "none"
    print(
        f"migrated files with KRB1xx findings the original had not: {files} of "
        f"{len(migrated)} ({codes})"
    )


def type_check(migrated: list[tuple[str, bytes, bytes]]) -> int:
    """Print, per migrated file, the mypy --strict and pyright error codes the migration added
    (``tests/codemods/type_check_diff.py``: the test of the fixtures' comparison); return
    how many files got one. Each file is checked alone in a package of its own (its
    repository's other modules are not beside it: their imports fail alike before and after)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/
    from tests.codemods.type_check_diff import added, mypy_errors, pyright_errors

    with tempfile.TemporaryDirectory() as tmp:
        before, after = Path(tmp, "before"), Path(tmp, "after")
        before.mkdir()
        after.mkdir()
        names: dict[str, str] = {}
        for index, (path, old, new) in enumerate(migrated):
            # four package levels each (relative imports, up to ``from ... import``, then
            # fail as imports, not as mypy's blocking "no parent module" error)
            stem = re.sub(r"\W", "_", Path(path).stem)
            package = f"p{index:04d}/a/b/c"
            name = f"{package}/{stem}.py"
            names[name] = path
            for root, source in ((before, old), (after, new)):
                (root / package).mkdir(parents=True)
                for level in (root / package, *(root / package).parents):
                    if level == root:
                        break
                    (level / "__init__.py").write_bytes(b"")
                (root / name).write_bytes(source)
        runs = {
            "mypy --strict": (mypy_errors(before), mypy_errors(after)),
            "pyright": (pyright_errors(before), pyright_errors(after)),
        }
        worse = {tool: added(*pair) for tool, pair in runs.items()}
    files = {name for found in worse.values() for name in found}
    # an error of one code became one of another on a rewritten line (``self.consumer = None``
    # in __init__: "None has no attribute subscribe" becomes subscribe()'s arg-type): the file
    # has no more errors in all than before, by either tool
    moved = {
        name
        for name in files
        if all(
            sum(after_run.get(name, {}).values()) <= sum(before_run.get(name, {}).values())
            for before_run, after_run in runs.values()
        )
    }
    print(
        f"type checks of the {len(migrated)} migrated files: {len(files)} with an error the "
        f"migration added ({len(moved)} of them with no more errors in all than before: "
        "an error's code changed)"
    )
    for tool, found in worse.items():
        print(f"  {tool}: {len(found)} files")
        for name, codes in sorted(found.items()):
            listed = ", ".join(f"{code} +{n}" for code, n in sorted(codes.items()))
            note = " (no more errors in all)" if name in moved else ""
            print(f"    {names[name]}: {listed}{note}")
    return len(files)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
