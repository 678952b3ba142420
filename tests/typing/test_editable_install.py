"""The README's development install is visible to type checkers run in a user's project.

setuptools' editable install is an import hook that mypy and pyright cannot see, so a
``pip install -e`` of this repository left ``import rebalance_guard`` unresolved in a user's
project while a normal install worked. The build backend (hatchling) now writes a plain
``.pth`` path file instead. These tests do what a user does: a fresh virtual environment,
``pip install -e <repo>``, mypy and pyright installed next to it, run from a directory outside
the repository on the user's own file; the checks still reject ``view.poll()``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

GOOD = """\
from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener


class CommitOnRevoke(RebalanceListener):
    def on_partitions_revoked(self, partitions: object, consumer: RebalanceConsumer) -> None:
        consumer.commit()

    def on_partitions_assigned(self, partitions: object, consumer: RebalanceConsumer) -> None:
        pass
"""
BAD = """\
from rebalance_guard.kafka_python import RebalanceConsumer


def drain(consumer: RebalanceConsumer) -> None:
    consumer.poll()
"""


def _run(
    args: list[str | Path], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def user_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with ``pip install -e <repo>`` plus mypy and pyright, 'activated'."""
    home = tmp_path_factory.mktemp("editable")
    env_dir = home / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env |= {"VIRTUAL_ENV": str(env_dir), "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}
    # The checkers at the versions this project tests with (from pip's cache when offline).
    checkers = [f"{name}=={metadata.version(name)}" for name in ("mypy", "pyright")]
    install = _run([bin_dir / "pip", "install", "-q", "-e", ROOT, *checkers], cwd=home, env=env)
    assert install.returncode == 0, install.stdout + install.stderr
    return home, env


def _user_project(home: Path, name: str, source: str) -> Path:
    project = home / name  # outside the repository: no pyproject, no extraPaths to help
    project.mkdir(exist_ok=True)
    (project / "app.py").write_text(source)
    assert not project.resolve().is_relative_to(ROOT)
    return project


@pytest.mark.slow
def test_the_editable_install_is_a_static_path_entry(
    user_env: tuple[Path, dict[str, str]],
) -> None:
    home, env = user_env
    site = _run(["python", "-c", "import site; print(site.getsitepackages()[0])"], home, env)
    pth = [p for p in Path(site.stdout.strip()).glob("*.pth") if "rebalance" in p.name]
    assert len(pth) == 1, "no .pth file for rebalance-guard"
    entries = set(pth[0].read_text().split())
    assert {
        str(ROOT / d) for d in ("stubs", "lint_rules", "codemods", "pipeline", "cli")
    } <= entries
    assert not list(Path(site.stdout.strip()).glob("__editable__*finder*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_checkers_resolve_the_editable_install_from_a_users_project(
    user_env: tuple[Path, dict[str, str]], checker: str
) -> None:
    home, env = user_env
    command = ["mypy", "--strict", "app.py"] if checker == "mypy" else ["pyright", "app.py"]
    good = _run(command, _user_project(home, "good", GOOD), env)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _run(command, _user_project(home, "bad", BAD), env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "poll" in bad.stdout
    assert "import-not-found" not in bad.stdout and "reportMissingImports" not in bad.stdout


@pytest.mark.slow
def test_the_wheel_ships_every_package_its_data_and_the_entry_points(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path, ROOT],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("rebalance_guard-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = ("rebalance_guard", "rebalance_lint", "rebalance_codemods", "rebalance_scan",
                "rebalance_cli")  # fmt: skip
    assert {f"{p}/py.typed" for p in packages} | {"rebalance_scan/report_template.html"} <= names
    for folder in ("stubs", "lint_rules", "codemods", "pipeline", "cli"):
        for source in (ROOT / folder).rglob("*.py"):
            assert source.relative_to(ROOT / folder).as_posix() in names, source
    entry_points = (
        zipfile.ZipFile(wheel).read("rebalance_guard-0.1.0.dist-info/entry_points.txt").decode()
    )
    assert "rebalance-guard = rebalance_cli:main" in entry_points
    assert "KRB = rebalance_lint.flake8_plugin:RebalanceChecker" in entry_points
