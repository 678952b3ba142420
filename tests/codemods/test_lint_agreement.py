"""The codemods rewrite what KRB201-KRB203 find: after a run, a KRB2xx finding is left only
where the codemod reported a manual site, and a file with KRB2xx findings is never silently
left alone. Likewise the auto-fixes (``check --fix``, and ``migrate``) rewrite exactly the
KRB103/KRB104 findings marked fixable, single-file and in repository mode."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods.api import fix_source, migrate_source
from rebalance_codemods.fixing import apply_fixes
from rebalance_lint import check_repository, check_source
from rebalance_lint.analysis.fixes import FIX_CODES
from rebalance_lint.check_command import fix_paths

from tests.codemods.examples import ROOT
from tests.codemods.test_properties import SOURCES

MIGRATION_CODES = {"KRB201", "KRB202", "KRB203"}


def _migration_findings(source: bytes) -> list[tuple[int, str]]:
    report = check_source(source, "agreement.py")
    return [(f.line, f.code) for f in report.findings if f.code in MIGRATION_CODES]


@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_krb2xx_left_only_where_a_manual_site_is_reported(source: str) -> None:
    before = _migration_findings(source.encode())
    result = migrate_source(source.encode(), "agreement.py")
    after = _migration_findings(result.new_source or source.encode())
    if after:
        assert result.manual, f"KRB2xx still fires {after} but nothing was reported as manual"
    if before and not result.manual:
        assert result.new_source is not None and not after


LINT_FIXTURES = sorted((ROOT / "tests" / "lint" / "fixtures").glob("*.py"))


@pytest.mark.parametrize("path", LINT_FIXTURES, ids=lambda p: p.name)
def test_lint_fixtures_migrate_consistently(path: Path) -> None:
    """The lint rules' own real-world shapes: a status, the agreement above, idempotence."""
    source = path.read_bytes()
    result = migrate_source(source, path.name)
    assert result.status == "ok", result.reason
    after = _migration_findings(result.new_source or source)
    if after:
        assert result.manual, f"KRB2xx still fires {after} but nothing was reported as manual"
    if result.new_source is not None:
        assert migrate_source(result.new_source, path.name).new_source is None


EXAMPLES = sorted((ROOT / "examples").rglob("*.py"))
CODEMOD_FIXTURES = sorted((ROOT / "tests" / "codemods" / "fixtures").rglob("*.py"))


@pytest.mark.parametrize(
    "path", LINT_FIXTURES + EXAMPLES + CODEMOD_FIXTURES, ids=lambda p: str(p.relative_to(ROOT))
)
def test_fixable_exactly_where_migrate_rewrites(path: Path) -> None:
    """One decision: a KRB2xx finding is fixable exactly when ``migrate`` plans its site, so a
    fixable finding is gone after ``migrate`` and a file changes exactly when one is fixable.

    A finding that is not fixable may still disappear with a neighbouring rewrite: a consumer
    injected through a keyword-only parameter is kept (KRB201, not fixable) but once its class
    is a rebalance_guard listener the rule no longer reports the injection."""
    source = path.read_bytes()
    findings = [f for f in check_source(source, path.name).findings if f.code in MIGRATION_CODES]
    fixable = Counter(f.code for f in findings if f.fixable)
    kept = Counter(f.code for f in findings if not f.fixable)
    for finding in findings:
        assert finding.message.endswith("(fixable: rebalance-guard migrate)") == finding.fixable
    result = migrate_source(source, path.name)
    assert result.status == "ok", result.reason
    after = Counter(f.code for f in check_source(result.new_source or source, path.name).findings
                    if f.code in MIGRATION_CODES)  # fmt: skip
    assert all(after[code] <= kept[code] for code in after), (
        f"fixable {dict(fixable)}, kept {dict(kept)}, after {dict(after)}"
    )
    assert (result.new_source is not None) == bool(fixable)


def _fix_findings(source: bytes, name: str) -> list[tuple[str, bool]]:
    return [(f.code, f.fixable) for f in check_source(source, name).findings if f.code in FIX_CODES]


ALL_FILES = LINT_FIXTURES + EXAMPLES + CODEMOD_FIXTURES


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_krb103_krb104_fixable_exactly_where_fix_rewrites(path: Path) -> None:
    """One decision: a KRB103/KRB104 finding is fixable exactly when ``check --fix`` rewrites
    it: every fixable one is gone afterwards, every other one is still there, the file changes
    exactly when one is fixable, and a second run changes nothing."""
    source = path.read_bytes()
    findings = _fix_findings(source, path.name)
    fixable = Counter(code for code, ok in findings if ok)
    kept = Counter(code for code, ok in findings if not ok)
    result = fix_source(source, path.name)
    assert result.status == "ok", result.reason
    after = Counter(code for code, _ in _fix_findings(result.new_source or source, path.name))
    assert after == kept, f"fixable {dict(fixable)}, kept {dict(kept)}, after {dict(after)}"
    assert (result.new_source is not None) == bool(fixable)
    assert result.fixed == sum(fixable.values())
    if result.new_source is not None:
        assert fix_source(result.new_source, path.name).new_source is None


@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_migrate_with_fixes_changes_a_file_exactly_when_something_is_fixable(source: str) -> None:
    data = source.encode()
    fixable = [f for f in check_source(data, "agreement.py").findings if f.fixable]
    result = migrate_source(data, "agreement.py", fixes=True)
    assert result.status == "ok", result.reason
    assert (result.new_source is not None) == bool(fixable)
    after = check_source(result.new_source or data, "agreement.py").findings
    assert not [f for f in after if f.code in FIX_CODES and f.fixable]
    if result.new_source is not None:
        assert migrate_source(result.new_source, "agreement.py", fixes=True).new_source is None


REPOSITORIES = sorted(
    p for p in (ROOT / "tests" / "lint" / "fixtures").glob("repo_*") if p.is_dir()
)


@pytest.mark.parametrize("root", REPOSITORIES, ids=lambda p: p.name)
def test_repository_mode_fixes_what_repository_mode_calls_fixable(
    root: Path, tmp_path: Path
) -> None:
    """``check --fix DIR`` plans from the repository-mode analysis, as ``check DIR`` reports."""
    copy = tmp_path / root.name
    shutil.copytree(root, copy)

    def fix_counts(directory: Path) -> tuple[Counter[str], Counter[str]]:
        files = {
            p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*.py")
        }
        found = [f for r in check_repository(files).values() for f in r.findings]
        return (
            Counter(f.code for f in found if f.code in FIX_CODES and f.fixable),
            Counter(f.code for f in found if f.code in FIX_CODES and not f.fixable),
        )

    fixable, kept = fix_counts(copy)
    before = {p: p.read_bytes() for p in copy.rglob("*.py")}
    fixed, files, _refused, failed = fix_paths([str(copy)], lambda f: True, apply_fixes)
    assert not failed
    assert fixed == sum(fixable.values())
    changed = {p for p, data in before.items() if p.read_bytes() != data}
    assert len(changed) == files and bool(changed) == bool(fixable)
    after_fixable, after_kept = fix_counts(copy)
    assert not after_fixable and after_kept == kept
    assert fix_paths([str(copy)], lambda f: True, apply_fixes)[:2] == (0, 0)
