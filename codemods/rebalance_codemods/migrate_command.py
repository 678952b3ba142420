"""``rebalance-guard migrate PATH... [--diff | --check] [-j N]``.

A directory is migrated as one repository: a listener class defined in one module and
created and registered in others is migrated with them, or not at all (a file given on its
own is migrated as it stands).

Besides the migration (what KRB201-KRB203 find), it applies the safe auto-fixes of
``rebalance-guard check --fix`` (KRB103, KRB104) to each migrated file, planned from the
migrated code of that file (:func:`rebalance_codemods.fixing.with_fixes`); a KRB103/KRB104
finding without a safe fix is printed as a manual site
(``path:line: manual: KRB104 not fixed: ...``).

Exit status: 0 done (or, with ``--check``, nothing to migrate); 1 when ``--check`` finds
pending changes or any file could not be read, decoded, parsed or migrated; 2 for usage
errors. Shapes the codemod refuses are printed as ``path:line: manual: reason`` and do not
change the status: they are work for a human, not an error.
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import os
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rebalance_lint.api import mentions_kafka
from rebalance_lint.reading import (
    Unreadable,
    iter_python_files,
    read_source,
    repository_files,
    repository_parts,
)
from rebalance_lint.source import Unparsable, decode

from rebalance_codemods.api import ManualSite, MigrationResult, migrate_source
from rebalance_codemods.files import write_atomic
from rebalance_codemods.fixing import with_fixes
from rebalance_codemods.repository import FILES_PER_WORKER, iter_repository

Mode = Literal["write", "diff", "check"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one file (small, so it crosses process boundaries cheaply)."""

    path: str
    changed: bool = False
    skipped: bool = False
    sites: int = 0
    fixed: int = 0
    manual: tuple[ManualSite, ...] = ()
    error: str = ""
    diff: str = ""


def migrate_file(path: str, mode: Mode) -> Outcome:
    """Read, migrate and (in write mode) atomically replace one file."""
    source = read_source(path)
    if isinstance(source, Unreadable):
        return Outcome(path, error=f"cannot read: {source.status}: {source.reason}")
    # planning tells whether a file would change; --check skips the rewrite
    result = migrate_source(source, path, plan_only=mode == "check")
    return _outcome(path, source, result, mode, result.migrated_sites > 0)


def _outcome(
    path: str, source: bytes, result: MigrationResult, mode: Mode, pending: bool
) -> Outcome:
    """Report (and in write mode atomically write) one file's result, the auto-fixes of what
    the migration leaves applied first; ``pending``: the plan changes the file (what
    ``--check`` reports)."""
    result = with_fixes(source, path, result, plan_only=mode == "check")
    if result.status != "ok":
        return Outcome(path, error=f"{result.status}: {result.reason}")
    new = result.new_source
    changed = new is not None or (mode == "check" and (pending or result.fixed > 0))
    outcome = Outcome(path, changed=changed, skipped=result.skipped, sites=result.migrated_sites,
                      fixed=result.fixed, manual=result.manual)  # fmt: skip
    if new is None:
        return outcome
    if mode == "write":
        try:
            write_atomic(Path(path), new)
        except OSError as exc:
            return Outcome(path, error=f"cannot write: {exc.strerror or exc}", manual=result.manual)
    elif mode == "diff":
        return Outcome(path, changed=True, sites=result.migrated_sites, fixed=result.fixed,
                       manual=result.manual, diff=_diff(path, source, new))  # fmt: skip
    return outcome


def _directory_outcomes(root: Path, mode: Mode, jobs: int) -> Iterable[Outcome]:
    """A directory as one repository (a directory of repositories as each of them, as
    ``check`` does: :func:`rebalance_lint.reading.repository_parts`): a listener group's
    files are written once all of them are rewritten
    (:func:`rebalance_codemods.repository.iter_repository`)."""
    for named in repository_parts(root) or [repository_files(root)]:
        sources: dict[str, bytes] = {}
        for name, path in named.items():
            source = read_source(path)
            if isinstance(source, Unreadable):
                yield Outcome(str(path), error=f"cannot read: {source.status}: {source.reason}")
            else:
                sources[name] = source
        for name, result, pending in iter_repository(sources, plan_only=mode == "check", jobs=jobs):
            yield _outcome(str(named[name]), sources[name], result, mode, pending)


