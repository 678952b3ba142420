"""``check --select/--ignore`` runs only the rules asked for (issue 26 item 4, the part that
skips what the output does not show): the same findings as running every rule and dropping
the others, and no migration planned unless a KRB2xx code is asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from rebalance_lint import repository
from rebalance_lint.analysis import migration
from rebalance_lint.check_command import _rule_codes
from rebalance_lint.check_runner import Checked, check_given
from rebalance_lint.engine import plans_migration
from rebalance_lint.report import FileReport

from tests.lint.expectations import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
GIVEN = [ROOT / "examples", *sorted(FIXTURES.iterdir())]
SELECTIONS = [
    (("KRB1",), ()),
    (("KRB101", "KRB104"), ()),
    (("KRB",), ("KRB2",)),
    (("KRB2",), ()),
    (("KRB203",), ()),
    (("KRB",), ("KRB103", "KRB201")),
]


def _kept(checked: Checked, codes: tuple[str, ...]) -> Checked:
    out: Checked = []
    for path, report in checked:
        if isinstance(report, FileReport):
            findings = tuple(f for f in report.findings if f.code in codes)
            report = FileReport(report.status, findings, report.reason, report.skipped)
        out.append((path, report))
    return out


@pytest.mark.parametrize(("select", "ignore"), SELECTIONS)
def test_only_the_rules_asked_for_find_the_same(
    select: tuple[str, ...], ignore: tuple[str, ...]
) -> None:
    codes = _rule_codes(select, ignore)
    assert codes
    found = 0
    for given in GIVEN:
        everything = check_given(given)
        asked = check_given(given, None, codes)
        assert asked == _kept(everything, codes), given
        found += sum(len(r.findings) for _, r in asked if isinstance(r, FileReport))
    assert found > 5  # the comparison compares findings


def test_all_codes_is_every_rule() -> None:
    assert _rule_codes(("KRB",), ()) is None
    assert _rule_codes(("KRB1", "KRB2"), ()) is None


def test_the_migration_is_planned_only_for_a_krb2xx_code(monkeypatch: pytest.MonkeyPatch) -> None:
    plans: list[str] = []
    plan_repository = repository.plan_repository
    plan_migration = migration.plan_migration

    def counting_repository(*args: object) -> object:
        plans.append("repository")
        return plan_repository(*args)  # type: ignore[arg-type]

    def counting_file(*args: object, **kwargs: object) -> object:
        plans.append("file")
        return plan_migration(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(repository, "plan_repository", counting_repository)
    monkeypatch.setattr(migration, "plan_migration", counting_file)
    repo = FIXTURES / "repo_listener_elsewhere"
    single = FIXTURES / "confluent_aio_callbacks.py"
    assert single.is_file() and b"KRB203" in single.read_bytes()
    for codes in (_rule_codes(("KRB1",), ()), _rule_codes(("KRB",), ("KRB2",))):
        assert not plans_migration(codes)
        check_given(repo, None, codes)
        check_given(single, None, codes)
    assert plans == []
    check_given(repo, None, _rule_codes(("KRB203",), ()))
    assert "repository" in plans
    check_given(single)
    assert "file" in plans
