"""The cache of ``rebalance-guard check`` (issue 26 item 2, :mod:`rebalance_lint.cache`)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rebalance_lint import cache as cache_module
from rebalance_lint import check_runner
from rebalance_lint.cache import (
    CACHE_DIR_NAME,
    CACHE_ENV,
    MAX_AGE,
    Cache,
    default_directory,
)
from rebalance_lint.check_command import run
from rebalance_lint.check_runner import check_directory, check_path
from rebalance_lint.report import FileReport

from tests.lint.expectations import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
LISTENERS = "app/listeners.py"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project (``pyproject.toml``) holding a copy of a two-module repository fixture, the
    working directory, with no cache directory set in the environment."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "repo_listener_elsewhere", root / "repo")
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "repo" / "sub").mkdir()
    monkeypatch.chdir(root / "repo" / "sub")
    monkeypatch.delenv(CACHE_ENV, raising=False)
    return root


def _no_checking(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> dict[str, FileReport]:
        raise AssertionError("checked again although the cache holds the answer")

    monkeypatch.setattr(check_runner, "check_repository", refuse)
    monkeypatch.setattr(check_runner, "check_bytes", refuse)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    run(["--output-format", "json", "-j", "1", *args])
    return capsys.readouterr().out


def test_default_directory_is_the_project_root_with_its_gitignore(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _json(capsys, str(project / "repo"))
    directory = project / CACHE_DIR_NAME
    assert default_directory() == directory
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (directory / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d")
    assert len(list((directory / "entries").rglob("*"))) == 2  # one repository: one entry
    _no_checking(monkeypatch)
    assert _json(capsys, str(project / "repo")) == cold


def test_environment_variable_moves_it_and_no_cache_skips_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.environ[CACHE_ENV] = str(tmp_path / "elsewhere")
    try:
        cold = _json(capsys, "--no-cache", str(project / "repo"))
        assert not (tmp_path / "elsewhere").exists()
        assert _json(capsys, str(project / "repo")) == cold
        assert (tmp_path / "elsewhere" / ".gitignore").is_file()
    finally:
        del os.environ[CACHE_ENV]
    assert not (project / CACHE_DIR_NAME).exists()


def test_a_file_is_a_hit_by_content_and_a_miss_when_it_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = Cache(project / "c")
    path = project / "repo" / LISTENERS
    first = check_path(path, cache)
    assert isinstance(first, FileReport) and first.findings
    path.touch()  # a new modification time changes nothing
    with monkeypatch.context() as patched:
        _no_checking(patched)
        assert check_path(path, cache) == first
    listener_base = b"CommitOnRevoke(ConsumerRebalanceListener)"
    path.write_bytes(path.read_bytes().replace(listener_base, b"CommitOnRevoke"))
    changed = check_path(path, Cache(project / "c"))
    assert isinstance(changed, FileReport) and changed.findings != first.findings
    assert changed == check_path(path)  # what an uncached check says


def test_a_repository_is_checked_again_when_another_module_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """listeners.py's findings depend on main.py, which registers its classes."""
    cache = Cache(project / "c")
    root = project / "repo"
    before = dict(check_directory(root, cache))
    printer = before[root / LISTENERS]
    assert isinstance(printer, FileReport)
    assert "KRB109" in {f.code for f in printer.findings}
    main = root / "app" / "main.py"
    main.write_bytes(main.read_bytes().replace(b"listener=Printer()", b"listener=None"))
    after = dict(check_directory(root, cache))
    assert after == dict(check_directory(root))  # the same as without the cache
    unregistered = after[root / LISTENERS]
    assert isinstance(unregistered, FileReport)
    assert "KRB109" not in {f.code for f in unregistered.findings}
    main.write_bytes(main.read_bytes().replace(b"listener=None", b"listener=Printer()"))
    _no_checking(monkeypatch)
    assert dict(check_directory(root, cache)) == before  # edited back: a hit again


