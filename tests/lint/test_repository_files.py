"""``check DIR`` and ``check --fix DIR`` on a package directory see its absolute imports.

Files are named below the packages the given directory is in (``app/billing.py`` for
``check app/``), so ``from app.listeners import CommitOnRevoke`` links the registration to
its listener class exactly as when the repository root is given.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from rebalance_lint.check_command import check_directory
from rebalance_lint.reading import repository_files

REPO = Path(__file__).parents[1] / "codemods" / "fixtures" / "repos" / "registered_in_two"


def test_names_start_at_the_outermost_package(tmp_path: Path) -> None:
    shutil.copytree(REPO / "before", tmp_path / "repo")
    app = tmp_path / "repo" / "app"
    assert set(repository_files(app)) == {
        "app/__init__.py", "app/audit.py", "app/billing.py", "app/listeners.py",
    }  # fmt: skip
    assert set(repository_files(tmp_path / "repo")) == set(repository_files(app))
    (app / "sub").mkdir()
    (app / "sub" / "__init__.py").write_text("")
    assert set(repository_files(app / "sub")) == {"app/sub/__init__.py"}
    plain = tmp_path / "scripts"
    plain.mkdir()
    (plain / "run.py").write_text("")
    assert repository_files(plain) == {"run.py": plain / "run.py"}


def _findings(root: Path) -> dict[str, list[tuple[int, str, bool]]]:
    return {
        path.name: [(f.line, f.code, f.fixable) for f in report.findings]
        for path, report in check_directory(root)
        if hasattr(report, "findings")
    }


def test_check_on_the_package_directory_equals_check_on_the_repository(tmp_path: Path) -> None:
    shutil.copytree(REPO / "before", tmp_path / "repo")
    whole = _findings(tmp_path / "repo")
    assert any(code == "KRB203" and fixable for _, code, fixable in whole["billing.py"]), whole
    assert _findings(tmp_path / "repo" / "app") == whole
