"""Shapes from real repositories (/work/shared/REAL_WORLD.md), migrated: each ``fixtures/*.py``
with a ``fixtures/migrated/`` twin migrates to exactly that file (which then migrates to itself
and type-checks: tests/codemods/test_type_checks.py); ``refused_*.py`` stay byte-identical and
report every site with the next step."""

from __future__ import annotations

from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source

FIXTURES = Path(__file__).parent / "fixtures"
MIGRATED = sorted((FIXTURES / "migrated").glob("*.py"))
REFUSED = sorted(FIXTURES.glob("refused_*.py"))


@pytest.mark.parametrize("after", MIGRATED, ids=lambda p: p.name)
def test_fixture_migrates_to_its_twin_and_stays_there(after: Path) -> None:
    before = FIXTURES / after.name
    result = migrate_source(before.read_bytes(), before.name)
    assert result.status == "ok" and not result.manual, result
    assert result.new_source == after.read_bytes()
    assert migrate_source(after.read_bytes(), after.name).new_source is None


def test_every_fixture_has_a_twin_or_is_refused() -> None:
    names = {p.name for p in MIGRATED} | {p.name for p in REFUSED}
    assert names == {p.name for p in FIXTURES.glob("*.py")}


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.name)
def test_refused_fixture_is_untouched_and_every_site_reported(path: Path) -> None:
    result = migrate_source(path.read_bytes(), path.name)
    assert result.status == "ok" and result.new_source is None
    registrations = path.read_text().count(".subscribe(")
    assert len(result.manual) == registrations, result.manual
    next_step = ("first", "by hand", "instead", "then run migrate again")
    assert all(any(w in m.reason for w in next_step) for m in result.manual), result.manual
