"""How much of the KRB2xx advice ``rebalance-guard migrate`` fixes on its own, and why not the rest.

Usage: ``python benchmarks/migration_refusals.py DIR [DIR ...]``

For every ``*.py`` file under the directories (each file on its own, as ``migrate FILE`` sees
it): the KRB201-KRB203 findings of ``rebalance-guard check`` and how many of them are fixable
(the migration plan rewrites exactly those sites), and every site ``migrate`` refuses, grouped by
its reason with the names and line numbers taken out (the reason's template in the planner's
source). Also counted: files the migration would change, files where it failed (a status other
than ok: a crash, or output that would not parse) and files where a second run would change
something more (not idempotent).
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

from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source
from rebalance_lint.analysis import migration_confluent, migration_listeners

MIGRATION_CODES = frozenset({"KRB201", "KRB202", "KRB203"})
_LISTENER_PREFIX = re.compile(r"listener class [\w.]+: ")
_LINE_SUFFIX = r"(?: \(line \d+\))?"
_BY_HAND_SUFFIX = re.compile(r" \(line \d+\); migrate it by hand$")


def _templates() -> list[tuple[re.Pattern[str], str]]:
    """Every refusal message the planners can produce, as (regex, template with ``{}``)."""
    found: dict[str, re.Pattern[str]] = {}
    for module in (migration_listeners, migration_confluent):
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    files = changed = 0
    broken: list[str] = []
    not_idempotent: list[str] = []
    sites = Counter[str]()
    fixable = Counter[str]()
    reasons = Counter[str]()
    for path in python_files(args.paths):
        files += 1
        source = path.read_bytes()
        for finding in check_source(source, str(path)).findings:
            if finding.code in MIGRATION_CODES:
                sites[finding.code] += 1
                fixable[finding.code] += finding.fixable
        result = migrate_source(source, str(path))
        if result.status != "ok":
            broken.append(f"{path}: {result.status}: {result.reason}")
            continue
        reasons.update(normalise(site.reason) for site in result.manual)
        if result.new_source is not None:
            changed += 1
            if migrate_source(result.new_source, str(path)).new_source is not None:
                not_idempotent.append(str(path))
    total, automatic = sum(sites.values()), sum(fixable.values())
    share = 100 * automatic / total if total else 100.0
    print(f"paths: {' '.join(str(p) for p in args.paths)}")
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
