"""The rule table is the single source: messages, examples, README table and rule pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from rebalance_lint import check_source
from rebalance_lint.docs import drift, readme_table, rule_page
from rebalance_lint.rule_table import MIGRATE, RULES, Rule

ROOT = Path(__file__).resolve().parents[2]


def test_thirteen_codes_in_order() -> None:
    codes = [rule.code for rule in RULES]
    assert codes == [f"KRB1{n:02d}" for n in range(1, 11)] + ["KRB201", "KRB202", "KRB203"]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_message_ends_with_the_fix(rule: Rule) -> None:
    assert rule.template.endswith(MIGRATE) == rule.fixable == rule.code.startswith("KRB2")
    assert "\n" not in rule.template


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_examples_behave_as_documented(rule: Rule) -> None:
    bad = {f.code for f in check_source(rule.invalid.encode(), "invalid.py").findings}
    good = {f.code for f in check_source(rule.valid.encode(), "valid.py").findings}
    assert rule.code in bad
    assert rule.code not in good


def test_generated_docs_match_the_table() -> None:
    assert drift(ROOT) == [], "run: python -m rebalance_lint.docs --write"


def test_generated_docs_contain_each_rule() -> None:
    table = readme_table()
    for rule in RULES:
        assert f"[{rule.code}](docs/rules/{rule.code}.md)" in table
        page = rule_page(rule)
        for section in ("## Why", "## Bad", "## Good", "## Fix"):
            assert section in page
        assert rule.invalid in page and rule.valid in page


def test_drift_is_detected(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "x\n<!-- rules:start -->\nstale\n<!-- rules:end -->\n", encoding="utf-8"
    )
    stale = drift(tmp_path)
    assert tmp_path / "README.md" in stale
    assert len(stale) == len(RULES) + 1
