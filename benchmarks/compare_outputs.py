"""Prove a refactoring changed no output: findings and migrations, byte for byte.

Usage::

    python benchmarks/compare_outputs.py collect DIR      # inputs the codemod tests feed in
    python benchmarks/compare_outputs.py dump OUT.json [--inputs DIR] [--no-site]
        [--corpus DIR]... [--repositories DIR]...
    python benchmarks/compare_outputs.py diff BEFORE.json AFTER.json

``dump`` runs ``check_source`` and ``migrate_source`` (full and ``plan_only``) on every file of
``examples/``, ``tests/lint/fixtures``, the sources the codemod tests use (``collect`` records
them by running ``tests/codemods`` with this module as a pytest plugin) and every file of the
standard library and site-packages that mentions Kafka, and writes every finding, every
migrated byte (as text, surrogate-escaped) and every manual reason to one JSON file, with
the auto-fixes too (``migrate_source(..., fixes=True)``). ``--corpus DIR``: every ``*.py``
under DIR as well, each file on its own; ``--repositories DIR``: every immediate
subdirectory of DIR as one repository (``check_repository`` and ``migrate_repository``, as
``rebalance-guard check DIR`` and ``migrate DIR`` see it), its loose files on their own. To dump
an older tree, put its packages first on ``PYTHONPATH`` (the editable install's finder runs
after ``sys.path``)::

    git worktree add /tmp/before HEAD
    PYTHONPATH=/tmp/before/stubs:/tmp/before/lint_rules:/tmp/before/codemods \\
        python benchmarks/compare_outputs.py dump /tmp/before.json --inputs /tmp/inputs

``diff`` prints every file whose record differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RECORD_ENV = "REBALANCE_COMPARE_RECORD_DIR"


def _corpus(inputs: Path | None, site: bool = True) -> list[tuple[str, Path]]:
    """(stable label, path) for every file to compare."""
    out: list[tuple[str, Path]] = []
    for base in (ROOT / "examples", ROOT / "tests" / "lint" / "fixtures"):
        out += [(str(p.relative_to(ROOT)), p) for p in sorted(base.rglob("*.py"))]
    if inputs is not None:
        out += [(f"inputs/{p.name}", p) for p in sorted(inputs.glob("*.py"))]
    from rebalance_lint.api import mentions_kafka

    roots = [] if not site else roots_of_python()
    for root in roots:
        for directory, _dirs, names in os.walk(root):
            for name in sorted(names):
                path = Path(directory, name)
                if not name.endswith(".py") or "rebalance" in str(path):
                    continue
                try:
                    if mentions_kafka(path.read_bytes()):
                        out.append((f"site/{path.relative_to(root)}", path))
                except OSError:
                    continue
    return out


def roots_of_python() -> list[Path]:
    return sorted({Path(sysconfig.get_paths()[k]) for k in ("stdlib", "purelib", "platlib")})


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogateescape")


def record(source: bytes, label: str) -> dict[str, Any]:
    from rebalance_codemods.api import migrate_source
    from rebalance_lint import check_source

    report = check_source(source, label)
    full = migrate_source(source, label)
    planned = migrate_source(source, label, plan_only=True)
    fixed = migrate_source(source, label, fixes=True)
    return {
        "check": [report.status, report.reason, report.skipped,
                  [[f.line, f.col, f.code, f.message, f.fixable] for f in report.findings]],
        "migrate": [full.status, full.reason, full.skipped, full.migrated_sites,
                    [[m.line, m.reason] for m in full.manual], _text(full.new_source)],
        "plan_only": [planned.status, planned.migrated_sites,
                      [[m.line, m.reason] for m in planned.manual]],
        "fixes": [fixed.status, fixed.fixed, fixed.migrated_sites,
                  [[m.line, m.reason] for m in fixed.manual], _text(fixed.new_source)],
    }  # fmt: skip


def repository_records(root: Path, label: str) -> dict[str, dict[str, Any]]:
    """One repository's records: its findings and its migration in repository mode."""
    from rebalance_codemods.repository import migrate_repository
    from rebalance_lint import check_repository

    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    reports = check_repository(files)
    done = migrate_repository(files)
    planned = migrate_repository(files, plan_only=True)
    out: dict[str, dict[str, Any]] = {}
    for path in files:
        report, full, plan = reports[path], done.results[path], planned.results[path]
        out[f"{label}/{path}"] = {
            "check": [report.status, report.reason, report.skipped,
                      [[f.line, f.col, f.code, f.message, f.fixable] for f in report.findings]],
            "migrate": [full.status, full.reason, full.skipped, full.migrated_sites,
                        [[m.line, m.reason] for m in full.manual], _text(full.new_source)],
            "plan_only": [plan.status, plan.migrated_sites,
                          [[m.line, m.reason] for m in plan.manual], path in planned.pending],
        }  # fmt: skip
    return out


