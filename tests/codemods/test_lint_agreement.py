"""The codemods rewrite what KRB201-KRB203 find: after a run, a KRB2xx finding is left only
where the codemod reported a manual site, and a file with KRB2xx findings is never silently
left alone."""

from __future__ import annotations

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

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
