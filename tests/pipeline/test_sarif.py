"""SARIF output validated against the official SARIF 2.1.0 JSON schema.

``sarif-schema-2.1.0.json`` beside this file is the OASIS SARIF 2.1.0 schema (rtm.5, the
revision published as 2.1.0 and served by SchemaStore), as shipped in the npm package
``@microsoft/jest-sarif`` (MIT): CI cannot download it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema  # type: ignore[import-untyped]
import pyarrow.parquet as pq
import pytest
from rebalance_scan.sarif import fleet_sarif

if TYPE_CHECKING:
    from rebalance_scan.scan import ScanResult

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())


def _validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(log)


def test_schema_is_the_sarif_2_1_0_schema() -> None:
    assert SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]
    assert "sarifLog" not in SCHEMA  # the schema itself, not an example log
    assert {"run", "result", "location", "reportingDescriptor"} <= set(SCHEMA["definitions"])


@pytest.mark.spark
def test_fleet_and_repo_logs_validate_and_hold_every_finding(fleet_scan: ScanResult) -> None:
    findings = pq.read_table(fleet_scan.out / "findings.parquet").to_pylist()
    log = json.loads((fleet_scan.out / "report.sarif").read_text())
    _validate(log)
    results = log["runs"][0]["results"]
    assert sorted(
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["ruleId"],
        )
        for r in results
    ) == sorted((f"{f['repo']}/{f['path']}", f["line"], f["code"]) for f in findings)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    per_repo = 0
    for path in (fleet_scan.out / "sarif").iterdir():
        repo_log = json.loads(path.read_text())
        _validate(repo_log)
        for result in repo_log["runs"][0]["results"]:
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            assert not uri.startswith(path.stem + "/"), "per-repository URIs are repo-relative"
            per_repo += 1
    assert per_repo == len(findings) > 0


def test_bad_files_become_notifications_and_odd_paths_stay_valid() -> None:
    finding = {
        "line": 0, "col": 0, "code": "KRB201", "message": "m (fixable: x)", "fixable": True,
        "kind": "advice",
    }  # fmt: skip
    rows: list[dict[str, Any]] = [
        {
            "repo": "r",
            "path": "dir with space/ä#1.py",
            "status": "ok",
            "reason": "",
            "findings": [finding],
        },
        {
            "repo": "r",
            "path": "bad.py",
            "status": "syntax_error",
            "reason": "line 1",
            "findings": [],
        },
    ]
    log = fleet_sarif(rows)
    _validate(log)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["message"]["text"] for n in notes] == ["syntax_error: line 1"]
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 1}


def test_an_invalid_log_is_rejected() -> None:
    """The validation above is not vacuous: a log GitHub would refuse fails it."""
    log = fleet_sarif([])
    log["runs"][0]["results"] = [{"ruleId": "KRB101", "message": {}}]
    with pytest.raises(jsonschema.ValidationError):
        _validate(log)
