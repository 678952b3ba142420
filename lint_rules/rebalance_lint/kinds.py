"""Each finding's kind (bug, risk, advice) as every output shows it and as ``--fail-on`` reads it.

The kind is decided once, when a rule fires: each rule of the rule table lists its cases
(:class:`rebalance_lint.rules.rule.KindCase`: the kind, when it applies and why), its check
names the case the facts show, and the finding carries that case's kind
(:attr:`rebalance_lint.report.Finding.kind`). Every writer (``check``'s text, JSON, SARIF,
GitHub and GitLab output, ``--statistics``, ``--fail-on``, the fleet scan's tables, summary and
report) reads it through :func:`kind_of` and shows it with the tables below; none of them
derives a kind from a code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from rebalance_lint.report import Finding, Kind

#: Most urgent first: the order of ``--fail-on`` thresholds, reports and rankings.
KINDS: tuple[Kind, ...] = ("bug", "risk", "advice")
#: SARIF 2.1.0 ``level`` of a result (code scanning shows error / warning / note).
SARIF_LEVEL: dict[Kind, str] = {"bug": "error", "risk": "warning", "advice": "note"}
#: GitHub Actions workflow command of an annotation.
GITHUB_COMMAND: dict[Kind, str] = {"bug": "error", "risk": "warning", "advice": "notice"}
#: GitLab Code Quality severity (info, minor, major, critical, blocker).
GITLAB_SEVERITY: dict[Kind, str] = {"bug": "major", "risk": "minor", "advice": "info"}
#: How the kinds are named in counts ("2 bugs, 1 risk, 4 advice").
PLURAL: dict[Kind, str] = {"bug": "bugs", "risk": "risks", "advice": "advice"}


def kind_of(finding: Finding | Mapping[str, Any]) -> Kind:
    """The kind a finding (or a row with a finding's fields) carries."""
    kind = finding.kind if isinstance(finding, Finding) else finding.get("kind")
    for known in KINDS:
        if kind == known:
            return known
    code = finding.code if isinstance(finding, Finding) else finding.get("code")
    raise ValueError(f"finding {code} has no kind ({kind!r}); findings come from the engine")


def parse_kind(text: str) -> Kind:
    """``bug``, ``risk`` or ``advice`` (any case, plural allowed) as given on a command line."""
    wanted = text.strip().lower()
    for kind in KINDS:
        if wanted in (kind, PLURAL[kind]):
            return kind
    raise ValueError(f"not a kind: {text!r} (one of {', '.join(KINDS)})")


def at_least(kind: Kind, threshold: Kind) -> bool:
    """Is ``kind`` as urgent as ``threshold`` or more (``--fail-on risk`` fails on bugs too)?"""
    return KINDS.index(kind) <= KINDS.index(threshold)


def most_urgent(kinds: Iterable[Kind]) -> Kind:
    """The most urgent of ``kinds`` (a rule's SARIF default level); advice when empty."""
    return min(kinds, key=KINDS.index, default="advice")


def count_kinds(findings: Iterable[Finding | Mapping[str, Any]]) -> dict[Kind, int]:
    """Findings counted per kind, every kind present (most urgent first)."""
    counts = Counter(kind_of(finding) for finding in findings)
    return {kind: counts[kind] for kind in KINDS}


def describe_counts(counts: Mapping[Kind, int]) -> str:
    """``2 bugs, 1 risk, 4 advice``: every kind, in the order of :data:`KINDS`."""
    return ", ".join(
        f"{counts.get(kind, 0)} {kind if counts.get(kind, 0) == 1 else PLURAL[kind]}"
        for kind in KINDS
    )
