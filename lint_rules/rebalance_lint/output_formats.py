"""How ``rebalance-guard check`` prints its results: text, JSON, SARIF, GitHub, GitLab.

Every format renders the same per-file rows (``path``, ``status``, ``reason``, ``findings``)
and the run's summary, with the names ruff and mypy users know from ``--output-format``.
Files that could not be checked appear in every format, never silently dropped.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rebalance_lint.kinds import GITHUB_COMMAND, GITLAB_SEVERITY, KINDS, kind_of
from rebalance_lint.rule_table import BY_CODE
from rebalance_lint.sarif import build_sarif

Row = Mapping[str, Any]
Summary = Mapping[str, int]
Renderer = Callable[[Sequence[Row], Summary], str]


def _findings(row: Row) -> list[Mapping[str, Any]]:
    return list(row.get("findings") or ())


def render_text(rows: Sequence[Row], summary: Summary) -> str:
    """``path:line:col: CODE [kind] message``, one line per finding (col 1-based, as flake8)."""
    lines: list[str] = []
    for row in rows:
        if row["status"] != "ok":
            lines.append(f"{row['path']}: {row['status']}: {row['reason']}")
        for f in _findings(row):
            lines.append(
                f"{row['path']}:{f['line']}:{f['col'] + 1}: {f['code']} [{kind_of(f)}] "
                f"{f['message']}"
            )
    return "".join(line + "\n" for line in lines)


def render_json(rows: Sequence[Row], summary: Summary) -> str:
    return json.dumps({"files": list(rows), "summary": dict(summary)}, indent=2) + "\n"


def render_sarif(rows: Sequence[Row], summary: Summary) -> str:
    return json.dumps(build_sarif(rows, lambda row: str(row["path"])), indent=1) + "\n"


# GitHub workflow commands (docs.github.com "Workflow commands for GitHub Actions"; the
# runner's ActionCommand and @actions/core's command.ts): data escapes %, CR and LF;
# property values also escape ':' and ','. '%' first, so an escape is never escaped twice.
def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_command(command: str, properties: Mapping[str, object], message: str) -> str:
    """``::command key=value,...::message`` with GitHub's escaping."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{command} {props}::{escape_data(message)}"


def render_github(rows: Sequence[Row], summary: Summary) -> str:
    """GitHub Actions annotations: bugs as errors, risks as warnings, advice as notices."""
    lines: list[str] = []
    for row in rows:
        path = str(row["path"])
        if row["status"] != "ok":
            lines.append(
                github_command(
                    "error",
                    {"file": path, "title": f"rebalance-guard: {row['status']}"},
                    f"not checked: {row['reason']}",
                )
            )
        for f in _findings(row):
            kind = kind_of(f)
            properties = {
                "file": path,
                "line": f["line"],
                "col": f["col"] + 1,
                "title": f"{f['code']} ({kind})",
            }
            lines.append(
                github_command(GITHUB_COMMAND[kind], properties, f"{f['code']} {f['message']}")
            )
    return "".join(line + "\n" for line in lines)


def render_gitlab(rows: Sequence[Row], summary: Summary) -> str:
    """GitLab Code Quality report: a JSON array of CodeClimate-style issues.

    The fingerprint leaves the line out, so moving code does not make GitLab see a finding
    as fixed and another as new; identical findings in one file are told apart by order.
    """
    issues: list[dict[str, Any]] = []
    for row in rows:
        path = str(row["path"])
        seen: Counter[tuple[str, str]] = Counter()
        if row["status"] != "ok":
            description = f"not checked: {row['status']}: {row['reason']}"
            issues.append(
                _gitlab_issue(path, "rebalance-guard-not-checked", description, 1, "minor", seen)
            )
        for f in _findings(row):
            severity = GITLAB_SEVERITY[kind_of(f)]
            description = f"{f['code']} {f['message']}"
            issues.append(_gitlab_issue(path, f["code"], description, f["line"], severity, seen))
    return json.dumps(issues, indent=2) + "\n"


def _gitlab_issue(
    path: str,
    check: str,
    description: str,
    line: int,
    severity: str,
    seen: Counter[tuple[str, str]],
) -> dict[str, Any]:
    seen[check, description] += 1
    key = "\0".join((path, check, description, str(seen[check, description])))
    return {
        "description": description,
        "check_name": check,
        "fingerprint": hashlib.sha256(key.encode("utf-8")).hexdigest(),
        "severity": severity,
        "location": {"path": path, "lines": {"begin": max(1, line)}},
    }


RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
    "gitlab": render_gitlab,
}


def statistics(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Findings counted per code and kind (a rule can give more than one), bugs first, then
    risks, then advice, most frequent first within a kind (as ``ruff --statistics``)."""
    counts = Counter((f["code"], kind_of(f)) for row in rows for f in _findings(row))
    fixable = {(f["code"], kind_of(f)) for row in rows for f in _findings(row) if f["fixable"]}
    return [
        {
            "code": code,
            "kind": kind,
            "name": BY_CODE[code].name if code in BY_CODE else "",
            "count": count,
            "fixable": (code, kind) in fixable,
        }
        for (code, kind), count in sorted(
            counts.items(), key=lambda item: (KINDS.index(item[0][1]), -item[1], item[0][0])
        )
    ]


def render_statistics(rows: Sequence[Row], output_format: str) -> str:
    """``count  code  kind  [*] name`` lines (``[*]`` when ``migrate`` fixes some), or JSON."""
    stats = statistics(rows)
    if output_format == "json":
        return json.dumps(stats, indent=2) + "\n"
    width = max((len(str(s["count"])) for s in stats), default=1)
    return "".join(
        f"{s['count']:>{width}}\t{s['code']}\t{s['kind']}\t"
        f"{'[*] ' if s['fixable'] else ''}{s['name']}\n"
        for s in stats
    )
