"""``rebalance-guard check PATH...``: the KRB rules without flake8.

``--output-format`` text, json, sarif, github or gitlab (:mod:`rebalance_lint.output_formats`;
``--format`` is the older spelling); ``--statistics`` prints a count per code instead.

``--fix`` first applies the safe auto-fixes (KRB103, KRB104: :mod:`rebalance_lint.analysis.fixes`)
to the findings it would report (``--select``/``--ignore`` and ``# noqa`` apply), each file
replaced atomically, then reports what remains, as ruff does. A finding that has no safe fix
is left alone and why is printed on stderr (``path:line: KRB103 not fixed: reason``); a file
that cannot be parsed is not touched (its status is reported as without ``--fix``).

``--fail-on bug|risk|advice`` (default ``advice``: any finding) sets which findings fail the
run by their kind (:mod:`rebalance_lint.kinds`): ``bug`` fails on bugs only, ``risk`` on bugs
and risks. Every selected finding is still reported; ``--select``/``--ignore`` choose codes.

Exit status: 0 nothing found at or above ``--fail-on`` (with ``--fix``: nothing left), 1 such
findings or files that could not be checked (or fixed), 2 usage error.
Directories are searched for ``*.py`` without following symlinks out of them; a file that
cannot be read is reported on its own line and the rest are still checked. Each directory
is checked as one repository (:func:`rebalance_lint.check_repository`): listener classes,
callbacks, helpers and consumers are resolved across its modules. A directory of
repositories (clones side by side, each with its own ``pyproject.toml``, ``setup.py``,
``setup.cfg`` or ``.git``, in no project itself) is checked as each of them given alone
(:func:`rebalance_lint.reading.repository_parts`).

``-j N`` (default: one per CPU) checks the paths given in up to N worker processes, each file
or repository one task; the output is the same as with ``-j 1``
(:mod:`rebalance_lint.check_runner`). Results are cached by content in
``.rebalance_guard_cache/`` at the project root, or ``$REBALANCE_GUARD_CACHE_DIR``
(:mod:`rebalance_lint.cache`); ``--no-cache`` neither reads nor writes it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.api import Finding
from rebalance_lint.cache import CACHE_ENV, Cache, default_directory
from rebalance_lint.check_runner import check_directory as check_directory  # re-exported
from rebalance_lint.check_runner import check_paths
from rebalance_lint.kinds import KINDS, at_least, count_kinds, describe_counts, parse_kind
from rebalance_lint.output_formats import RENDERERS, render_statistics
from rebalance_lint.reading import Unreadable, iter_python_files
from rebalance_lint.report import Kind
from rebalance_lint.rule_table import RULES

#: Applies a file's fix plan (LibCST, in ``rebalance_codemods``) and writes the file
#: atomically: returns the file's bytes now and "", or the old bytes and why it was left alone.
ApplyFixes = Callable[[Path, bytes, MigrationPlan], tuple[bytes, str]]
#: Loads the applier only when ``--fix`` is given (``check`` alone never imports LibCST). The
#: console script passes it: this package may not import the codemods (they import it).
FixerLoader = Callable[[], ApplyFixes]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rebalance-guard check",
        description="Check Python files for Kafka rebalance-callback bugs, risks and migration "
        "advice (KRB rules).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=tuple(RENDERERS),
        default="text",
        help="text (default), json, sarif (code scanning), github (annotations), gitlab "
        "(Code Quality)",
    )
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of findings per code instead (text or json)",
    )
    parser.add_argument(
        "--select",
        type=_codes,
        default=("KRB",),
        metavar="CODES",
        help="comma-separated codes or prefixes to report, as flake8 (default: KRB, all)",
    )
    parser.add_argument(
        "--ignore", type=_codes, default=(), metavar="CODES", help="codes or prefixes to skip"
    )
    parser.add_argument(
        "--fail-on",
        type=_kind,
        default="advice",
        metavar="KIND",
        help=f"the least urgent kind of finding that fails the run: {', '.join(KINDS)} "
        "(default advice: any finding; bug: bugs only; risk: bugs and risks)",
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe auto-fixes (KRB103, KRB104) first, then report what remains",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=os.cpu_count() or 1,
        metavar="N",
        help="worker processes: each file or repository given is one task (default: one per CPU)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache (.rebalance_guard_cache/ at the project root, "
        f"or ${CACHE_ENV})",
    )
    return parser


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"not a number of processes (1 or more): {value!r}")
    return jobs


def _codes(value: str) -> tuple[str, ...]:
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    if not all(c.startswith("KRB") for c in codes):
        raise argparse.ArgumentTypeError(f"not KRB codes: {value!r}")
    return codes


def _kind(value: str) -> Kind:
    try:
        return parse_kind(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def selected(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """flake8's rule: the longest matching prefix decides between select and ignore."""
    chosen = max((len(p) for p in select if code.startswith(p)), default=-1)
    dropped = max((len(p) for p in ignore if code.startswith(p)), default=-1)
    return chosen > dropped


