"""The report's structure does not depend on the fleet's size (5 to 5,000 repositories)."""

from __future__ import annotations

import random
import re

import pytest
from rebalance_lint.report import Kind
from rebalance_scan.html_report import MAX_DETAIL_ROWS, TOP_IN_CHARTS, render_report
from rebalance_scan.ranking import rank_repositories
from rebalance_scan.tables import RepoReadiness, Totals


def _fleet(size: int) -> tuple[list[RepoReadiness], list[dict[str, object]]]:
    rng = random.Random(size)
    entries = []
    findings: list[dict[str, object]] = []
    for index in range(size):
        repo = f"org/{'very-long-name-' * (index % 5)}repo-{index}"
        bugs = rng.choice((0, 0, 0, 1, 3))
        entry = RepoReadiness(
            repo,
            files=10,
            kafka_files=2,
            bugs=bugs,
            advice=2,
            auto_sites=rng.choice((0, 1, 2)),
            manual_sites=rng.choice((0, 0, 1)),
        )
        entries.append(entry)
        findings.extend(
            {
                "repo": repo,
                "path": f"src/m{n}.py",
                "line": n + 1,
                "col": 0,
                "code": "KRB101",
                "message": "poll() inside a callback",
                "fixable": False,
                "kind": "bug",
            }
            for n in range(bugs)
        )
    return entries, findings


@pytest.mark.parametrize("size", [5, 50, 5000])
def test_same_layout_at_every_size(size: int) -> None:
    entries, findings = _fleet(size)
    ranked = rank_repositories(entries)
    auto = sum(e.auto_sites for e in entries)
    manual = sum(e.manual_sites for e in entries)
    kinds: dict[Kind, int] = {"bug": len(findings), "risk": 0, "advice": 0}
    totals = Totals(size * 10, size * 1000, size, {"ok": size * 10}, {"KRB101": len(findings)},
                    kinds, {"KRB101 bug": len(findings)}, auto, manual)  # fmt: skip
    html = render_report(totals, ranked, findings, [], [], "generated")
    for anchor in ("start", "readiness", "repositories", "rules", "status", "details"):
        assert f'id="{anchor}"' in html
    start = html[html.index('id="start-chart"') : html.index('id="readiness"')]
    acting = [r for r in ranked if r.tier != "none"]
    assert start.count('class="row"') == min(TOP_IN_CHARTS, len(acting))
    assert ("more repositories with something to do" in start) == (len(acting) > TOP_IN_CHARTS)
    assert html.count("<tr data-tier=") == size
    assert len(re.findall(r'<section class="repo" id="repo-\d+">', html)) == size
    assert html.count("<script>") == 1
    # the page grows with the fleet only by the table and the capped sections
    assert len(html) < 4000 + size * 1500 + MAX_DETAIL_ROWS * 200
