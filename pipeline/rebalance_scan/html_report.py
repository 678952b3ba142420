"""The self-contained HTML report: inline CSS, SVG charts and a little plain JavaScript
(sorting and filtering the repository table); nothing is loaded from anywhere.

The page has the same layout for 5 or 5,000 repositories: the charts show the head of the
ranking (``rebalance_scan.ranking``) and summarise the rest, the table lists every
repository, and per-repository sections (linked from both) hold findings and manual sites,
with row caps so the page stays small enough to open.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from string import Template
from typing import Any

from rebalance_lint.kinds import KINDS, kind_of, parse_kind
from rebalance_lint.report import Kind

from rebalance_scan.ranking import RANKING_RULE, RankedRepo
from rebalance_scan.svg_charts import BarRow, bar_chart, row_chart
from rebalance_scan.tables import Totals

TOP_IN_CHARTS = 15  # repositories drawn in each chart; the rest are summarised in a line
MAX_ROWS_PER_REPO = 200  # findings (and manual sites) listed in one repository's section
MAX_DETAIL_ROWS = 20_000  # all sections together; past it, sections point to the Parquet
MAX_PROBLEM_ROWS = 2_000
BUG, RISK, ADVICE, AUTO, MANUAL, STATUS_OK, STATUS_BAD = (
    "#c0392b",
    "#d4ac0d",
    "#2e6da4",
    "#27ae60",
    "#e67e22",
    "#7f8c8d",
    "#8e44ad",
)
#: A finding's colour is its kind's (rebalance_lint.kinds), in every chart and legend.
KIND_COLOURS: dict[Kind, str] = {"bug": BUG, "risk": RISK, "advice": ADVICE}
TIER_LABELS = {
    "bugs": "fix bugs",
    "risks": "judge risks",
    "manual": "migrate by hand",
    "auto": "run migrate",
    "none": "nothing to do",
}


def _table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    numeric: set[int],
    widths: Sequence[str] = (),
) -> str:
    cols = "".join(f'<col style="width:{w}">' if w else "<col>" for w in widths)
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{escape(str(v))}</td>' if i in numeric else f"<td>{escape(str(v))}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    colgroup = f"<colgroup>{cols}</colgroup>" if cols else ""
    return f"<table>{colgroup}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _anchor(r: RankedRepo) -> str:
    return f"repo-{r.rank}"


def _cards(totals: Totals, ranked: Sequence[RankedRepo]) -> str:
    with_bugs = sum(1 for r in ranked if r.tier == "bugs")
    cards = [
        ("repositories", totals.repos),
        ("Python files", totals.files),
        ("bugs", totals.kinds["bug"]),
        ("repositories with bugs", with_bugs),
        ("risks", totals.kinds["risk"]),
        ("manual sites", totals.manual_sites),
        ("auto-migratable sites", totals.auto_sites),
        ("advice", totals.kinds["advice"]),
    ]
    return "".join(f'<div class="card"><b>{value}</b>{escape(name)}</div>' for name, value in cards)


def _tiers(ranked: Sequence[RankedRepo]) -> str:
    counts = {tier: 0 for tier in TIER_LABELS}
    for r in ranked:
        counts[r.tier] += 1
    words = {
        "bugs": "with bugs",
        "risks": "with risks and no bugs",
        "manual": "with manual sites and no bugs or risks",
        "auto": "with only auto-migratable sites",
        "none": "with nothing to do",
    }
    return "".join(
        f"<li><b>{counts[tier]}</b> {'repository' if counts[tier] == 1 else 'repositories'} "
        f"{words[tier]}</li>"
        for tier in TIER_LABELS
    )


def _rest(ranked: Sequence[RankedRepo], shown: int, what: str) -> str:
    rest = ranked[shown:]
    if not rest:
        return ""
    bugs = sum(r.entry.bugs for r in rest)
    risks = sum(r.entry.risks for r in rest)
    manual = sum(r.entry.manual_sites for r in rest)
    auto = sum(r.entry.auto_sites for r in rest)
    noun = "repository" if len(rest) == 1 else "repositories"
    return (
        f"+ {len(rest)} more {noun} {what}: {_plural(bugs, 'bug')}, {_plural(risks, 'risk')}, "
        f"{_plural(manual, 'manual site')}, {_plural(auto, 'auto-migratable site')} "
        "(all in the table below)."
    )


def _start_chart(ranked: Sequence[RankedRepo]) -> str:
    acting = [r for r in ranked if r.tier != "none"]
    top = acting[:TOP_IN_CHARTS]
    rows = [
        BarRow(
            f"{r.rank}. {r.entry.repo}",
            f"#{_anchor(r)}",
            (
                (r.entry.bugs, BUG, "bugs"),
                (r.entry.risks, RISK, "risks"),
                (r.entry.manual_sites, MANUAL, "manual sites"),
                (r.entry.auto_sites, AUTO, "auto-migratable sites"),
            ),
            f"{r.entry.bugs} bugs \u00b7 {r.entry.risks} risks \u00b7 "
            f"{r.entry.manual_sites} manual \u00b7 {r.entry.auto_sites} auto",
        )
        for r in top
    ]
    return row_chart(
        "start-chart", "Where to start", rows, _rest(acting, len(top), "with something to do")
    )


def _readiness_chart(ranked: Sequence[RankedRepo]) -> str:
    migrating = sorted(
        (r for r in ranked if r.entry.auto_sites or r.entry.manual_sites),
        key=lambda r: (-(r.entry.auto_sites + r.entry.manual_sites), r.rank),
    )
    top = migrating[:TOP_IN_CHARTS]
    rows = [
        BarRow(
            r.entry.repo,
            f"#{_anchor(r)}",
            (
                (r.entry.auto_sites, AUTO, "auto-migratable sites"),
                (r.entry.manual_sites, MANUAL, "manual sites"),
            ),
            f"{r.entry.auto_sites} auto \u00b7 {r.entry.manual_sites} manual \u00b7 "
            f"{_percent(r.entry.readiness)} automatic",
        )
        for r in top
    ]
    return row_chart(
        "readiness-chart",
        "Migration sites per repository",
        rows,
        _rest(migrating, len(top), "with migration sites"),
    )


def _repo_table(ranked: Sequence[RankedRepo]) -> str:
    rows = []
    for r in ranked:
        e = r.entry
        readiness = "" if e.readiness is None else f"{e.readiness:.4f}"
        rows.append(
            f'<tr data-tier="{r.tier}"><td class="n">{r.rank}</td>'
            f'<td class="name"><a href="#{_anchor(r)}">{escape(e.repo)}</a></td>'
            f'<td class="n">{e.bugs}</td><td class="n">{e.risks}</td>'
            f'<td class="n">{e.manual_sites}</td>'
            f'<td class="n">{e.auto_sites}</td>'
            f'<td class="n opt" data-sort="{readiness}">{_percent(e.readiness)}</td>'
            f'<td class="n opt">{e.files}</td><td class="opt">{escape(r.reason)}</td></tr>'
        )
    return "".join(rows)


def _repo_sections(
    ranked: Sequence[RankedRepo],
    findings: Sequence[dict[str, Any]],
    problems: Sequence[dict[str, Any]],
    manual: Sequence[dict[str, Any]],
) -> str:
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        by_repo[f["repo"]].append(f)
    manual_by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in manual:
        manual_by_repo[m["repo"]].append(m)
    bad_by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in problems:
        bad_by_repo[p["repo"]].append(p)
    budget = MAX_DETAIL_ROWS
    parts = []
    for r in ranked:
        e = r.entry
        repo_findings = sorted(
            by_repo.get(e.repo, []),
            key=lambda f: (KINDS.index(kind_of(f)), f["path"], f["line"], f["col"]),
        )
        repo_manual = manual_by_repo.get(e.repo, [])
        body = [
            f'<section class="repo" id="{_anchor(r)}"><h3>{r.rank}. {escape(e.repo)}</h3>',
            f"<p><b>{escape(TIER_LABELS[r.tier])}</b>: {escape(r.reason)}. "
            f"{_plural(e.files, 'Python file')}, {e.kafka_files} with Kafka, "
            f"{_plural(e.bugs, 'bug')}, {_plural(e.risks, 'risk')}, {e.advice} advice, "
            f"{e.auto_sites} auto-migratable and {e.manual_sites} manual sites "
            f'({_percent(e.readiness)} automatic). <a href="#repositories">back to the table</a>'
            "</p>",
        ]
        for title, rows, render in (
            ("Manual sites", repo_manual, _manual_rows),
            ("Findings (bugs first, then risks, then advice)", repo_findings, _finding_rows),
            ("Files that could not be checked", bad_by_repo.get(e.repo, []), _problem_rows),
        ):
            if not rows:
                continue
            take = max(0, min(len(rows), MAX_ROWS_PER_REPO, budget))
            budget -= take
            body.append(f"<h4>{escape(title)} ({len(rows)})</h4>")
            if take:
                body.append(render(rows[:take]))
            if take < len(rows):
                body.append(
                    f'<p class="note">{len(rows) - take} more: filter the Parquet outputs '
                    f"on repo = {escape(repr(e.repo))}.</p>"
                )
        body.append("</section>")
        parts.append("".join(body))
    return "".join(parts)


def _finding_rows(rows: Sequence[dict[str, Any]]) -> str:
    return _table(
        ["path", "line", "col", "code", "kind", "message", "fixable"],
        (
            [
                f["path"],
                f["line"],
                f["col"] + 1,
                f["code"],
                kind_of(f),
                f["message"],
                "yes" if f["fixable"] else "no",
            ]
            for f in rows
        ),
        {1, 2},
        ["24%", "4.5em", "3.5em", "5.5em", "4.5em", "", "4.5em"],
    )


def _manual_rows(rows: Sequence[dict[str, Any]]) -> str:
    return _table(
        ["path", "line", "why the codemods leave it"],
        ([m["path"], m["line"], m["reason"]] for m in rows),
        {1},
        ["35%", "4.5em", ""],
    )


def _problem_rows(rows: Sequence[dict[str, Any]]) -> str:
    return _table(
        ["path", "status", "reason"],
        ([p["path"], p["status"], p["reason"]] for p in rows),
        set(),
        ["35%", "9em", ""],
    )


def render_report(
    totals: Totals,
    ranked: Sequence[RankedRepo],
    findings: Sequence[dict[str, Any]],
    problems: Sequence[dict[str, Any]],
    manual: Sequence[dict[str, Any]],
    generated: str,
) -> str:
    """The whole page as one string; ``ranked`` comes from ``rank_repositories``."""
    template = Template(
        resources.files("rebalance_scan").joinpath("report_template.html").read_text("utf-8")
    )
    rules = [
        (code_kind, n, KIND_COLOURS[parse_kind(code_kind.rpartition(" ")[2])])
        for code_kind, n in totals.rule_kinds.items()
    ]
    statuses = [(s, n, STATUS_OK if s == "ok" else STATUS_BAD) for s, n in totals.statuses.items()]
    shown_problems = problems[:MAX_PROBLEM_ROWS]
    problem_html = (
        _table(
            ["repo", "path", "status", "reason"],
            ([p["repo"], p["path"], p["status"], p["reason"]] for p in shown_problems),
            set(),
            ["22%", "30%", "9em", ""],
        )
        + (
            f'<p class="note">{len(problems) - len(shown_problems)} more in files.parquet.</p>'
            if len(problems) > len(shown_problems)
            else ""
        )
        if problems
        else '<p class="empty">Every file was read and parsed.</p>'
    )
    return template.substitute(
        generated=escape(generated),
        cards=_cards(totals, ranked),
        ranking_rule=escape(RANKING_RULE).replace(
            "`rebalance-guard migrate`", "<code>rebalance-guard migrate</code>"
        ),
        tiers=_tiers(ranked),
        start_chart=_start_chart(ranked),
        readiness_chart=_readiness_chart(ranked),
        repo_count=len(ranked),
        repo_rows=_repo_table(ranked),
        rules_chart=bar_chart("Findings per rule", rules),
        status_chart=bar_chart("Files per status", statuses),
        problem_table=problem_html,
        repo_sections=_repo_sections(ranked, findings, problems, manual)
        or '<p class="empty">No repositories.</p>',
        max_rows=MAX_ROWS_PER_REPO,
    )
