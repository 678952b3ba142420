"""What a KRB rule is: its code, texts, examples and checks, kept together (Fixit style).

A rule family module defines :class:`Rule` objects and registers their checks on them:
``@RULE.in_callbacks(ast.Call)`` for a check that sees each node a callback body executes,
``@RULE.on_effects`` for one that reads each effect of each callback (what it does to a
consumer, directly or through calls: :mod:`rebalance_lint.analysis.effects`), and
``@RULE.per_file`` for one that reads the whole :class:`Analysis` once. Checks yield
:class:`Hit`; :mod:`rebalance_lint.rule_table` collects every rule of every module.

Each rule also carries its kinds (:class:`KindCase`): which kind (bug, risk, advice) a hit
gets in which case, and why. A check that can fire in more than one case names the case the
facts show (``RULE.hit(node, case="eager", ...)``); the kind is read off the rule, never
decided in a check or in a writer.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from rebalance_lint.analysis.clients import COROUTINE_METHODS
from rebalance_lint.analysis.model import Analysis, Callback, Effect, Hop
from rebalance_lint.report import Kind

#: The suffix of every message whose finding ``rebalance-guard migrate`` can fix.
MIGRATE = "(fixable: rebalance-guard migrate)"

CallbackCheck = Callable[[ast.AST, Callback, Analysis], Iterable["Hit"]]
EffectCheck = Callable[[Effect, Callback, Analysis], Iterable["Hit"]]
FileCheck = Callable[[Analysis], Iterable["Hit"]]


@dataclass(frozen=True)
class KindCase:
    """One case of a rule: the kind its hits get, the facts that select it, and why.

    ``when`` and ``why`` are printed on the rule's page (``docs/rules/KRBnnn.md``), so a
    reader can check each finding against the case it claims.
    """

    kind: Kind
    when: str
    why: str


@dataclass(frozen=True, eq=False)
class Rule:
    """One KRB code. ``template`` is ``str.format``-ed with a hit's fields.

    ``invalid`` examples must trigger the rule and ``valid`` ones must not (a test runs
    them); the docs pages and the README table are generated from these fields.
    ``has_codemod`` says that ``rebalance-guard migrate`` handles this code at all; whether
    one hit is fixable is the hit's own :attr:`Hit.fixable`. ``kinds`` names the rule's
    cases (:class:`KindCase`); a rule with one case needs no case named at :meth:`hit`.
    """

    code: str
    name: str
    template: str
    rationale: str
    fix: str
    invalid: tuple[str, ...]
    valid: tuple[str, ...]
    kinds: dict[str, KindCase]
    has_codemod: bool = False
    callback_checks: dict[type[ast.AST], list[CallbackCheck]] = field(
        default_factory=dict, repr=False
    )
    effect_checks: list[EffectCheck] = field(default_factory=list, repr=False)
    file_checks: list[FileCheck] = field(default_factory=list, repr=False)

    @property
    def is_migration_advice(self) -> bool:
        """KRB2xx are the migration codes, off by default in flake8 (``--extend-select=KRB2``).

        Which kind a finding is comes from :attr:`kinds`, never from the code's prefix."""
        return self.code.startswith("KRB2")

    def in_callbacks(self, *node_types: type[ast.AST]) -> Callable[[CallbackCheck], CallbackCheck]:
        """Register a check for nodes of these types inside callback bodies."""

        def register(check: CallbackCheck) -> CallbackCheck:
            @functools.wraps(check)
            def run(node: ast.AST, callback: Callback, analysis: Analysis) -> Iterable[Hit]:
                hits = check(node, callback, analysis)
                return _as_reached(hits, callback, analysis) if callback.helper else hits

            for node_type in node_types:
                self.callback_checks.setdefault(node_type, []).append(run)
            return check

        return register

    def on_effects(self, check: EffectCheck) -> EffectCheck:
        """Register a check for each effect of each callback (its own and through calls)."""

        @functools.wraps(check)
        def run(effect: Effect, callback: Callback, analysis: Analysis) -> Iterable[Hit]:
            hits = check(effect, callback, analysis)
            return _as_reached(hits, callback, analysis, effect) if callback.helper else hits

        self.effect_checks.append(run)
        return check

    def per_file(self, check: FileCheck) -> FileCheck:
        """Register a check that reads the whole analysis once."""
        self.file_checks.append(check)
        return check

    def hit(
        self, node: ast.AST, *, fixable: bool = False, case: str | None = None, **fields: str
    ) -> Hit:
        """This rule firing at ``node`` in ``case`` (the only one when it has one) with the
        template's ``fields``."""
        assert not fixable or self.has_codemod, f"{self.code} has no codemod to fix it"
        if case is None:
            assert len(self.kinds) == 1, f"{self.code} has several cases: name one"
            case = next(iter(self.kinds))
        assert case in self.kinds, f"{self.code} has no case {case!r}"
        return Hit(node, self, fields, fixable, case)

    def kind(self, case: str) -> Kind:
        """The kind of this rule's hits in ``case``: the one place a kind is decided."""
        return self.kinds[case].kind

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
    case: str = ""

    @property
    def code(self) -> str:
        return self.rule.code

    @property
    def kind(self) -> Kind:
        return self.rule.kind(self.case)


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


