"""Every fixture file yields exactly the findings its trailing ``# KRBnnn: col`` comments list.

Positive and negative cases live side by side: a line without a comment must stay quiet.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rebalance_lint import check_source
from rebalance_lint.analysis.fixes import FIX_CODES

from tests.lint.expectations import FIXTURES, expected_findings, expected_kinds

FIXTURE_FILES = sorted(FIXTURES.glob("*.py"))


def test_every_code_has_fixtures() -> None:
    from rebalance_lint.rule_table import RULES

    expected: set[str] = set()
    for path in FIXTURE_FILES:
        expected |= {code for _, _, code in expected_findings(path.read_bytes())}
    assert expected == {rule.code for rule in RULES}


def test_every_kind_of_every_rule_has_a_fixture() -> None:
    """Each kind a rule can give is shown by a fixture line that expects it (``# KRBnnn: col
    kind``), so a rule whose cases drift to another kind fails here."""
    from rebalance_lint.rule_table import RULES

    shown: set[tuple[str, str]] = set()
    for path in FIXTURE_FILES:
        shown |= {(code, kind) for (_, _, code), kind in expected_kinds(path.read_bytes()).items()}
    wanted = {(rule.code, case.kind) for rule in RULES for case in rule.kinds.values()}
    assert sorted(wanted - shown) == []


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.name for p in FIXTURE_FILES])
def test_fixture(path: Path) -> None:
    source = path.read_bytes()
    report = check_source(source, str(path))
    assert report.status == "ok", report.reason
    actual = {(f.line, f.col, f.code) for f in report.findings}
    expected = expected_findings(source)
    assert sorted(actual - expected) == [], "unexpected findings"
    assert sorted(expected - actual) == [], "missing findings"
    kinds = {(f.line, f.col, f.code): f.kind for f in report.findings}
    for where, kind in expected_kinds(source).items():
        assert kinds[where] == kind, f"line {where[0]}: {where[2]} is {kinds[where]}, not {kind}"
    for finding in report.findings:
        assert "\n" not in finding.message
        # which KRB2xx sites are fixable is the migration plan's call, which KRB103/KRB104
        # findings the auto-fix planner's (test_lint_agreement, test_fixes)
        assert not finding.fixable or finding.code.startswith("KRB2") or finding.code in FIX_CODES
