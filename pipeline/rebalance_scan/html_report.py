"""The self-contained HTML report: inline CSS and SVG charts, no external resources."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from importlib import resources
from string import Template
from typing import Any

from rebalance_scan.svg_charts import bar_chart, stacked_chart
from rebalance_scan.tables import RepoReadiness, Totals

MAX_FINDING_ROWS = 2000
BUG, ADVICE, AUTO, MANUAL, STATUS_OK, STATUS_BAD = (
    "#c0392b",
    "#2e6da4",
    "#27ae60",
    "#e67e22",
    "#7f8c8d",
    "#8e44ad",
)


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], numeric: set[int]) -> str:
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
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _cards(totals: Totals) -> str:
    bugs = sum(n for code, n in totals.rules.items() if code.startswith("KRB1"))
    cards = [
        ("repositories", totals.repos),
        ("Python files", totals.files),
        ("bugs (KRB1xx)", bugs),
        ("migration advice (KRB2xx)", sum(totals.rules.values()) - bugs),
        ("auto-migratable sites", totals.auto_sites),
        ("manual sites", totals.manual_sites),
    ]
    return "".join(f'<div class="card"><b>{value}</b>{escape(name)}</div>' for name, value in cards)


def render_report(
    totals: Totals,
    entries: Sequence[RepoReadiness],
    findings: Sequence[dict[str, Any]],
    problems: Sequence[dict[str, Any]],
    manual: Sequence[dict[str, Any]],
    generated: str,
) -> str:
    """The whole page as one string."""
    template = Template(
        resources.files("rebalance_scan").joinpath("report_template.html").read_text("utf-8")
    )
    rules = [
        (code, n, BUG if code.startswith("KRB1") else ADVICE) for code, n in totals.rules.items()
    ]
    statuses = [(s, n, STATUS_OK if s == "ok" else STATUS_BAD) for s, n in totals.statuses.items()]
    migrating = [e for e in entries if e.auto_sites or e.manual_sites]
    shown = findings[:MAX_FINDING_ROWS]
    more = len(findings) - len(shown)
    findings_html = _table(
        ["repo", "path", "line", "col", "code", "message", "fixable"],
        (
            [
                f["repo"],
                f["path"],
                f["line"],
                f["col"] + 1,
                f["code"],
                f["message"],
                "yes" if f["fixable"] else "no",
            ]
            for f in shown
        ),
        {2, 3},
    ) + (f'<p class="note">{more} more in findings.parquet.</p>' if more else "")
    return template.substitute(
        generated=escape(generated),
        cards=_cards(totals),
        rules_chart=bar_chart("Findings per rule", rules),
        readiness_chart=stacked_chart(
            "Migration readiness per repository",
            [(e.repo, e.auto_sites, e.manual_sites) for e in migrating],
            (AUTO, MANUAL),
            [f"{_percent(e.readiness)} automatic" for e in migrating],
        ),
        readiness_table=_table(
            [
                "repository",
                "files",
                "Kafka files",
                "bad files",
                "bugs",
                "advice",
                "auto sites",
                "manual sites",
                "readiness",
                "verdict",
            ],
            (
                [
                    e.repo,
                    e.files,
                    e.kafka_files,
                    e.bad_files,
                    e.bugs,
                    e.advice,
                    e.auto_sites,
                    e.manual_sites,
                    _percent(e.readiness),
                    e.verdict,
                ]
                for e in entries
            ),
            set(range(1, 9)),
        ),
        manual_table=_table(
            ["repo", "path", "line", "why the codemods leave it"],
            ([m["repo"], m["path"], m["line"], m["reason"]] for m in manual[:MAX_FINDING_ROWS]),
            {2},
        )
        if manual
        else '<p class="empty">No manual sites.</p>',
        status_chart=bar_chart("Files per status", statuses),
        problem_table=_table(
            ["repo", "path", "status", "reason"],
            ([p["repo"], p["path"], p["status"], p["reason"]] for p in problems),
            set(),
        )
        if problems
        else '<p class="empty">Every file was read and parsed.</p>',
        findings_table=findings_html if findings else '<p class="empty">No findings.</p>',
    )
