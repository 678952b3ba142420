"""The KRB103/KRB104 auto-fixes (``rebalance-guard check --fix``), fixture style.

Each ``fixtures/fixes/*.py`` with a ``fixtures/fixes/fixed/`` twin is rewritten to exactly that
file, which then stays as it is; ``refused_*.py`` stay byte-identical. Every KRB103/KRB104
finding a result still has is one the planner refused, and the reason is given at its line: a
trailing ``KRBnnn not fixed: <words>`` comment on that line says which words it must contain.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods.api import fix_source, migrate_source
from rebalance_lint import check_source
from rebalance_lint.analysis.fixes import FIX_CODES
from rebalance_lint.rules.rule import MIGRATE

FIXES = Path(__file__).parent / "fixtures" / "fixes"
BEFORE = sorted(FIXES.glob("*.py"))
FIXED = sorted((FIXES / "fixed").glob("*.py"))
EXPECTED = re.compile(r"(KRB\d{3}) not fixed: (.*?)(?=\s+KRB\d{3} not fixed:|$)")


def _expected_reasons(source: bytes) -> dict[tuple[int, str], str]:
    """(line, code) -> the words the reason must contain, from trailing comments."""
    out: dict[tuple[int, str], str] = {}
    for number, line in enumerate(source.decode().splitlines(), start=1):
        _, hash_, comment = line.partition("#")
        for code, words in EXPECTED.findall(comment if hash_ else ""):
            out[number, code] = words.strip()
    return out


def test_every_fixture_has_a_twin_or_is_refused() -> None:
    refused = {p.name for p in BEFORE if p.name.startswith("refused_")}
    assert {p.name for p in FIXED} | refused == {p.name for p in BEFORE}
    assert refused and FIXED


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_fixture_is_fixed_to_its_twin_once(before: Path) -> None:
    source = before.read_bytes()
    twin = FIXES / "fixed" / before.name
    expected = twin.read_bytes() if twin.exists() else source
    result = fix_source(source, before.name)
    assert result.status == "ok", result.reason
    assert (result.new_source or source) == expected
    again = fix_source(expected, before.name)
    assert again.status == "ok" and again.new_source is None, "not idempotent"
    assert again.fixed == 0


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_what_is_fixable_is_fixed_and_the_rest_says_why(before: Path) -> None:
    source = before.read_bytes()
    result = fix_source(source, before.name)
    after = result.new_source or source
    findings = check_source(source, before.name).findings
    fixable = [f for f in findings if f.code in FIX_CODES and f.fixable]
    kept = Counter(f.code for f in findings if f.code in FIX_CODES and not f.fixable)
    remaining = [f for f in check_source(after, before.name).findings if f.code in FIX_CODES]
    assert result.fixed == len(fixable)
    assert Counter(f.code for f in remaining) == kept
    assert all(not f.fixable for f in remaining)
    for finding in findings:
        if finding.code in FIX_CODES:
            assert finding.message.endswith(MIGRATE) == finding.fixable
    # each remaining finding is a manual site with its reason, at its line in the result
    reasons = {(m.line, m.reason.split(" ", 1)[0]): m.reason for m in result.manual}
    assert {(f.line, f.code) for f in remaining} == set(reasons)
    for (_line, code), reason in reasons.items():
        assert reason.startswith(f"{code} not fixed: "), reason
    expected = _expected_reasons(after)
    assert set(expected) == set(reasons), "every refusal has its expected reason, and only those"
    for key, words in expected.items():
        assert words in reasons[key], (key, reasons[key])


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_a_fix_changes_no_other_finding(before: Path) -> None:
    source = before.read_bytes()
    after = fix_source(source, before.name).new_source or source

    def others(data: bytes) -> Counter[str]:
        return Counter(f.code for f in check_source(data).findings if f.code not in FIX_CODES)

    assert others(after) == others(source)


@pytest.mark.parametrize("before", BEFORE, ids=lambda p: p.name)
def test_migrate_applies_the_fixes_after_migrating_and_is_idempotent(before: Path) -> None:
    """``migrate`` = migration, then the fixes judged on the migrated code; both compose."""
    source = before.read_bytes()
    result = migrate_source(source, before.name, fixes=True)
    assert result.status == "ok", result.reason
    after = result.new_source or source
    assert migrate_source(after, before.name, fixes=True).new_source is None, "not idempotent"
    remaining = [f for f in check_source(after, before.name).findings if f.code in FIX_CODES]
    assert not [f for f in remaining if f.fixable]
    refused = {
        (m.line, m.reason.split(" ", 1)[0]) for m in result.manual if " not fixed: " in m.reason
    }
    assert {(f.line, f.code) for f in remaining} == refused
    # without fixes, migrate_source is the migration alone (the scan's dry run)
    assert migrate_source(source, before.name).fixed == 0


RAW_CONFLUENT_REVOKE = b"""\
from confluent_kafka import Consumer