def _rule_codes(select: tuple[str, ...], ignore: tuple[str, ...]) -> tuple[str, ...] | None:
    """The rules to run: those whose findings are reported (None: every rule)."""
    codes = tuple(rule.code for rule in RULES if selected(rule.code, select, ignore))
    return None if len(codes) == len(RULES) else codes


def fix_paths(
    paths: Sequence[str], keep: Callable[[Finding], bool], apply: ApplyFixes
) -> tuple[int, int, list[str], list[str]]:
    """Apply the fixes for what ``check`` would report on ``paths``: (findings fixed, files
    rewritten, refusals ``path:line: CODE not fixed: reason``, files left alone and why)."""
    # Deferred: only --fix pays for the planner's imports.
    from rebalance_lint.fixing import plan_directory, plan_file, with_lines_moved

    fixed = files = 0
    refused: list[str] = []
    failed: list[str] = []
    for given in paths:
        root = Path(given)
        if not root.exists():
            continue  # reported by the check itself
        if root.is_dir():
            planned = plan_directory(root, keep)
        else:
            planned = [p for f in iter_python_files(root) if (p := plan_file(f, keep))]
        for item in planned:
            new, problem = (
                (item.source, item.problem)
                if item.problem
                else apply(item.path, item.source, item.plan)
            )
            refused.extend(
                f"{item.path}:{line}: {reason}"
                for line, reason in with_lines_moved(item.plan, item.source, new)
            )
            if problem:
                failed.append(f"{item.path}: not fixed: {problem}")
            elif new != item.source:
                fixed += item.plan.sites
                files += 1
    return fixed, files, refused, failed


def run(argv: Sequence[str], fixer: FixerLoader | None = None) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse already printed the usage message
        return 0 if exc.code == 0 else 2
    if args.statistics and args.output_format not in {"text", "json"}:
        sys.stderr.write("rebalance-guard check: --statistics prints text or json only\n")
        return 2
    fixed = fixed_files = 0
    fix_problems: list[str] = []
    if args.fix:
        if fixer is None:
            sys.stderr.write("rebalance-guard check: --fix needs the rebalance-guard command\n")
            return 2
        fixed, fixed_files, refused, fix_problems = fix_paths(
            args.paths, lambda f: selected(f.code, args.select, args.ignore), fixer()
        )
        for line in [*refused, *fix_problems]:
            sys.stderr.write(line + "\n")
    results: list[dict[str, object]] = []
    checked = skipped = findings = problems = failing = 0
    reported: list[Finding] = []
    existing = [Path(g) for g in args.paths if Path(g).exists() or Path(g).is_symlink()]
    codes = _rule_codes(args.select, args.ignore)
    cache_options = () if codes is None else (f"codes={','.join(codes)}",)
    cache = None if args.no_cache else Cache(default_directory(), cache_options)
    checked_paths = iter(check_paths(existing, args.jobs, cache, codes))
    if cache is not None:
        cache.prune()
    for given in args.paths:
        root = Path(given)
        if not root.exists() and not root.is_symlink():
            results.append(
                {
                    "path": given,
                    "status": "unreadable",
                    "reason": "no such file or directory",
                    "findings": [],
                }
            )
            problems += 1
            continue
        for path, report in next(checked_paths):
            checked += 1
            if isinstance(report, Unreadable):
                results.append(
                    {
                        "path": str(path),
                        "status": report.status,
                        "reason": report.reason,
                        "findings": [],
                    }
                )
                problems += 1
                continue
            report = replace(
                report,
                findings=tuple(
                    f for f in report.findings if selected(f.code, args.select, args.ignore)
                ),
            )
            skipped += report.skipped
            findings += len(report.findings)
            reported.extend(report.findings)
            problems += report.status != "ok"
            if report.findings or report.status != "ok":
                results.append(
                    {
                        "path": str(path),
                        "status": report.status,
                        "reason": report.reason,
                        "findings": [f.as_dict() for f in report.findings],
                    }
                )
    kinds = count_kinds(reported)
    failing = sum(n for kind, n in kinds.items() if at_least(kind, args.fail_on))
    summary = {
        "files_checked": checked,
        "files_skipped_no_kafka": skipped,
        "findings": findings,
        **{f"findings_{kind}": n for kind, n in kinds.items()},
        "findings_failing": failing,
        "files_not_checked": problems,
    }
    if args.fix:
        summary.update(fixed=fixed, files_fixed=fixed_files, files_not_fixed=len(fix_problems))
    if args.statistics:
        sys.stdout.write(render_statistics(results, args.output_format))
    else:
        sys.stdout.write(RENDERERS[args.output_format](results, summary))
    if args.fix:
        sys.stderr.write(
            f"fixed {fixed} finding(s) in {fixed_files} file(s); "
            f"{len(fix_problems)} file(s) could not be fixed\n"
        )
    if args.output_format == "text" and (findings or problems):
        sys.stderr.write(
            f"{findings} finding(s) ({describe_counts(kinds)}) in {checked} file(s); "
            f"{problems} file(s) could not be checked"
            + (f"; {failing} at or above --fail-on {args.fail_on}" if failing != findings else "")
            + "\n"
        )
    return 1 if failing or problems or fix_problems else 0
