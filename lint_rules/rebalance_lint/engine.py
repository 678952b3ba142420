"""Run the rules: bytes -> FileReport for the CLI and Spark, tree -> findings for flake8.

The engine never raises: bad input becomes a status, and an internal error a
``crashed`` report with a one-line reason.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from functools import lru_cache

from rebalance_lint.analysis.build import analyse
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.walk import body_nodes
from rebalance_lint.noqa import without_suppressed
from rebalance_lint.report import FileReport, Finding
from rebalance_lint.rule_table import BY_CODE, CALLBACK_CHECKS, EFFECT_CHECKS, FILE_CHECKS, RULES
from rebalance_lint.rules.rule import CallbackCheck, EffectCheck, FileCheck, Hit
from rebalance_lint.screening import MAX_SOURCE_BYTES, mentions_kafka
from rebalance_lint.source import Unparsable, load

#: The rules' checks, as the rule table dispatches them: by node type inside callback
#: bodies, per effect, per file.
Checks = tuple[
    Mapping[type[ast.AST], tuple[CallbackCheck, ...]],
    tuple[EffectCheck, ...],
    tuple[FileCheck, ...],
]


def findings_for_tree(
    tree: ast.Module, text: str, codes: Collection[str] | None = None
) -> list[Finding]:
    """Every rule's findings for a parsed file, before ``# noqa`` (flake8 applies its own);
    ``codes``: only those rules' (None: all)."""
    return findings_for_analysis(analyse(tree, text), codes)


def findings_for_analysis(
    analysis: Analysis, codes: Collection[str] | None = None
) -> list[Finding]:
    """Every rule's findings for a built analysis (one file, or one file of a repository);
    ``codes``: only the checks of those rules run (None: all), so a rule not asked for costs
    nothing (the KRB2xx rules' "fixable" is the migration plan)."""
    if not (analysis.callbacks or analysis.registrations or analysis.listeners or analysis.pauses):
        return []
    callback_checks, effect_checks, file_checks = _checks(
        None if codes is None else frozenset(codes)
    )
    hits: list[Hit] = []
    for callback in analysis.callbacks:
        for node in body_nodes(callback.func):
            for check in callback_checks.get(type(node), ()):
                hits.extend(check(node, callback, analysis))
        for effect in callback.effects:
            for effect_check in effect_checks:
                hits.extend(effect_check(effect, callback, analysis))
    for file_check in file_checks:
        hits.extend(file_check(analysis))
    return sorted({_finding(hit) for hit in hits})


def plans_migration(codes: Collection[str] | None) -> bool:
    """Whether the findings of ``codes`` (None: all) show the migration plan: a KRB2xx
    finding's "fixable" is it; nothing else reads it."""
    return codes is None or any(
        code in BY_CODE and BY_CODE[code].is_migration_advice for code in codes
    )


@lru_cache(maxsize=8)
def _checks(codes: frozenset[str] | None) -> Checks:
    """The rule table's dispatch, keeping the checks of the rules of ``codes``."""
    if codes is None:
        return CALLBACK_CHECKS, EFFECT_CHECKS, FILE_CHECKS
    kept = {
        id(check)
        for rule in RULES
        if rule.code in codes
        for check in (
            *rule.effect_checks,
            *rule.file_checks,
            *(c for checks in rule.callback_checks.values() for c in checks),
        )
    }
    by_node = {
        node_type: tuple(c for c in checks if id(c) in kept)
        for node_type, checks in CALLBACK_CHECKS.items()
    }
    return (
        {node_type: checks for node_type, checks in by_node.items() if checks},
        tuple(c for c in EFFECT_CHECKS if id(c) in kept),
        tuple(c for c in FILE_CHECKS if id(c) in kept),
    )


def _finding(hit: Hit) -> Finding:
    return Finding(
        line=getattr(hit.node, "lineno", 1),
        col=getattr(hit.node, "col_offset", 0),
        code=hit.code,
        message=hit.rule.message(hit.fixable, **hit.fields),
        fixable=hit.fixable,
        kind=hit.kind,
    )


def check_bytes(
    source: bytes, filename: str = "<unknown>", codes: Collection[str] | None = None
) -> FileReport:
    """The body of :func:`rebalance_lint.api.check_source`; ``codes``: only those rules."""
    try:
        if len(source) > MAX_SOURCE_BYTES:
            return FileReport(
                "too_large",
                reason=f"{len(source)} bytes is over the {MAX_SOURCE_BYTES}-byte limit",
            )
        if not mentions_kafka(source):
            return FileReport("ok", skipped=True)
        loaded = load(source, filename)
        if isinstance(loaded, Unparsable):
            return FileReport(loaded.status, reason=loaded.reason)
        findings = findings_for_tree(loaded.tree, loaded.text, codes)
        return FileReport("ok", without_suppressed(findings, loaded.text))
    except RecursionError:
        return FileReport("too_large", reason="too deeply nested to analyse")
    except Exception as exc:  # never let one file take down a fleet scan
        return FileReport(
            "crashed",
            reason=f"internal error in the KRB rules: {type(exc).__name__}: {exc}".splitlines()[0],
        )
