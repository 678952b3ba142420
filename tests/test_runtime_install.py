"""#27 item 3: ``pip install rebalance-guard`` brings no third-party dependency.

The wheel is built from this checkout and installed into a fresh virtual environment with
``--no-index`` (so it cannot pull in anything), then ``flake8`` as a user adds it to lint.
There, without LibCST: ``import rebalance_guard`` loads only the standard library, ``check``
and the flake8 plugin find the bug of a sample listener, and ``migrate``, ``check --fix`` and
``scan --diffs`` say which extra installs LibCST instead of failing with a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRA = "pip install 'rebalance-guard[codemods]'"


SAMPLE = """\
from kafka import ConsumerRebalanceListener, KafkaConsumer


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer) -> None:
        self.consumer = consumer

    def on_partitions_revoked(self, revoked):
        self.consumer.poll()

    def on_partitions_assigned(self, assigned):
        pass
"""


def _run(*command: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def _ok(*command: object) -> str:
    result = _run(*command)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _finding(output: str) -> str:
    """The sample's one bug: poll() inside on_partitions_revoked (KRB101)."""
    (line,) = [line for line in output.splitlines() if "KRB101" in line]
    assert "poll() on the consumer inside on_partitions_revoked()" in line
    return line


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` directory of a fresh venv holding the wheel and flake8, nothing else."""
    tmp = tmp_path_factory.mktemp("runtime-install")
    _ok(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", tmp / "dist", ROOT)
    (wheel,) = (tmp / "dist").glob("rebalance_guard-*.whl")
    _ok(sys.executable, "-m", "venv", tmp / "venv")
    bin_dir = tmp / "venv" / "bin"
    pip = (bin_dir / "python", "-m", "pip", "--disable-pip-version-check")
    _ok(*pip, "install", "--quiet", "--no-index", wheel)  # fails if it needed anything else
    _ok(*pip, "install", "--quiet", "flake8>=7")  # what a user adds to lint with flake8
    (tmp / "app.py").write_text(SAMPLE)
    return bin_dir


@pytest.mark.slow
def test_the_wheel_requires_nothing_and_libcst_is_absent(fresh: Path) -> None:
    code = (
        "import importlib.metadata as m, importlib.util as u, json; print(json.dumps("
        "[m.requires('rebalance-guard'), u.find_spec('libcst') is None]))"
    )
    requires, no_libcst = json.loads(_ok(fresh / "python", "-c", code))
    assert [r for r in requires if "extra ==" not in r] == []  # everything else is an extra
    assert [r.split(";")[0] for r in requires if "codemods" in r] == ["libcst>=1.5"]
    assert no_libcst


@pytest.mark.slow
def test_import_rebalance_guard_loads_only_the_standard_library(fresh: Path) -> None:
    code = (
        "import sys, json; before = set(sys.modules); import rebalance_guard; "
        "from rebalance_guard import CallbackLogging, RebalanceViewExpiredError; "
        "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before} "
        "- set(sys.stdlib_module_names))))"
    )
    assert json.loads(_ok(fresh / "python", "-c", code)) == ["rebalance_guard"]


@pytest.mark.slow
def test_check_works_without_libcst(fresh: Path) -> None:
    result = _run(fresh / "rebalance-guard", "check", "app.py", cwd=fresh.parent.parent)
    assert result.returncode == 1, result.stdout + result.stderr  # 1: findings
    assert _finding(result.stdout).startswith("app.py:9:9: KRB101 ")


@pytest.mark.slow
def test_the_flake8_plugin_works_without_libcst(fresh: Path) -> None:
    result = _run(fresh / "flake8", "--select", "KRB", "app.py", cwd=fresh.parent.parent)
    assert result.returncode == 1, result.stdout + result.stderr
    assert _finding(result.stdout).startswith("app.py:9:9: KRB101 ")


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [["migrate", "app.py"], ["check", "--fix", "app.py"], ["scan", "app.py", "--diffs"]],
    ids=" ".join,
)
def test_rewriting_commands_name_the_extra_to_install(fresh: Path, command: list[str]) -> None:
    result = _run(fresh / "rebalance-guard", *command, cwd=fresh.parent.parent)
    assert result.returncode == 2, result.stdout + result.stderr
    assert EXTRA in result.stderr
    assert "Traceback" not in result.stderr
    assert (fresh.parent.parent / "app.py").read_text() == SAMPLE  # nothing was touched


@pytest.mark.parametrize(
    "command",
    [["migrate", "x.py"], ["check", "--fix", "x.py"], ["scan", "x", "--diffs", "--out", "o"]],
    ids=" ".join,
)
def test_the_message_comes_before_anything_is_imported(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In this environment (LibCST installed) with LibCST reported missing: the same exit."""
    import rebalance_cli

    monkeypatch.setattr(rebalance_cli, "_no_libcst", lambda: True)
    assert rebalance_cli.main(command) == 2
    assert EXTRA in capsys.readouterr().err
