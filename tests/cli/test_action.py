"""The GitHub Action (``action.yml``) run as GitHub runs its shell steps, without GitHub.

The composite action's ``run:`` steps execute in order with bash (``bash --noprofile --norc
-eo pipefail``, GitHub's ``shell: bash``), with ``${{ inputs.* }}`` and ``${{ steps.*.outputs.*
}}`` substituted, ``if:`` conditions evaluated, and GITHUB_OUTPUT / GITHUB_ENV /
GITHUB_STEP_SUMMARY files honoured. The install step makes a fresh virtual environment and
pip-installs the action's own checkout. ``uses:`` steps (the SARIF upload) are not run: the
test checks what they would be given.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import yaml  # type: ignore[import-untyped]
from rebalance_lint.rule_table import BY_CODE

ROOT = Path(__file__).resolve().parent.parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SCHEMA = json.loads((ROOT / "tests" / "pipeline" / "sarif-schema-2.1.0.json").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class Run:
    """What running the action produced."""

    outcomes: dict[str, int] = field(default_factory=dict)  # step name -> exit status
    skipped: list[str] = field(default_factory=list)
    uses: list[dict[str, Any]] = field(default_factory=list)  # the `uses:` steps, resolved
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    summary: str = ""
    log: str = ""
    step_logs: dict[str, str] = field(default_factory=dict)


def _value(name: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    parts = name.split(".")
    if parts[0] == "inputs":
        return inputs[parts[1]]
    if parts[0] == "steps" and parts[2] == "outputs":
        return outputs.get(parts[1], {}).get(parts[3], "")
    raise AssertionError(f"expression context not simulated: {name}")


def _substitute(text: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    return EXPRESSION.sub(lambda m: _value(m[1], inputs, outputs), text)


def _condition(
    text: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]], failed: bool
) -> bool:
    """GitHub's ``if:`` for the operators this action uses (&&, ==, !=, always())."""
    expression = EXPRESSION.fullmatch(text.strip())
    source = expression[1] if expression else text
    python = re.sub(
        r"(inputs|steps)\.[\w.-]+",
        lambda m: repr(_value(m[0], inputs, outputs)),
        source.replace("&&", " and ").replace("||", " or ").replace("always()", "True"),
    )
    result = bool(eval(python, {"__builtins__": {}}, {"True": True}))
    uses_status = "always()" in source
    return result if (uses_status or not failed) else False


def run_action(workspace: Path, runner_temp: Path, **given: str) -> Run:
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update({name.replace("_", "-"): value for name, value in given.items()})
    run = Run()
    env_file, summary = runner_temp / "github_env", runner_temp / "step_summary"
    env_file.touch()
    summary.touch()
    extra_env: dict[str, str] = {}
    failed = False
    for step in ACTION["runs"]["steps"]:
        name = step["name"]
        if "if" in step and not _condition(step["if"], inputs, run.outputs, failed):
            run.skipped.append(name)
            continue
        if "uses" in step:
            with_ = {
                k: _substitute(str(v), inputs, run.outputs) for k, v in step.get("with", {}).items()
            }
            run.uses.append({"uses": step["uses"], "with": with_})
            continue
        assert step["shell"] == "bash"
        output_file = runner_temp / f"output_{len(run.outcomes)}"
        output_file.touch()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "VIRTUAL_ENV"))}
        env.update(
            GITHUB_ACTION_PATH=str(ROOT),
            GITHUB_WORKSPACE=str(workspace),
            RUNNER_TEMP=str(runner_temp),
            GITHUB_OUTPUT=str(output_file),
            GITHUB_ENV=str(env_file),
            GITHUB_STEP_SUMMARY=str(summary),
            **extra_env,
        )
        env.update(
            {k: _substitute(str(v), inputs, run.outputs) for k, v in step.get("env", {}).items()}
        )
        script = runner_temp / "step.sh"
        script.write_text(_substitute(step["run"], inputs, run.outputs))
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace, env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        run.step_logs[name] = result.stdout + result.stderr
        run.log += f"--- {name}: {result.returncode}\n{result.stdout}{result.stderr}"
        run.outcomes[name] = result.returncode
        failed = failed or result.returncode != 0
        if "id" in step:
            run.outputs[step["id"]] = dict(
                line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
            )
        extra_env = dict(
            line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line
        )
    run.summary = summary.read_text()
    return run


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runner_temp")


