"""``rebalance-guard check --output-format``: SARIF, GitHub annotations, GitLab Code Quality,
``--statistics``; each checked against its consumer's documented format."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from rebalance_lint import sarif as lint_sarif
from rebalance_lint.output_formats import escape_data, escape_property, render_github
from rebalance_lint.rule_table import BY_CODE

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = json.loads((ROOT / "tests" / "pipeline" / "sarif-schema-2.1.0.json").read_text())
#: KRB104's own bad example: a committing revoke that also runs on loss (one finding, a risk).
KRB104_SOURCE = BY_CODE["KRB104"].invalid[0]
#: KRB103's: confluent's bare (asynchronous) commit on revoke (a bug), registered (advice).
KRB103_SOURCE = BY_CODE["KRB103"].invalid[0]


def check(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rebalance_cli", "check", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


#: KRB201's example, registered in the same file, so ``migrate`` has a plan for it (fixable).
MIGRATE_ME = BY_CODE["KRB201"].invalid[0] + (
    "\n\nfrom kafka import KafkaConsumer\n\n"
    'consumer = KafkaConsumer(group_id="g")\n'
    'consumer.subscribe(["t"], listener=Listener(consumer))\n'
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "listener.py").write_text(KRB104_SOURCE)
    (tmp_path / "svc" / "revoke.py").write_text(KRB103_SOURCE)
    (tmp_path / "svc" / "migrate_me.py").write_text(MIGRATE_ME)
    (tmp_path / "svc" / "clean.py").write_text("import kafka\n")
    return tmp_path


def _krb104_line() -> int:
    return next(n for n, text in enumerate(KRB104_SOURCE.splitlines(), 1) if ".commit(" in text)


# --- SARIF -------------------------------------------------------------------------------


def test_sarif_from_check_validates_and_matches_the_scan_writer(repo: Path) -> None:
    result = check("--output-format", "sarif", "svc", cwd=repo)
    assert result.returncode == 1, result.stderr
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(log)
    results = log["runs"][0]["results"]
    located = {
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in results
    }
    assert ("KRB104", "svc/listener.py", _krb104_line()) in located
    # Each result's level is its finding's kind: bug error, risk warning, advice note.
    levels = {(r["ruleId"], r["level"], r["properties"]["kind"]) for r in results}
    assert {("KRB103", "error", "bug"), ("KRB104", "warning", "risk")} <= levels
    assert ("KRB203", "note", "advice") in levels
    assert all(level == lint_sarif.SARIF_LEVEL[kind] for _, level, kind in levels)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    defaults = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in rules}
    assert defaults["KRB103"] == "error" and defaults["KRB201"] == "note"
    assert defaults["KRB104"] == "error"  # the most urgent of its cases (a lost-only commit)
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    # One writer: the scan's per-repository log of the same rows has the same rule metadata.
    from rebalance_scan.sarif import repo_sarif

    rows = [
        {"path": f"svc/{p}", **file}
        for p, file in (
            ("listener.py", _row(repo / "svc" / "listener.py")),
            ("revoke.py", _row(repo / "svc" / "revoke.py")),
            ("migrate_me.py", _row(repo / "svc" / "migrate_me.py")),
        )
    ]
    assert repo_sarif(rows)["runs"][0]["tool"]["driver"]["rules"] == rules
    assert rules[0]["help"]["text"].startswith(BY_CODE[rules[0]["id"]].rationale)


def _row(path: Path) -> dict[str, Any]:
    from dataclasses import asdict

    from rebalance_lint import check_source

    report = check_source(path.read_bytes(), str(path))
    return {"status": report.status, "reason": report.reason,
            "findings": [asdict(f) for f in report.findings]}  # fmt: skip


def test_the_scan_has_no_sarif_writer_of_its_own() -> None:
    source = (ROOT / "pipeline" / "rebalance_scan" / "sarif.py").read_text()
    assert "from rebalance_lint.sarif import" in source
    assert "reportingDescriptor" not in source and '"ruleId"' not in source


def test_sarif_uris_absolute_paths_become_file_uris() -> None:
    assert lint_sarif.artifact_uri("/srv/a b.py") == "file:///srv/a%20b.py"
    assert lint_sarif.artifact_uri("dir/ä#1.py") == "dir/%C3%A4%231.py"


# --- GitHub annotations ----------------------------------------------------------------------
# The syntax GitHub documents ("Workflow commands for GitHub Actions": "::error
# file={name},line={line},col={col},title={title}::{message}") and how the runner parses it
# (actions/runner ActionCommand.TryParseV2): the command name, a space, comma-separated
# key=value properties, "::", the message; property values unescape %0D %0A %3A %2C %25 and
# the message %0D %0A %25.
COMMAND = re.compile(r"^::(?P<name>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<data>.*)$")


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
    for escaped, plain in [*pairs, ("%25", "%")]:
        text = text.replace(escaped, plain)
    return text


def parse_github(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, f"not a workflow command: {line!r}"
    props: dict[str, str] = {}
    for pair in filter(None, (match["props"] or "").split(",")):
        key, sep, value = pair.partition("=")
        assert sep and key in {"file", "line", "col", "endLine", "endColumn", "title"}, pair
        props[key] = _unescape(value, prop=True)
    return match["name"], props, _unescape(match["data"], prop=False)


def test_github_output_is_the_documented_annotation_syntax(repo: Path) -> None:
    result = check("--output-format", "github", "svc", cwd=repo)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines and all(COMMAND.match(line) for line in lines)
    line = next(line for line in lines if "title=KRB104" in line)
    expected = (
        rf"^::warning file=svc/listener\.py,line={_krb104_line()},col=\d+,"
        r"title=KRB104 \(risk\)::KRB104 "
    )
    assert re.match(expected, line), line
    name, props, message = parse_github(line)
    assert (name, props["file"], props["title"]) == ("warning", "svc/listener.py", "KRB104 (risk)")
    assert "::" not in message and "\n" not in line
    bugs = [parse_github(line) for line in lines if "title=KRB103" in line]
    assert bugs and bugs[0][0] == "error" and bugs[0][1]["title"] == "KRB103 (bug)"
    advice = [parse_github(line) for line in lines if "title=KRB201" in line]
    assert advice and advice[0][0] == "notice"  # migration advice is not an error


def test_github_escaping_round_trips_through_the_runner_grammar() -> None:
    path = "odd dir/a,b:c%25.py"
    message = "50% of\r\nlines: a,b::c"
    finding = {
        "line": 3, "col": 4, "code": "KRB104", "message": message, "fixable": False, "kind": "bug"
    }  # fmt: skip
    out = render_github([{"path": path, "status": "ok", "reason": "", "findings": [finding]}], {})
    assert out.count("\n") == 1
    _, props, data = parse_github(out.rstrip("\n"))
    assert props == {"file": path, "line": "3", "col": "5", "title": "KRB104 (bug)"}
    assert data == f"KRB104 {message}"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert escape_data("a:b,c%\n") == "a:b,c%25%0A"


def test_github_reports_files_that_could_not_be_checked(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import kafka\ndef (:\n")
    result = check("--output-format", "github", "broken.py", cwd=tmp_path)
    assert result.returncode == 1
    name, props, _ = parse_github(result.stdout.strip())
    assert name == "error" and props["file"] == "broken.py" and "syntax_error" in props["title"]


# --- GitLab Code Quality ---------------------------------------------------------------------
SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def test_gitlab_code_quality_report(repo: Path) -> None:
    result = check("--output-format", "gitlab", "svc", cwd=repo)
    assert result.returncode == 1
    issues = json.loads(result.stdout)
    assert isinstance(issues, list) and issues
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in SEVERITIES
        assert set(issue["location"]) == {"path", "lines"}
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    krb104 = next(i for i in issues if i["check_name"] == "KRB104")
    assert krb104["location"] == {"path": "svc/listener.py", "lines": {"begin": _krb104_line()}}
    assert krb104["severity"] == "minor"  # a risk
    severities = {i["check_name"]: i["severity"] for i in issues}
    assert severities["KRB103"] == "major" and severities["KRB201"] == "info"  # bug, advice
    # Moving the code down keeps the fingerprint: GitLab does not see a new finding.
    (repo / "svc" / "listener.py").write_text("\n\n" + KRB104_SOURCE)
    moved = json.loads(check("--output-format", "gitlab", "svc", cwd=repo).stdout)
    again = next(i for i in moved if i["check_name"] == "KRB104")
    assert again["fingerprint"] == krb104["fingerprint"]
    assert again["location"]["lines"]["begin"] == _krb104_line() + 2


# --- JSON alias and statistics ---------------------------------------------------------------


def test_format_json_still_works_as_an_alias(repo: Path) -> None:
    old = check("--format", "json", "svc", cwd=repo)
    new = check("--output-format", "json", "svc", cwd=repo)
    assert old.returncode == new.returncode == 1
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert json.loads(new.stdout)["summary"]["findings"] >= 2


def test_statistics_count_findings_per_code_and_kind(repo: Path) -> None:
    full = json.loads(check("--output-format", "json", "svc", cwd=repo).stdout)
    expected: dict[tuple[str, str], int] = {}
    for file in full["files"]:
        for finding in file["findings"]:
            key = (finding["code"], finding["kind"])
            expected[key] = expected.get(key, 0) + 1
    stats = check("--statistics", "--output-format", "json", "svc", cwd=repo)
    assert stats.returncode == 1
    assert {(s["code"], s["kind"]): s["count"] for s in json.loads(stats.stdout)} == expected
    text = check("--statistics", "svc", cwd=repo).stdout.splitlines()
    assert len(text) == len(expected)
    for line in text:
        count, code, kind, name = line.split("\t")
        assert int(count) == expected[code, kind]
        assert name.removeprefix("[*] ") == BY_CODE[code].name
    assert any(line.split("\t")[3].startswith("[*] ") for line in text)  # KRB201 is fixable
    kinds = [line.split("\t")[2] for line in text]
    assert kinds == sorted(kinds, key=("bug", "risk", "advice").index)  # bugs first


def test_statistics_refuses_formats_it_cannot_express(repo: Path) -> None:
    result = check("--statistics", "--output-format", "sarif", "svc", cwd=repo)
    assert result.returncode == 2 and "--statistics" in result.stderr


def test_no_writer_derives_a_kind_from_a_code() -> None:
    """The kind is the rule's decision, read through rebalance_lint.kinds; a writer that went
    back to "KRB1xx means bug" would rank advice (KRB110 on raw confluent) as a bug again."""
    writers = [
        *(ROOT / "lint_rules" / "rebalance_lint").glob("*.py"),
        *(ROOT / "pipeline" / "rebalance_scan").glob("*.py"),
        ROOT / "pipeline" / "rebalance_scan" / "report_template.html",
    ]
    prefix = re.compile(r"""startswith\(\s*["']KRB1|KRB1xx""")
    offenders = [p.name for p in writers if prefix.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
    assert "kind_of" in (ROOT / "lint_rules" / "rebalance_lint" / "sarif.py").read_text()
