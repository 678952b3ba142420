"""Shape: the client imported only inside ``try``/``except ImportError`` (REAL_WORLD.md:
"the listener's module imports the client only inside try/except ImportError").

The module must keep importing without the client. Every import the migration adds from
that client (its ``rebalance_guard`` module, ``TopicPartition``) goes into the module-level
``try:`` block that imports the client, after the client's import, so a missing client is
still caught by the same ``except``. Each ``except`` block that falls through then gets
``if TYPE_CHECKING: raise`` (type checkers analyse the module with the client installed: the
names are bound, not "possibly unbound"), followed by the names the migrated module uses
when imported (the base of a listener class defined at module or class level, the view's
annotation on its methods unless annotations are postponed) bound to ``object`` (a function
to ``None``), so the class is still defined without the client. Uses inside function
bodies need nothing: they run only when called. Refused only where no module-level ``try:``
imports the client itself (a ``try`` inside a function, an ``if``, another ``try``)."""

from __future__ import annotations

import ast
import re

from rebalance_lint.analysis.edits import Edit, MigrationPlan, Span, span
from rebalance_lint.analysis.file_index import _imported_packages
from rebalance_lint.analysis.migration_facts import FileFacts, guard_name
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.local_client_import import (
    lazy_annotations,
    lazy_packages,
    package_of,
    place_lazy_client_imports,
    refuse_all,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def optional_import(facts: FileFacts, package: str, guard_module: str) -> str | None:
    """Why a site of ``package``'s client cannot be migrated here: the file imports the client
    only inside ``try``/``except ImportError`` (an optional dependency), and not in a
    module-level ``try:`` block, where ``guard_module``'s import would go."""
    if package not in facts.index.optional or _guarding_try(facts.tree, package) is not None:
        return None
    if package in lazy_packages(facts.tree):
        return None  # imported only inside functions: local_client_import
    return (
        f"{package} is an optional dependency here, imported only inside try/except "
        f"ImportError below the module level (in a function, an if or another try); the "
        f"codemod adds {guard_module}'s import only next to a module-level one: import "
        f"{package} in a try block at module level (the except binding the names used), then "
        "run migrate again"
    )


def place_optional_imports(facts: FileFacts, plan: MigrationPlan) -> None:
    """Move the imports ``plan`` adds from an optional client into the module-level ``try:``
    block importing it (an edit ``guard_imports`` there), with fallbacks for the names its
    edits use at import time. Sites of such a client were planned only where that block
    exists (:func:`optional_import`)."""
    for package in sorted({p for e in plan.imports if (p := package_of(e[0])) is not None}):
        wanted = sorted(
            (entry for entry in plan.imports if package_of(entry[0]) == package), key=str
        )
        if not wanted:
            continue
        block = _guarding_try(facts.tree, package) if package in facts.index.optional else None
        if block is None:
            lazy = _imported_lazily(facts.tree, package)
            why = lazy and place_lazy_client_imports(facts, plan, package, lazy, wanted)
            if why:
                refuse_all(plan, why)
                return
            continue
        anchor = [s for s in block.body if package in _imported(s)][-1]
        plan.imports.difference_update(wanted)
        local = {alias or obj: obj for _, obj, alias in wanted}
        checking = guard_name(facts, facts.index.names, "typing", "TYPE_CHECKING", plan)
        fallbacks = [f"if {checking}:  # type checkers: {package} is installed", "    raise"]
        fallbacks += [
            f"{name} = object  # type: ignore[misc]"
            if local[name][:1].isupper()
            else f"{name} = None"
            for name in sorted(_used_at_import_time(facts.tree, plan, set(local)))
        ]
        plan.edit(
            Edit(
                "guard_imports",
                span(block),
                other=span(anchor),
                names=tuple((module, obj, alias or "") for module, obj, alias in wanted),
                extra="".join(f"{line}\n" for line in fallbacks),
            )
        )


def _imported_lazily(tree: ast.Module, package: str) -> list[ast.Import | ast.ImportFrom]:
    """The function-local imports of ``package`` when every one it runs is in a function."""
    if any(package in _imported(stmt) for stmt in tree.body):
        return []  # the common case, decided without a walk
    return lazy_packages(tree).get(package, [])


def _guarding_try(tree: ast.Module, package: str) -> ast.Try | None:
    """The first module-level ``try:`` whose own body imports ``package`` (with the package
    optional, that ``try`` catches ImportError: FileIndex.optional)."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Try) and any(package in _imported(s) for s in stmt.body):
            return stmt
    return None


def _imported(stmt: ast.stmt) -> set[str]:
    """The top-level packages ``stmt`` imports, if it is an import."""
    return _imported_packages(stmt) if isinstance(stmt, ast.Import | ast.ImportFrom) else set()


def _used_at_import_time(tree: ast.Module, plan: MigrationPlan, names: set[str]) -> set[str]:
    """Which of ``names`` an edit of ``plan`` writes where the module evaluates it when
    imported: anywhere but inside a function's body (a class body, a base, a decorator, a
    default, an annotation unless ``from __future__ import annotations``)."""
    lazy = lazy_annotations(tree)
    early_spans = _early_spans(tree)
    found: set[str] = set()
    for edit in plan.edits:
        if edit.target not in early_spans:
            continue
        texts = [edit.value, edit.extra, *(part for entry in edit.names for part in entry)]
        texts += [lam.partitions_type for lam in edit.lambdas if not lazy]
        if not lazy:
            texts.append(edit.annotation)
        text = " ".join(texts)
        found |= {name for name in names if re.search(rf"\b{re.escape(name)}\b", text)}
    return found


def _early_spans(tree: ast.Module) -> set[Span]:
    """The spans of the nodes evaluated when the module is imported (not in a function body)."""
    out: set[Span] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        out.add(span(node))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack += [*node.decorator_list, node.args, *([node.returns] if node.returns else [])]
        elif isinstance(node, ast.Lambda):
            stack.append(node.args)
        else:
            stack += list(ast.iter_child_nodes(node))
    return out


SHAPE = Shape(
    name="optional client import",
    planner="shared",
    recognises=(
        "a client package the file imports only inside try: ... except ImportError "
        "(FileIndex.optional), one module-level try importing it itself"
    ),
    plan=(
        "the planners' edits, their imports of that client moved into that try block "
        "(guard_imports, after the client's import), names used at import time bound in "
        "each except block; refusal where no module-level try imports it"
    ),
    fixtures=(
        "tests/codemods/test_optional_client_import.py",
        "tests/codemods/fixtures/optional_confluent.py",
        "tests/codemods/fixtures/optional_kafka_python.py",
        "tests/codemods/fixtures/optional_aiokafka.py",
        "tests/codemods/test_refusals.py",
    ),
)
