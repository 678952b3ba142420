"""One place decides "this is a rebalance callback / listener / registration of client X".

The program model (``rebalance_lint.analysis`` passes, with the resolvers of
``analysis.clients``, ``listeners``, ``registrations`` and ``consumers``) decides it. The
migration planner (``analysis/migration*.py``) and the codemods only read the model's
``Analysis``; if they imported a resolver they could classify code again, by rules of their
own, and drift from the findings (the bug issue 8 was about). This test fails as soon as one
of them does.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ANALYSIS = ROOT / "lint_rules" / "rebalance_lint" / "analysis"
#: the modules that classify code; only the model's builder may call them
RESOLVERS = {
    "rebalance_lint.analysis.clients",
    "rebalance_lint.analysis.listeners",
    "rebalance_lint.analysis.registrations",
    "rebalance_lint.analysis.consumers",
    "rebalance_lint.analysis.passes",
    "rebalance_lint.analysis.program",
}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _resolvers_imported(path: Path) -> set[str]:
    return {
        module
        for module in _imported_modules(path)
        if any(module == r or module.startswith(r + ".") for r in RESOLVERS)
    }


def _readers() -> list[Path]:
    planner = sorted(ANALYSIS.glob("migration*.py"))
    codemods = sorted((ROOT / "codemods" / "rebalance_codemods").glob("*.py"))
    assert planner and codemods, "the planner and codemod modules moved: update this test"
    return planner + codemods


def test_planner_and_codemods_read_the_model_and_never_classify_again() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(found)
        for path in _readers()
        if (found := _resolvers_imported(path))
    }
    assert offenders == {}


def test_the_check_catches_a_resolver_import(tmp_path: Path) -> None:
    """The guard above can fail: a planner that imported the listener-base resolver."""
    module = tmp_path / "migration_x.py"
    module.write_text("from rebalance_lint.analysis.clients import client_listener_base\n")
    assert _resolvers_imported(module) == {"rebalance_lint.analysis.clients"}