def on_revoke(consumer, partitions):
    consumer.commit(%s)


c = Consumer({"group.id": "g"})
c.subscribe(["orders"], on_revoke=on_revoke)
"""
LOST_HANDLER = b"    def on_partitions_lost(self, partitions, consumer: RebalanceConsumer):\n"


def test_migration_first_makes_a_raw_confluent_commit_the_views() -> None:
    """--fix refuses a bare confluent commit() (_NO_OFFSET) but gives the raw consumer's
    revocation an on_lost= (its commit fails on loss); migrate moves the commit onto the view,
    where commit() is synchronous already and commits nothing for lost partitions: no KRB103,
    no KRB104, so no lost handler either."""
    source = RAW_CONFLUENT_REVOKE % b""
    fixed = fix_source(source)
    assert fixed.new_source is not None and b"on_lost=on_lost" in fixed.new_source
    assert [m.reason.split(":")[0] for m in fixed.manual] == ["KRB103 not fixed"]
    migrated = migrate_source(source, fixes=True)
    assert migrated.new_source is not None and not migrated.manual
    assert migrated.migrated_sites == 1 and migrated.fixed == 0
    assert b"    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):\n" in (
        migrated.new_source
    )
    assert b"on_partitions_lost" not in migrated.new_source
    assert not check_source(migrated.new_source).findings


def test_migration_first_then_the_lost_handler_for_explicit_offsets() -> None:
    """With explicit offsets --fix makes the raw commit synchronous together with its on_lost=;
    migrate moves it onto the view, where an explicit commit of lost partitions still fails,
    and gives the revocation its lost handler."""
    source = RAW_CONFLUENT_REVOKE % b"offsets=partitions"
    fixed = fix_source(source)
    assert fixed.new_source is not None and not fixed.manual and fixed.fixed == 2
    assert b"on_lost=on_lost" in fixed.new_source
    assert b"consumer.commit(offsets=partitions, asynchronous=False)" in fixed.new_source
    migrated = migrate_source(source, fixes=True)
    assert migrated.new_source is not None and not migrated.manual
    assert migrated.migrated_sites == 1 and migrated.fixed == 1
    assert LOST_HANDLER in migrated.new_source
    assert not check_source(migrated.new_source).findings


def test_plan_only_says_whether_a_fix_would_change_the_file() -> None:
    source = (FIXES / "kafka_python_view.py").read_bytes()
    planned = migrate_source(source, "x.py", plan_only=True, fixes=True)
    assert planned.new_source is None and planned.migrated_sites == 0
    assert planned.fixed == fix_source(source).fixed > 0


def test_the_lost_twin_takes_a_name_nothing_uses() -> None:
    source = b"""\
from confluent_kafka import Consumer

on_lost = on_lost_2 = None


def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)


Consumer({}).subscribe(["t"], on_revoke=on_revoke)
"""
    result = fix_source(source)
    assert result.new_source is not None
    assert b"def on_lost_3(consumer, partitions):" in result.new_source
    assert b"on_revoke=on_revoke, on_lost=on_lost_3)" in result.new_source


def test_an_on_lost_none_is_left_to_krb113_not_replaced() -> None:
    """``on_lost=None`` makes subscribe() raise TypeError (KRB113): no revocation ever runs on
    loss, so there is no KRB104 and --fix must not turn the TypeError into a lost handler."""
    source = b"""\
from confluent_kafka import Consumer


def on_revoke(consumer, partitions):
    consumer.commit(asynchronous=False)


Consumer({}).subscribe(["t"], on_revoke=on_revoke, on_lost=None)
Consumer({}).subscribe(["t"], lambda c, p: None, on_revoke, None)
"""
    assert fix_source(source).new_source is None
    findings = check_source(source, "app.py").findings
    assert {finding.code for finding in findings} == {"KRB113", "KRB203"}


def test_bad_input_is_a_status() -> None:
    assert fix_source(b"import kafka\ndef (:\n").status == "syntax_error"
    assert fix_source(b"print('no kafka here')\n").new_source is None