def test_a_module_without_kafka_that_another_one_calls_invalidates_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pipeline/worker.py never names Kafka (single-file checking skips it), yet its
    ``flush()`` committing is what makes listener.py's ``self.worker.flush()`` a KRB105: the
    repository's entry is keyed by every file, so editing worker.py checks listener.py again."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repo_owner_elsewhere", root)
    cache = Cache(tmp_path / "c")
    listener, worker = root / "pipeline" / "listener.py", root / "pipeline" / "worker.py"

    def krb105_lines(compare: bool = True) -> list[int]:
        report = dict(check_directory(root, cache))[listener]
        assert isinstance(report, FileReport)
        if compare:
            assert report == dict(check_directory(root))[listener]  # as without the cache
        return [f.line for f in report.findings if f.code == "KRB105"]

    before = krb105_lines()
    assert len(before) == 2  # self.worker.flush() and commit_all(self.consumer)
    worker.write_bytes(worker.read_bytes().replace(b"self.consumer.commit()", b"pass"))
    assert krb105_lines() == before[1:]  # flush() commits no more
    worker.write_bytes(worker.read_bytes().replace(b"    pass", b"    self.consumer.commit()"))
    _no_checking(monkeypatch)
    assert krb105_lines(compare=False) == before  # edited back: a hit


def test_the_tool_and_the_options_are_in_the_key(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = project / "repo" / LISTENERS
    check_path(path, Cache(project / "c"))
    calls: list[str] = []
    original = check_runner.check_bytes

    def counting(source: bytes, name: str, codes: object = None) -> FileReport:
        calls.append(name)
        return original(source, name, None)

    monkeypatch.setattr(check_runner, "check_bytes", counting)
    check_path(path, Cache(project / "c", options=("--some-option",)))
    assert len(calls) == 1
    cache_module.tool_digest.cache_clear()
    try:
        monkeypatch.setattr(cache_module.sys, "version", "3.99.0 (a different Python)")
        check_path(path, Cache(project / "c"))
        assert len(calls) == 2
    finally:
        cache_module.tool_digest.cache_clear()
    check_path(path, Cache(project / "c"))
    assert len(calls) == 2
    # what the check command loads (a test session may have imported more of the package)
    listed = "from rebalance_lint.cache import tool_modules; print(*tool_modules())"
    modules = subprocess.run(
        [sys.executable, "-c", listed], capture_output=True, text=True, check=True
    ).stdout.split()
    assert {"rebalance_lint/rule_table.py", "rebalance_guard._client_facts"} <= set(modules)
    assert "rebalance_guard.confluent_kafka" not in modules  # the views decide no finding


def test_damaged_entries_leftovers_and_an_unwritable_cache_cost_only_speed(
    project: Path,
) -> None:
    path = project / "repo" / LISTENERS
    expected = check_path(path)
    cache = Cache(project / "c")
    check_path(path, cache)
    [entry] = [p for p in (project / "c" / "entries").rglob("*") if p.is_file()]
    entry.write_bytes(entry.read_bytes()[:20])  # what a disk-full or damaged copy leaves
    (entry.parent / ".tmp-killed").write_bytes(b"{")  # what a killed run leaves
    assert check_path(path, cache) == expected
    assert json.loads(entry.read_bytes())  # rewritten whole
    blocked = project / "blocked"
    blocked.write_text("a file where the cache directory should be")
    assert check_path(path, Cache(blocked)) == expected
    assert check_directory(project / "repo", Cache(blocked)) == check_directory(project / "repo")


def test_concurrent_runs_share_a_cache(project: Path, tmp_path: Path) -> None:
    env = {**os.environ, CACHE_ENV: str(tmp_path / "shared")}
    given = [str(project / "repo"), *map(str, sorted(FIXTURES.glob("*.py")))]
    command = [sys.executable, "-m", "rebalance_cli", "check", "-j", "2", *given]
    alone = subprocess.run([*command, "--no-cache"], capture_output=True, check=False)
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, env=env) for _ in range(3)]
    outputs = [process.communicate()[0] for process in runs]
    assert outputs == [alone.stdout] * 3
    assert not list((tmp_path / "shared").rglob(".tmp-*"))
    again = subprocess.run(command, capture_output=True, env=env, check=False)
    assert again.stdout == alone.stdout


