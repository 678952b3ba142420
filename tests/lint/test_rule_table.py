"""The rules are the single source: messages, examples, README table and rule pages.

Each rule lives with its checks in its family module under ``rebalance_lint.rules``; the
registry collects them, so these tests cover whatever rules exist.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path
from string import Formatter

import pytest
import rebalance_lint.rules as rules_package
from rebalance_lint import check_source
from rebalance_lint.analysis.fixes import FIX_CODES
from rebalance_lint.docs import drift, readme_table, rule_page
from rebalance_lint.rule_table import CALLBACK_CHECKS, EFFECT_CHECKS, FILE_CHECKS, RULES
from rebalance_lint.rules.rule import MIGRATE, Rule

ROOT = Path(__file__).resolve().parents[2]


def test_seventeen_codes_in_order() -> None:
    codes = [rule.code for rule in RULES]
    assert codes == [f"KRB1{n:02d}" for n in range(1, 15)] + ["KRB201", "KRB202", "KRB203"]


def test_every_rule_states_its_kinds_with_reasons() -> None:
    """Each case names a kind, when it applies and why; the migration codes are advice only."""
    for rule in RULES:
        assert rule.kinds, rule.code
        for case in rule.kinds.values():
            assert case.kind in ("bug", "risk", "advice") and case.when and case.why, rule.code
        if rule.is_migration_advice:
            assert {case.kind for case in rule.kinds.values()} == {"advice"}, rule.code


def test_a_hit_must_name_its_case_when_the_rule_has_several() -> None:
    import ast

    from rebalance_lint.rule_table import BY_CODE

    node = ast.parse("x").body[0]
    assert BY_CODE["KRB103"].hit(node).kind == "bug"
    assert BY_CODE["KRB110"].hit(node, case="eager").kind == "advice"
    assert BY_CODE["KRB110"].hit(node, case="plain_under_incremental").kind == "bug"
    with pytest.raises(AssertionError):
        BY_CODE["KRB110"].hit(node)
    with pytest.raises(AssertionError):
        BY_CODE["KRB110"].hit(node, case="no such case")


def test_every_rule_is_collected_with_its_checks() -> None:
    family_modules = {m.name for m in pkgutil.iter_modules(rules_package.__path__)} - {"rule"}
    defining = set()
    for rule in RULES:
        checks = [
            *rule.file_checks,
            *rule.effect_checks,
            *(c for cs in rule.callback_checks.values() for c in cs),
        ]
        assert checks, f"{rule.code} has no check"
        defining |= {check.__module__.rpartition(".")[2] for check in checks}
        for check in rule.file_checks:
            assert check in FILE_CHECKS
        for effect_check in rule.effect_checks:
            assert effect_check in EFFECT_CHECKS
        for node_type, node_checks in rule.callback_checks.items():
            assert set(node_checks) <= set(CALLBACK_CHECKS[node_type])
    assert defining == family_modules


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_message_ends_with_the_fix(rule: Rule) -> None:
    assert rule.is_migration_advice == rule.code.startswith("KRB2")
    # KRB2xx are fixed by the migration, KRB103/KRB104 by the auto-fixes (check --fix, migrate)
    assert rule.has_codemod == (rule.is_migration_advice or rule.code in FIX_CODES)
    assert "\n" not in rule.template
    fields = {name: "x" for _, name, _, _ in Formatter().parse(rule.template) if name}
    assert not rule.message(False, **fields).endswith(MIGRATE)
    if rule.has_codemod:
        assert rule.message(True, **fields).endswith(MIGRATE)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_examples_behave_as_documented(rule: Rule) -> None:
    assert rule.invalid and rule.valid
    for example in rule.invalid:
        bad = [f for f in check_source(example.encode(), "invalid.py").findings]
        assert rule.code in {f.code for f in bad}
        for finding in bad:  # a fixable finding says so in its message, and only then
            assert finding.message.endswith(MIGRATE) == finding.fixable
    for example in rule.valid:
        good = {f.code for f in check_source(example.encode(), "valid.py").findings}
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
        assert all(example in page for example in (*rule.invalid, *rule.valid))


def test_drift_is_detected(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "x\n<!-- rules:start -->\nstale\n<!-- rules:end -->\n", encoding="utf-8"
    )
    stale = drift(tmp_path)
    assert tmp_path / "README.md" in stale
    assert len(stale) == len(RULES) + 1
