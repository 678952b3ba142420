"""flake8 runs the same rules through the KRB entry point, with flake8's own noqa handling.

The plugin yields unfiltered findings and flake8 applies ``# noqa``; rebalance_lint.noqa
mirrors flake8, so flake8 and ``check_source`` (CLI, Spark) must report the same thing.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from rebalance_lint import check_source
from rebalance_lint.engine import findings_for_tree
from rebalance_lint.source import Parsed, load

from tests.lint.expectations import FIXTURES

LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>KRB\d{3}) ")


def run_flake8(*extra: str) -> dict[str, set[tuple[int, int, str]]]:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=KRB", *extra, str(FIXTURES)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    found: dict[str, set[tuple[int, int, str]]] = defaultdict(set)
    for line in result.stdout.splitlines():
        match = LINE.match(line)
        assert match, line
        found[Path(match["path"]).name].add(
            (int(match["line"]), int(match["col"]) - 1, match["code"])
        )
    return found


def test_flake8_and_check_source_agree_including_noqa() -> None:
    by_flake8 = run_flake8()
    for path in sorted(FIXTURES.glob("*.py")):
        report = check_source(path.read_bytes(), str(path))
        ours = {(f.line, f.col, f.code) for f in report.findings}
        assert by_flake8.get(path.name, set()) == ours, path.name
    assert by_flake8["noqa_comments.py"]  # the noqa fixture still has unsuppressed findings


def test_disable_noqa_shows_what_noqa_hid() -> None:
    by_flake8 = run_flake8("--disable-noqa")
    path = FIXTURES / "noqa_comments.py"
    parsed = load(path.read_bytes(), str(path))
    assert isinstance(parsed, Parsed)
    unfiltered = {(f.line, f.col, f.code) for f in findings_for_tree(parsed.tree, parsed.text)}
    assert by_flake8["noqa_comments.py"] == unfiltered
    suppressed = {(f.line, f.col, f.code) for f in check_source(path.read_bytes()).findings}
    assert len(unfiltered) > len(suppressed)


def test_migration_advice_is_opt_in_under_flake8() -> None:
    path = str(FIXTURES / "krb2xx_migration.py")
    default = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", path], capture_output=True, text=True
    ).stdout
    opted_in = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--extend-select=KRB2", path],
        capture_output=True,
        text=True,
    ).stdout
    assert " KRB2" not in default
    assert " KRB201 " in opted_in and " KRB202 " in opted_in and " KRB203 " in opted_in
    bugs = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", str(FIXTURES / "krb101_reentrant.py")],
        capture_output=True,
        text=True,
    ).stdout
    assert " KRB101 " in bugs and " KRB2" not in bugs  # bugs are on by default


def test_plugin_does_no_work_on_files_without_kafka() -> None:
    probe = (
        "import ast, sys\n"
        "from rebalance_lint.flake8_plugin import RebalanceChecker\n"
        "lines = ['import os\\n', 'print(os.sep)\\n']\n"
        "assert list(RebalanceChecker(ast.parse(''.join(lines)), lines).run()) == []\n"
        "print(sorted(m for m in sys.modules if m.startswith('rebalance_lint')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert "rebalance_lint.engine" not in out and "rebalance_lint.analysis" not in out


def test_plugin_reports_with_flake8_columns() -> None:
    lines = (FIXTURES / "krb101_reentrant.py").read_text().splitlines(keepends=True)
    from rebalance_lint.flake8_plugin import RebalanceChecker

    results = list(RebalanceChecker(ast.parse("".join(lines)), lines).run())
    assert results and all(msg.startswith("KRB") for _, _, msg, _ in results)
    assert (9, 4) in {(line, col) for line, col, _, _ in results}  # flake8 adds 1 to col
