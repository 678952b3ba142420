"""SARIF 2.1.0 logs that GitHub code scanning accepts: the whole fleet, and one per repository.

GitHub uploads are per repository with paths relative to its root, so each repository gets
its own log; the fleet log prefixes paths with the repository name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any
from urllib.parse import quote

from rebalance_lint.rule_table import BY_CODE

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
Json = dict[str, Any]


def _version() -> str:
    try:
        return metadata.version("rebalance-guard")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _level(code: str) -> str:
    """KRB1xx are bugs; KRB2xx are migration advice."""
    return "error" if code.startswith("KRB1") else "note"


def _location(uri: str, line: int | None = None, col: int | None = None) -> Json:
    physical: Json = {"artifactLocation": {"uri": quote(uri)}}
    if line is not None:
        physical["region"] = {"startLine": max(1, line), "startColumn": max(0, col or 0) + 1}
    return {"physicalLocation": physical}


def _rule(code: str, example_message: str) -> Json:
    """A reportingDescriptor from the lint rule table (the one source of rule texts)."""
    rule: Json = {"id": code, "defaultConfiguration": {"level": _level(code)}}
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


def build_sarif(files: Iterable[Json], uri: Callable[[Json], str]) -> Json:
    """A one-run SARIF log from per-file result rows; ``uri(row)`` names the artifact."""
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
        for finding in row["findings"]:
            code = finding["code"]
            if code not in rules:
                rules[code] = _rule(code, finding["message"])
            results.append(
                {
                    "ruleId": code,
                    "level": _level(code),
                    "message": {"text": finding["message"]},
                    "locations": [_location(uri(row), finding["line"], finding["col"])],
                    "properties": {"fixable": finding["fixable"]},
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


def fleet_sarif(files: list[Json]) -> Json:
    return build_sarif(files, lambda row: f"{row['repo']}/{row['path']}")


def repo_sarif(files: list[Json]) -> Json:
    return build_sarif(files, lambda row: str(row["path"]))