def _diff(path: str, old: bytes, new: bytes) -> str:
    def lines(data: bytes) -> list[str]:
        text = decode(data)
        return [] if isinstance(text, Unparsable) else text.splitlines(keepends=True)

    return "".join(
        difflib.unified_diff(
            lines(old), lines(new), f"a/{path.lstrip('/')}", f"b/{path.lstrip('/')}"
        )
    )


def _outcomes(paths: list[str], mode: Mode, jobs: int) -> Iterable[Outcome]:
    """Run in-process for one job; otherwise the cheap byte check stays here and only files
    that may involve Kafka go to the worker processes (if there are enough of them)."""
    if jobs <= 1:
        yield from (migrate_file(path, mode) for path in paths)
        return
    candidates: list[str] = []
    for path in paths:
        source = read_source(path)
        if isinstance(source, Unreadable) or mentions_kafka(source):  # workers report errors
            candidates.append(path)
        else:
            yield Outcome(path, skipped=True)
    workers = min(jobs, len(candidates) // FILES_PER_WORKER)
    if workers <= 1:  # a pool costs more than it saves for a handful of files
        yield from (migrate_file(path, mode) for path in candidates)
        return
    chunk = max(1, len(candidates) // (workers * 4))  # small chunks: a slow worker gets fewer
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(migrate_file, candidates, [mode] * len(candidates), chunksize=chunk)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rebalance-guard migrate",
        description="Rewrite what KRB201-KRB203 find into rebalance_guard code, and apply the "
        "safe KRB103/KRB104 auto-fixes.",
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--diff", action="store_true", help="print a unified diff, write nothing")
    output.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when some file would change")  # fmt: skip
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="worker processes (default: number of CPUs)")  # fmt: skip
    return parser


def run(argv: Sequence[str]) -> int:
    """Entry point of the ``migrate`` subcommand; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(list(argv))
    if args.jobs < 1:
        parser.error("-j/--jobs must be at least 1")
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")
    mode: Mode = "diff" if args.diff else "check" if args.check else "write"
    paths = [str(p) for given in args.paths for p in iter_python_files(given)]
    files = [str(p) for given in args.paths if not given.is_dir() for p in iter_python_files(given)]
    outcomes = itertools.chain(
        _outcomes(files, mode, args.jobs),
        *(_directory_outcomes(given, mode, args.jobs) for given in args.paths if given.is_dir()),
    )
    changed = errors = skipped = manual = fixed = 0
    for outcome in outcomes:
        for site in outcome.manual:
            print(f"{outcome.path}:{site.line}: manual: {site.reason}")
        manual += len(outcome.manual)
        skipped += outcome.skipped
        if outcome.error:
            errors += 1
            print(f"{outcome.path}: error: {outcome.error}", file=sys.stderr)
        fixed += outcome.fixed
        if outcome.changed:
            changed += 1
            if mode == "diff":
                sys.stdout.write(outcome.diff)
            else:
                verb = "would migrate" if mode == "check" else "migrated"
                fixes = f", {outcome.fixed} fix(es)" if outcome.fixed else ""
                print(f"{verb} {outcome.path} ({outcome.sites} site(s){fixes})")
    verb = "would be migrated" if mode != "write" else "migrated"
    print(
        f"{len(paths)} file(s): {changed} {verb}, {skipped} skipped without Kafka, "
        f"{manual} manual site(s), {errors} error(s); {fixed} KRB103/KRB104 finding(s) fixed",
        file=sys.stderr,
    )
    return 1 if errors or (mode == "check" and changed) else 0