@pytest.fixture
def repo_with_finding(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    (workspace / "service").mkdir(parents=True)
    (workspace / "service" / "listener.py").write_text(BY_CODE["KRB104"].invalid[0])  # a risk
    (workspace / "service" / "revoke.py").write_text(BY_CODE["KRB103"].invalid[0])  # a bug
    legacy = ROOT / "examples" / "legacy" / "kafka_python_consumer.py"  # migrate rewrites it
    (workspace / "service" / "legacy.py").write_bytes(legacy.read_bytes())
    return workspace


def test_the_action_is_composite_and_uploads_with_codeql() -> None:
    assert ACTION["runs"]["using"] == "composite"
    uses = [s["uses"] for s in ACTION["runs"]["steps"] if "uses" in s]
    assert uses == ["github/codeql-action/upload-sarif@v3"]
    assert all("image" not in s for s in ACTION["runs"]["steps"])


@pytest.mark.slow
def test_the_action_checks_uploads_and_fails_on_findings(
    repo_with_finding: Path, runner_temp: Path
) -> None:
    run = run_action(repo_with_finding, runner_temp, migrate_check="true")
    assert run.outcomes["Install rebalance-guard"] == 0, run.log
    assert run.outcomes["Check"] == 0, run.log  # findings do not stop the upload
    assert run.outputs["check"] == {"exit-code": "1"}
    (upload,) = run.uses
    sarif_path = repo_with_finding / upload["with"]["sarif_file"]
    log = json.loads(sarif_path.read_text())
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    results = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in log["runs"][0]["results"]
    }
    assert ("KRB104", "service/listener.py") in results
    assert any(rule.startswith("KRB2") and uri == "service/legacy.py" for rule, uri in results)
    assert run.outcomes["Migration check"] == 1, run.log  # legacy.py still needs migrating
    assert "legacy.py" in run.step_logs["Migration check"]
    assert "Traceback" not in run.step_logs["Migration check"], run.log
    assert "Fail on findings" in run.skipped  # a failed step stops the rest, as on GitHub
    assert "KRB104" in run.summary


@pytest.mark.slow
def test_a_clean_repository_passes_every_step(tmp_path: Path, runner_temp: Path) -> None:
    workspace = tmp_path / "clean"
    workspace.mkdir()
    (workspace / "ok.py").write_text(BY_CODE["KRB104"].valid[0])
    run = run_action(workspace, runner_temp, migrate_check="true", annotations="true")
    assert set(run.outcomes.values()) == {0}, run.log
    assert run.outputs["check"] == {"exit-code": "0"}
    assert "Fail on findings" in run.skipped
    log = json.loads((workspace / "rebalance-guard.sarif").read_text())
    assert log["runs"][0]["results"] == []


@pytest.mark.slow
def test_findings_fail_the_job_after_the_upload(repo_with_finding: Path, runner_temp: Path) -> None:
    run = run_action(repo_with_finding, runner_temp, paths="service/revoke.py", annotations="true")
    assert run.outcomes["Check"] == 0 and run.outputs["check"]["exit-code"] == "1"
    assert len(run.uses) == 1  # uploaded
    assert run.outcomes["Fail on findings"] == 1
    assert "::error file=service/revoke.py,line=" in run.log  # the annotations: a bug
    assert "Migration check" in run.skipped


@pytest.mark.slow
def test_fail_on_findings_follows_the_kind(repo_with_finding: Path, runner_temp: Path) -> None:
    """The default fails on bugs only: a risk is uploaded and annotated, the job passes."""
    risk = "service/listener.py"
    run = run_action(repo_with_finding, runner_temp, paths=risk, annotations="true")
    assert run.outputs["check"]["exit-code"] == "0" and "Fail on findings" in run.skipped
    assert "::warning file=service/listener.py,line=" in run.log  # annotated as a risk
    log = json.loads((repo_with_finding / "rebalance-guard.sarif").read_text())
    assert [r["level"] for r in log["runs"][0]["results"]] == ["warning"]
    run = run_action(repo_with_finding, runner_temp, paths=risk, fail_on_findings="risk")
    assert run.outcomes["Fail on findings"] == 1
    run = run_action(repo_with_finding, runner_temp, paths=risk, fail_on_findings="true")
    assert run.outcomes["Fail on findings"] == 1  # true: any finding, as before kinds
    run = run_action(repo_with_finding, runner_temp, fail_on_findings="false")
    assert run.outputs["check"]["exit-code"] == "1" and "Fail on findings" in run.skipped
    run = run_action(repo_with_finding, runner_temp, fail_on_findings="errors")
    assert run.outcomes["Check"] == 2 and "fail-on-findings is bug, risk" in run.log
