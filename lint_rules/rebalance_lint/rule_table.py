"""The KRB rules, collected from the family modules under :mod:`rebalance_lint.rules`.

Every module of that package is imported and every :class:`Rule` it defines is taken, so
adding a rule is one module (or one more ``Rule`` in its family's module) plus one fixture.
The messages, the README table and the ``docs/rules/KRBnnn.md`` pages all come from here
(``python -m rebalance_lint.docs --write``).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil

import rebalance_lint.rules as rules_package
from rebalance_lint.rules.rule import CallbackCheck, EffectCheck, FileCheck, Rule


def _collect() -> tuple[Rule, ...]:
    """Every rule defined in the modules of :mod:`rebalance_lint.rules`, ordered by code."""
    by_code: dict[str, Rule] = {}
    for module_info in pkgutil.iter_modules(rules_package.__path__):
        module = importlib.import_module(f"{rules_package.__name__}.{module_info.name}")
        for value in vars(module).values():
            if isinstance(value, Rule):
                known = by_code.setdefault(value.code, value)
                if known is not value:
                    raise ValueError(f"two rules claim {value.code}: {known.name}, {value.name}")
    return tuple(sorted(by_code.values(), key=lambda rule: rule.code))


RULES: tuple[Rule, ...] = _collect()
BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}

#: Dispatch tables for the engine: node type -> checks run on it inside callback bodies,
#: the checks run on each effect of each callback, and the checks that read a file's whole
#: analysis once.
CALLBACK_CHECKS: dict[type[ast.AST], tuple[CallbackCheck, ...]] = {
    node_type: tuple(check for rule in RULES for check in rule.callback_checks.get(node_type, ()))
    for node_type in {node_type for rule in RULES for node_type in rule.callback_checks}
}
EFFECT_CHECKS: tuple[EffectCheck, ...] = tuple(
    check for rule in RULES for check in rule.effect_checks
)
FILE_CHECKS: tuple[FileCheck, ...] = tuple(check for rule in RULES for check in rule.file_checks)