def reached(helper: Callback, analysis: Analysis) -> tuple[Callback, tuple[Hop, ...]] | None:
    """How a helper is reached: a registered callback and the calls down to the helper.

    The shortest chain (through helpers only) from any callback that is not a helper; among
    equally short ones, the callback that runs for more of the helper's kinds, then the first
    callback of the file. None when no chain is known (the helper is reported by its name).
    """
    by_func = {id(c.func): c for c in analysis.callbacks}
    best: tuple[tuple[int, int, int], Callback, tuple[Hop, ...]] | None = None
    roots = [c for c in analysis.callbacks if not c.helper]
    for order, root in enumerate(roots):
        frontier: list[tuple[Callback, tuple[Hop, ...]]] = [(root, ())]
        seen = {id(root)}
        found: tuple[Hop, ...] | None = None
        while frontier and found is None:
            following: list[tuple[Callback, tuple[Hop, ...]]] = []
            for caller, hops in frontier:
                for hop, func in caller.helper_calls:
                    callee = by_func.get(id(func))
                    if callee is None or not callee.helper or id(callee) in seen:
                        continue
                    seen.add(id(callee))
                    if callee is helper:
                        found = (*hops, hop)
                        break
                    following.append((callee, (*hops, hop)))
                if found is not None:
                    break
            frontier = following
        if found is not None:
            rank = (len(found), -len(root.kinds & helper.kinds), order)
            if best is None or rank < best[0]:
                best = (rank, root, found)
    return None if best is None else (best[1], best[2])


def reached_label(helper: Callback, analysis: Analysis, effect: Effect | None = None) -> str:
    """A helper as messages name it, with how a registered callback reaches it:
    ``_flush() via on_partitions_revoked() -> self._flush() at line 12``.

    Each call on the way carries its own line. An effect the helper reaches through calls
    on other objects continues the chain in :meth:`Effect.label`'s words
    (``... -> self.worker.flush() at pipeline/worker.py:10``).
    """
    plain = effect.label(helper.label) if effect is not None else helper.label
    found = reached(helper, analysis)
    if found is None:
        return plain
    root, hops = found
    chain = " -> ".join(f"{hop.text} at line {getattr(hop.call, 'lineno', 0)}" for hop in hops)
    text = f"{helper.label} via {root.label} -> {chain}"
    onward = plain[len(helper.label) :].removeprefix(" via ")
    return f"{text} -> {onward}" if onward else text


def _as_reached(
    hits: Iterable[Hit], helper: Callback, analysis: Analysis, effect: Effect | None = None
) -> Iterator[Hit]:
    """``hits`` with the helper named as it is reached (anchors unchanged, so ``# noqa``
    comments on the helper's lines keep working)."""
    forms: dict[str, Effect | None] = {helper.label: None}
    if effect is not None:
        forms[effect.label(helper.label)] = effect
    labels: dict[str, str] = {}
    for hit in hits:
        given = hit.fields.get("callback")
        if given in forms:
            if given not in labels:
                labels[given] = reached_label(helper, analysis, forms[given])
            hit = replace(hit, fields={**hit.fields, "callback": labels[given]})
        yield hit