def _repositories(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_dir() and not p.name.startswith("."))


def dump(
    out: Path,
    inputs: Path | None,
    site: bool,
    corpora: Sequence[Path] = (),
    repositories: Sequence[Path] = (),
) -> None:
    corpus = _corpus(inputs, site)
    for directory in corpora:
        corpus += [
            (f"corpus/{directory.name}/{p.relative_to(directory)}", p)
            for p in sorted(directory.rglob("*.py"))
        ]
    records = {label: record(path.read_bytes(), label) for label, path in corpus}
    for directory in repositories:
        for loose in sorted(directory.glob("*.py")):
            label = f"repo/{directory.name}/{loose.name}"
            records[label] = record(loose.read_bytes(), label)
        for root in _repositories(directory):
            records.update(repository_records(root, f"repo/{directory.name}/{root.name}"))
    out.write_text(json.dumps(records, indent=1, sort_keys=True))
    migrated = sum(1 for r in records.values() if r["migrate"][5] is not None)
    print(f"{len(records)} files, {migrated} migrated -> {out}")


def diff(before: Path, after: Path) -> int:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    bad = 0
    for label in sorted(old.keys() | new.keys()):
        if old.get(label) != new.get(label):
            bad += 1
            print(f"DIFFERS {label}")
            for part in ("check", "migrate", "plan_only"):
                a, b = (old.get(label) or {}).get(part), (new.get(label) or {}).get(part)
                if a != b:
                    print(f"  {part}:\n    before {json.dumps(a)[:1500]}")
                    print(f"    after  {json.dumps(b)[:1500]}")
    print(f"{len(old)} before, {len(new)} after, {bad} differ")
    return 1 if bad else 0


def collect(directory: Path) -> None:
    """Run the codemod tests with this module as a plugin that saves every input source."""
    directory.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, **{RECORD_ENV: str(directory)})
    paths = [str(ROOT / "benchmarks"), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "compare_outputs", "tests/codemods",
           "-k", "not examples and not cli"]  # fmt: skip
    subprocess.run(cmd, cwd=ROOT, env=env, check=False)
    print(f"{len(list(directory.glob('*.py')))} distinct inputs in {directory}")


def _save(source: bytes) -> None:
    directory = Path(os.environ[RECORD_ENV])
    (directory / f"{hashlib.sha256(source).hexdigest()[:16]}.py").write_bytes(source)


_PATCHED: dict[str, Any] = {}


def pytest_configure(config: Any) -> None:
    """Plugin hook (``collect``): record every source the codemods are given."""
    if RECORD_ENV not in os.environ or _PATCHED:
        return
    import rebalance_codemods.api as api
    from libcst.codemod import Codemod

    original_migrate = api.migrate_source
    original_transform = Codemod.transform_module

    def migrate_source(source: bytes, *args: Any, **kwargs: Any) -> Any:
        _save(source)
        return original_migrate(source, *args, **kwargs)

    def transform_module(self: Any, tree: Any) -> Any:
        _save(tree.bytes)
        return original_transform(self, tree)

    _PATCHED.update(original=original_migrate, wrapper=migrate_source)
    api.migrate_source = migrate_source  # type: ignore[assignment]
    Codemod.transform_module = transform_module  # type: ignore[method-assign]


def pytest_collection_finish(session: Any) -> None:
    """Test modules imported ``migrate_source`` by name: point them at the recorder too."""
    for name, module in list(sys.modules.items()):
        if name.startswith("tests.") and getattr(module, "migrate_source", None) is _PATCHED.get(
            "original"
        ):
            module.migrate_source = _PATCHED["wrapper"]  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("directory", type=Path)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--inputs", type=Path)
    d.add_argument("--no-site", action="store_true", help="leave out the site-packages sample")
    d.add_argument("--corpus", type=Path, action="append", default=[], help="each file alone")
    d.add_argument(
        "--repositories", type=Path, action="append", default=[], help="subdirectories as repos"
    )
    f = sub.add_parser("diff")
    f.add_argument("before", type=Path)
    f.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "collect":
        collect(args.directory)
        return 0
    if args.command == "dump":
        dump(args.out, args.inputs, not args.no_site, args.corpus, args.repositories)
        return 0
    return diff(args.before, args.after)


if __name__ == "__main__":
    raise SystemExit(main())
