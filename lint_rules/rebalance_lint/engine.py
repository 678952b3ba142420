"""Run the rules: bytes -> FileReport for the CLI and Spark, tree -> findings for flake8.

The engine never raises: bad input becomes a status, and an internal error a
``crashed`` report with a one-line reason.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.build import analyse
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.analysis.walk import body_nodes
from rebalance_lint.noqa import without_suppressed
from rebalance_lint.report import FileReport, Finding
from rebalance_lint.rule_table import CALLBACK_CHECKS, EFFECT_CHECKS, FILE_CHECKS
from rebalance_lint.rules.rule import Hit
from rebalance_lint.screening import MAX_SOURCE_BYTES, mentions_kafka
from rebalance_lint.source import Unparsable, load


def findings_for_tree(tree: ast.Module, text: str) -> list[Finding]:
    """Every rule's findings for a parsed file, before ``# noqa`` (flake8 applies its own)."""
    return findings_for_analysis(analyse(tree, text))


def findings_for_analysis(analysis: Analysis) -> list[Finding]:
    """Every rule's findings for a built analysis (one file, or one file of a repository)."""
    if not (analysis.callbacks or analysis.registrations or analysis.listeners or analysis.pauses):
        return []
    hits: list[Hit] = []
    for callback in analysis.callbacks:
        for node in body_nodes(callback.func):
            for check in CALLBACK_CHECKS.get(type(node), ()):
                hits.extend(check(node, callback, analysis))
        for effect in callback.effects:
            for effect_check in EFFECT_CHECKS:
                hits.extend(effect_check(effect, callback, analysis))
    for file_check in FILE_CHECKS:
        hits.extend(file_check(analysis))
    return sorted({_finding(hit) for hit in hits})


def _finding(hit: Hit) -> Finding:
    return Finding(
        line=getattr(hit.node, "lineno", 1),
        col=getattr(hit.node, "col_offset", 0),
        code=hit.code,
        message=hit.rule.message(hit.fixable, **hit.fields),
        fixable=hit.fixable,
        kind=hit.kind,
    )


def check_bytes(source: bytes, filename: str = "<unknown>") -> FileReport:
    """The body of :func:`rebalance_lint.api.check_source`."""
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
        findings = findings_for_tree(loaded.tree, loaded.text)
        return FileReport("ok", without_suppressed(findings, loaded.text))
    except RecursionError:
        return FileReport("too_large", reason="too deeply nested to analyse")
    except Exception as exc:  # never let one file take down a fleet scan
        return FileReport(
            "crashed",
            reason=f"internal error in the KRB rules: {type(exc).__name__}: {exc}".splitlines()[0],
        )
