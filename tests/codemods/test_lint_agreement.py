"""The codemods rewrite what KRB201-KRB203 find: after a run, a KRB2xx finding is left only
where the codemod reported a manual site, and a file with KRB2xx findings is never silently
left alone."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

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