def _imports(package: Path) -> set[str]:
    names: set[str] = set()
    for module in package.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_bytes())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    return names


def test_the_flake8_plugin_and_the_fleet_scan_never_write_it(project: Path) -> None:
    writers = {
        "rebalance_lint.cache",
        "rebalance_lint.check_runner",
        "rebalance_lint.check_command",
    }
    assert not writers & _imports(ROOT / "pipeline" / "rebalance_scan")
    plugin = ast.parse((ROOT / "lint_rules" / "rebalance_lint" / "flake8_plugin.py").read_bytes())
    assert not {n.module for n in ast.walk(plugin) if isinstance(n, ast.ImportFrom)} & writers
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "KRB", str(project / "repo")],
        capture_output=True,
        text=True,
        cwd=project,
        env={k: v for k, v in os.environ.items() if k != CACHE_ENV},
        check=False,
    )
    assert "KRB203" in done.stdout, done.stderr
    assert not (project / CACHE_DIR_NAME).exists()


def test_unused_entries_and_leftovers_are_pruned_once_a_day(project: Path) -> None:
    cache = Cache(project / "c")
    path = project / "repo" / LISTENERS
    check_path(path, cache)
    check_directory(project / "repo", cache)
    entries = sorted(p for p in (project / "c" / "entries").glob("*/*"))
    assert len(entries) == 2
    used, unused = entries
    leftover = used.parent / ".tmp-killed"
    leftover.write_bytes(b"{")
    now = time.time()
    month = now - MAX_AGE - 60
    for entry in (used, unused):
        os.utime(entry, (month, month))
    os.utime(leftover, (now - 7200, now - 7200))
    key = used.name
    assert cache.get(key) is not None  # a hit: used again today
    cache.prune(now)
    assert used.is_file() and not unused.exists() and not leftover.exists()
    os.utime(used, (month, month))
    cache.prune(now + 3600)  # pruned an hour ago: not again
    assert used.is_file()
    cache.prune(now + 2 * 24 * 3600)
    assert not used.exists()
    assert (project / "c" / ".gitignore").is_file()


def test_a_module_edited_while_it_is_checked_leaves_no_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond the bytes a repository keeps in memory, a module without Kafka is read again
    from disk when a Kafka module needs it; edited in between, the reports are not those of
    the bytes the entry would be keyed by, so none is written (the next run checks again)."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "repo_owner_elsewhere", root)
    cache = Cache(tmp_path / "c")
    listener, worker = root / "pipeline" / "listener.py", root / "pipeline" / "worker.py"
    monkeypatch.setattr(check_runner._Sources, "HELD_BYTES", 0)  # every such module re-read
    first_read = check_runner.read_source
    edited = worker.read_bytes().replace(b"self.consumer.commit()", b"pass")

    def edited_after_first_read(path: Path) -> object:
        if path == worker and getattr(edited_after_first_read, "seen", False):
            return edited
        if path == worker:
            edited_after_first_read.seen = True  # type: ignore[attr-defined]
        return first_read(path)

    monkeypatch.setattr(check_runner, "read_source", edited_after_first_read)
    raced = dict(check_directory(root, cache))[listener]
    assert isinstance(raced, FileReport)
    assert len([f for f in raced.findings if f.code == "KRB105"]) == 1  # read back edited
    monkeypatch.setattr(check_runner, "read_source", first_read)
    report = dict(check_directory(root, cache))[listener]  # unedited on disk: checked again
    assert isinstance(report, FileReport)
    assert len([f for f in report.findings if f.code == "KRB105"]) == 2
