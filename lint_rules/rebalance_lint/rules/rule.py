"""What a KRB rule is: its code, texts, examples and checks, kept together (Fixit style).

A rule family module defines :class:`Rule` objects and registers their checks on them:
``@RULE.in_callbacks(ast.Call)`` for a check that sees each node a callback body executes,
``@RULE.on_effects`` for one that reads each effect of each callback (what it does to a
consumer, directly or through calls: :mod:`rebalance_lint.analysis.effects`), and
``@RULE.per_file`` for one that reads the whole :class:`Analysis` once. Checks yield
:class:`Hit`; :mod:`rebalance_lint.rule_table` collects every rule of every module.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rebalance_lint.analysis.clients import COROUTINE_METHODS
from rebalance_lint.analysis.model import Analysis, Callback, Effect

#: The suffix of every message whose finding ``rebalance-guard migrate`` can fix.
MIGRATE = "(fixable: rebalance-guard migrate)"

CallbackCheck = Callable[[ast.AST, Callback, Analysis], Iterable["Hit"]]
EffectCheck = Callable[[Effect, Callback, Analysis], Iterable["Hit"]]
FileCheck = Callable[[Analysis], Iterable["Hit"]]


@dataclass(frozen=True, eq=False)
class Rule:
    """One KRB code. ``template`` is ``str.format``-ed with a hit's fields.

    ``invalid`` examples must trigger the rule and ``valid`` ones must not (a test runs
    them); the docs pages and the README table are generated from these fields.
    ``has_codemod`` says that ``rebalance-guard migrate`` handles this code at all; whether
    one hit is fixable is the hit's own :attr:`Hit.fixable`.
    """

    code: str
    name: str
    template: str
    rationale: str
    fix: str
    invalid: tuple[str, ...]
    valid: tuple[str, ...]
    has_codemod: bool = False
    callback_checks: dict[type[ast.AST], list[CallbackCheck]] = field(
        default_factory=dict, repr=False
    )
    effect_checks: list[EffectCheck] = field(default_factory=list, repr=False)
    file_checks: list[FileCheck] = field(default_factory=list, repr=False)

    @property
    def is_migration_advice(self) -> bool:
        """KRB2xx advise the migration (off by default in flake8); KRB1xx are bugs."""
        return self.code.startswith("KRB2")

    def in_callbacks(self, *node_types: type[ast.AST]) -> Callable[[CallbackCheck], CallbackCheck]:
        """Register a check for nodes of these types inside callback bodies."""

        def register(check: CallbackCheck) -> CallbackCheck:
            for node_type in node_types:
                self.callback_checks.setdefault(node_type, []).append(check)
            return check

        return register

    def on_effects(self, check: EffectCheck) -> EffectCheck:
        """Register a check for each effect of each callback (its own and through calls)."""
        self.effect_checks.append(check)
        return check

    def per_file(self, check: FileCheck) -> FileCheck:
        """Register a check that reads the whole analysis once."""
        self.file_checks.append(check)
        return check

    def hit(self, node: ast.AST, *, fixable: bool = False, **fields: str) -> Hit:
        """This rule firing at ``node`` with the template's ``fields``."""
        assert not fixable or self.has_codemod, f"{self.code} has no codemod to fix it"
        return Hit(node, self, fields, fixable)

    def message(self, fixable: bool = False, **fields: Any) -> str:
        """The finding's one-line message; a fixable one ends with how to fix it."""
        text = self.template.format(**fields)
        return f"{text} {MIGRATE}" if fixable else text


@dataclass(frozen=True)
class Hit:
    """A rule firing at ``node`` (its line and column), with the template's fields."""

    node: ast.AST
    rule: Rule
    fields: dict[str, str] = field(default_factory=dict)
    fixable: bool = False

    @property
    def code(self) -> str:
        return self.rule.code


def dropped_coroutine(effect: Effect, callback: Callback) -> bool:
    """A consumer coroutine called as a bare statement: created, never awaited.

    KRB106 reports it; the rules about what the call would do (KRB103, KRB104) stay quiet,
    since the call never happens.
    """
    coroutines = COROUTINE_METHODS.get(callback.client) if callback.client else None
    return (
        effect.kind == "call"
        and effect.dropped
        and coroutines is not None
        and effect.name in coroutines
    )
