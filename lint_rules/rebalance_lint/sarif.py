"""The one SARIF 2.1.0 writer: ``rebalance-guard check --output-format sarif`` and the fleet scan.

Both call :func:`build_sarif` on the same per-file rows (``status``, ``reason``, ``findings``),
so a rule's metadata in code scanning is identical whichever produced the log. It lives here,
not in the scan, because the scan depends on lint and never the reverse.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from rebalance_lint.kinds import SARIF_LEVEL, kind_of, most_urgent
from rebalance_lint.rule_table import BY_CODE

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
Json = dict[str, Any]
#: One file's outcome: ``status``, ``reason`` and ``findings`` (dicts of a Finding's fields).
Row = Mapping[str, Any]


@functools.cache
def _version() -> str:
    """The installed distribution's version, looked up once per process: ``importlib.metadata``
    scans every ``sys.path`` entry's distributions (2.5-4 ms), and the fleet scan writes one
    log per repository."""
    try:
        return metadata.version("rebalance-guard")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def default_level(code: str) -> str:
    """A rule's ``defaultConfiguration`` level: that of the most urgent kind it can give
    (each result carries its own level, from its finding's kind)."""
    known = BY_CODE.get(code)
    kinds = (case.kind for case in known.kinds.values()) if known is not None else ()
    return SARIF_LEVEL[most_urgent(kinds)]


def artifact_uri(path: str) -> str:
    """A relative path stays relative (to the repository root); an absolute one is a file URI."""
    if PurePosixPath(path).is_absolute():
        return PurePosixPath(path).as_uri()
    return quote(path)


def _location(uri: str, line: int | None = None, col: int | None = None) -> Json:
    physical: Json = {"artifactLocation": {"uri": artifact_uri(uri)}}
    if line is not None:
        physical["region"] = {"startLine": max(1, line), "startColumn": max(0, col or 0) + 1}
    return {"physicalLocation": physical}


def reporting_descriptor(code: str, example_message: str) -> Json:
    """A rule's SARIF entry from the rule table (the one source of rule texts)."""
    rule: Json = {"id": code, "defaultConfiguration": {"level": default_level(code)}}
    known = BY_CODE.get(code)
    if known is None:
        rule["shortDescription"] = {"text": example_message}
    else:
        rule["name"] = known.name
        rule["shortDescription"] = {"text": known.name.replace("-", " ")}
        rule["fullDescription"] = {"text": known.rationale}
        rule["help"] = {"text": f"{known.rationale}\n\nFix: {known.fix}"}
    rule["properties"] = {"tags": ["kafka", "rebalance", "KIP-1306"]}
    return rule


def build_sarif(files: Iterable[Row], uri: Callable[[Row], str]) -> Json:
    """A one-run SARIF log from per-file rows; ``uri(row)`` names the file (a path)."""
    rules: dict[str, Json] = {}
    results: list[Json] = []
    notifications: list[Json] = []
    for row in files:
        if row["status"] != "ok":
            notifications.append(
                {
                    "level": "note" if row["status"] == "symlink" else "warning",
                    "message": {"text": f"{row['status']}: {row['reason']}"},
                    "locations": [_location(uri(row))],
                }
            )
        for finding in row.get("findings") or ():
            code = finding["code"]
            if code not in rules:
                rules[code] = reporting_descriptor(code, finding["message"])
            kind = kind_of(finding)
            results.append(
                {
                    "ruleId": code,
                    "level": SARIF_LEVEL[kind],
                    "message": {"text": finding["message"]},
                    "locations": [_location(uri(row), finding["line"], finding["col"])],
                    "properties": {"fixable": finding["fixable"], "kind": kind},
                }
            )
    ordered = sorted(rules)
    index = {code: position for position, code in enumerate(ordered)}
    for result in results:
        result["ruleIndex"] = index[result["ruleId"]]
    driver: Json = {
        "name": "rebalance-guard",
        "semanticVersion": _version(),
        "rules": [rules[code] for code in ordered],
    }
    run: Json = {
        "tool": {"driver": driver},
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
