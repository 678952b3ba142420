"""``rebalance-guard check -j N`` (issue 26 item 1): worker processes change nothing printed.

The same command, byte for byte, in one process without the cache, in worker processes
without it, and in worker processes with a cold then a warm cache, on the examples and the
lint fixtures given as many paths (repositories and single files), in every output format.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from rebalance_lint import check_runner
from rebalance_lint.check_runner import check_given, check_paths

from tests.lint.expectations import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _given() -> list[Path]:
    """Whole trees, each repository of them, and every fixture file on its own."""
    fleet = sorted(p for p in (EXAMPLES / "fleet").iterdir() if p.is_dir())
    legacy = sorted((EXAMPLES / "legacy").iterdir())
    fixtures = sorted(FIXTURES.iterdir())
    return [EXAMPLES, FIXTURES, *fleet, *legacy, *fixtures, ROOT / "no-such-file.py"]


def _check(*args: str | Path, cache: Path | None = None) -> bytes:
    env = {k: v for k, v in os.environ.items() if k != "REBALANCE_GUARD_CACHE_DIR"}
    if cache is not None:
        env["REBALANCE_GUARD_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-m", "rebalance_cli", "check", *map(str, args)],
        capture_output=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # the fixtures have findings
    assert b"Traceback" not in done.stderr
    return done.stdout + b"\0" + done.stderr


@pytest.mark.parametrize("output_format", ["text", "json", "sarif"])
def test_workers_and_cache_print_what_one_process_prints(
    output_format: str, tmp_path: Path
) -> None:
    given = _given()
    options = ["--output-format", output_format]
    alone = _check(*options, "-j", "1", "--no-cache", *given)
    assert alone.count(b"KRB") > 100
    assert _check(*options, "-j", "2", "--no-cache", *given) == alone
    cache = tmp_path / "cache"
    assert _check(*options, "-j", "2", *given, cache=cache) == alone  # cold
    assert any((cache / "entries").iterdir())
    assert _check(*options, "-j", "2", *given, cache=cache) == alone  # warm
    assert _check(*options, "-j", "1", *given, cache=cache) == alone  # warm, one process


def test_enough_work_goes_to_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above runs workers, not the in-process path it is compared with."""
    pools: list[int] = []

    class Recording(ProcessPoolExecutor):
        def __init__(self, max_workers: int, **kwargs: Any) -> None:
            pools.append(max_workers)
            super().__init__(max_workers=max_workers, **kwargs)

    monkeypatch.setattr(check_runner, "ProcessPoolExecutor", Recording)
    given = [p for p in _given() if p.exists()]
    assert check_paths(given, 2, None) == [check_given(path) for path in given]
    assert pools == [2]
    # one directory (a single repository) or a few files: no pool
    check_paths([FIXTURES], 2, None)
    check_paths(sorted(FIXTURES.glob("krb10*.py"))[:3], 2, None)
    assert pools == [2]


def test_jobs_must_be_a_positive_number() -> None:
    for bad in ("0", "-1", "two"):
        done = subprocess.run(
            [sys.executable, "-m", "rebalance_cli", "check", "-j", bad, str(FIXTURES)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2
        assert "-j/--jobs" in done.stderr and "1 or more" in done.stderr
