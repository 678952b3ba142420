"""The ``rebalance-guard`` console script: its own package, ``python -m``, and ``rule``."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from rebalance_lint.docs import rule_page
from rebalance_lint.rule_table import BY_CODE, RULES

ROOT = Path(__file__).resolve().parent.parent.parent


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rebalance_cli", *args], capture_output=True, text=True, check=False
    )


def test_the_installed_script_is_the_rebalance_cli_package() -> None:
    (script,) = [
        ep for ep in metadata.entry_points(group="console_scripts") if ep.name == "rebalance-guard"
    ]
    assert script.value == "rebalance_cli:main"
    installed = Path(sys.executable).parent / "rebalance-guard"
    result = subprocess.run([installed, "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "check" in result.stdout and "rule" in result.stdout


def test_python_dash_m_and_usage_errors() -> None:
    assert cli("--help").returncode == 0
    assert cli().returncode == 2
    unknown = cli("frobnicate")
    assert unknown.returncode == 2 and "unknown command 'frobnicate'" in unknown.stderr


def test_rule_prints_the_rules_page_from_the_rule_table() -> None:
    rule = BY_CODE["KRB104"]
    result = cli("rule", "KRB104")
    assert result.returncode == 0, result.stderr
    page = result.stdout
    assert page.startswith("# KRB104: commit-on-lost\n")
    assert rule.rationale in page and rule.fix in page
    assert all(example in page for example in (*rule.invalid, *rule.valid))
    assert page.index("## Bad") < page.index(rule.invalid[0]) < page.index("## Good")
    assert page.index("## Good") < page.index(rule.valid[0]) < page.index("## Fix")
    # Exactly the generated docs page, minus its do-not-edit marker.
    docs = (ROOT / "docs" / "rules" / "KRB104.md").read_text()
    assert docs == rule_page(rule)
    assert page == docs.split("\n", 1)[1]


def test_rule_accepts_lower_case() -> None:
    assert cli("rule", "krb201").stdout == cli("rule", "KRB201").stdout


@pytest.mark.parametrize("code", ["KRB999", "E501", "nonsense"])
def test_unknown_rule_is_a_clear_error(code: str) -> None:
    result = cli("rule", code)
    assert result.returncode == 2 and result.stdout == ""
    assert f"unknown rule code {code!r}" in result.stderr and "KRB101" in result.stderr


def test_rule_all_and_usage() -> None:
    everything = cli("rule", "--all")
    assert everything.returncode == 0
    assert [line for line in everything.stdout.splitlines() if line.startswith("# KRB")] == [
        f"# {rule.code}: {rule.name}" for rule in RULES
    ]
    assert cli("rule").returncode == 2
    assert cli("rule", "KRB101", "--all").returncode == 2
