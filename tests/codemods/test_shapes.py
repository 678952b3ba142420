"""The planner organised by shape (DESIGN.md "Codemods", issue 25): every module of
``rebalance_lint.analysis.shapes`` is collected, says what it recognises and plans, and names
fixtures that exist; no module that decides or plans a migration or a fix grows past 400
lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import rebalance_codemods
import rebalance_lint.analysis as analysis
from rebalance_lint.analysis import shapes
from rebalance_lint.analysis.shape import Shape

ROOT = Path(__file__).resolve().parents[2]
SHAPES_DIR = Path(shapes.__file__).parent
ANALYSIS_DIR = Path(analysis.__file__).parent
CODEMODS_DIR = Path(rebalance_codemods.__file__).parent
#: The modules that decide or plan a migration or a fix (besides every shape module).
PLANNER_GLOBS = (
    (ANALYSIS_DIR, "migration*.py"),
    (ANALYSIS_DIR, "fix*.py"),
    (ANALYSIS_DIR, "confluent_callback.py"),
    (ANALYSIS_DIR, "listener_state.py"),
    (ANALYSIS_DIR, "shape.py"),
    (SHAPES_DIR, "*.py"),
    (CODEMODS_DIR, "rewrite*.py"),
)
MAX_LINES = 400


def test_the_collection_finds_every_module_of_the_package() -> None:
    on_disk = sorted(p.stem for p in SHAPES_DIR.glob("*.py") if p.stem != "__init__")
    found = sorted(module.__name__.rpartition(".")[2] for module in shapes.modules())
    assert found == on_disk
    collected = shapes.collected()
    assert len(collected) == len(on_disk)
    assert all(isinstance(shape, Shape) for shape in collected)


def test_a_module_without_a_shape_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    module = shapes.modules()[0]
    monkeypatch.delattr(module, "SHAPE")
    with pytest.raises(TypeError, match="defines no SHAPE"):
        shapes.collected()


@pytest.mark.parametrize("module", shapes.modules(), ids=lambda m: m.__name__.rpartition(".")[2])
def test_every_shape_says_what_it_recognises_and_has_fixtures(module: object) -> None:
    shape = getattr(module, "SHAPE")  # noqa: B009 (the attribute the collection reads)
    assert shape.recognises.strip() and shape.plan.strip()
    assert shape.fixtures, f"{shape.name}: no fixtures"
    for fixture in shape.fixtures:
        path, _, test = fixture.partition("::")
        assert (ROOT / path).exists(), f"{shape.name}: {path} does not exist"
        if test:
            tree = ast.parse((ROOT / path).read_text())
            names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            assert test in names, f"{shape.name}: no {test} in {path}"


def test_every_shape_module_has_a_docstring_and_code_of_its_own() -> None:
    for module in shapes.modules():
        tree = ast.parse(Path(str(module.__file__)).read_text())
        assert ast.get_docstring(tree), module.__name__
        assert any(
            isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Assign)
            for node in tree.body
            if not (isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "SHAPE")
        ), module.__name__


def planner_modules() -> list[Path]:
    return sorted({p for directory, pattern in PLANNER_GLOBS for p in directory.glob(pattern)})


@pytest.mark.parametrize("path", planner_modules(), ids=lambda p: p.name)
def test_no_planner_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)}: {lines} lines"


def test_the_size_limit_sees_the_planners() -> None:
    names = {p.name for p in planner_modules()}
    assert {"migration.py", "migration_confluent.py", "migration_listeners.py", "fixes.py",
            "rewrite.py", "owner_callbacks.py"} <= names  # fmt: skip
