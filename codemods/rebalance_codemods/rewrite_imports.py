"""The imports of a rewritten module: added ones sorted in, removed ones mended, so the
module's import block looks as if written by hand."""

from __future__ import annotations

import libcst as cst


def tidy_imports(before: cst.Module, after: cst.Module) -> cst.Module:
    """The module-level imports of ``after`` (the migrated ``before``) as a person would leave
    them: see :func:`mend_removed_imports` and :func:`sort_grown_imports`."""
    return sort_grown_imports(before, mend_removed_imports(before, after))


def mend_removed_imports(before: cst.Module, after: cst.Module) -> cst.Module:
    """``after`` with the blank lines that went with a removed module-level import given back:
    removing ``import functools`` (no partial left) must not join the import groups around
    it, nor leave the file starting with the blank line that followed it."""
    old = list(before.body)
    new = list(after.body)
    if not any(_is_import(s) for s in old):
        return after
    # what each import statement imports from: one that lost some names is still there
    sources = {id(s): _import_sources(s) for s in [*old, *new] if _is_import(s)}
    kept = [
        _is_import(o) and any(_is_import(n) and sources[id(o)] & sources[id(n)] for n in new)
        for o in old
    ]
    changed = False
    for index, stmt in enumerate(new):
        if not _is_import(stmt):
            continue
        k = next(
            (i for i, s in enumerate(old) if _is_import(s) and sources[id(s)] & sources[id(stmt)]),
            None,
        )
        if k is None or k == 0 or not _is_import(old[k - 1]):
            continue
        j = k - 1
        while j >= 0 and _is_import(old[j]) and not kept[j]:
            j -= 1
        if j == k - 1:
            continue  # nothing removed just before this import
        assert isinstance(stmt, cst.SimpleStatementLine)
        removed = old[j + 1]
        assert isinstance(removed, cst.SimpleStatementLine)
        comments = [line for line in stmt.leading_lines if line.comment is not None]
        if j < 0 and not after.header:
            lines = comments  # it is the first statement now
        elif not stmt.leading_lines:
            lines = [line for line in removed.leading_lines if line.comment is None]
        else:
            continue
        new[index] = stmt.with_changes(leading_lines=lines)
        changed = True
    return after.with_changes(body=new) if changed else after


def sort_grown_imports(before: cst.Module, after: cst.Module) -> cst.Module:
    """``after`` with the names of each module-level ``from m import ...`` that the migration
    added names to (``TopicPartition`` for a lambda's annotation) in the order the file kept
    them in (isort's and ruff's: constants, classes, then the rest), if it kept them so."""
    sorted_before: dict[str, list[str]] = {}
    for stmt in before.body:
        if _is_import(stmt) and isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    sorted_before[_module_of(small)] = [a.evaluated_name for a in small.names]
    new = list(after.body)
    changed = False
    for index, stmt in enumerate(new):
        if not (_is_import(stmt) and isinstance(stmt, cst.SimpleStatementLine)):
            continue
        small = stmt.body[0]
        if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
            continue
        names = list(small.names)
        had = sorted_before.get(_module_of(small))
        wanted = sorted(names, key=lambda a: _member_order(a.evaluated_name))
        if had is None or had != sorted(had, key=_member_order) or wanted == names:
            continue
        if not set(had) < {a.evaluated_name for a in names}:
            continue
        commas = [a.comma for a in names]
        aliases = [a.with_changes(comma=comma) for a, comma in zip(wanted, commas, strict=True)]
        new[index] = stmt.with_changes(body=[small.with_changes(names=aliases), *stmt.body[1:]])
        changed = True
    return after.with_changes(body=new) if changed else after


def _module_of(node: cst.ImportFrom) -> str:
    dots = "." * len(node.relative)
    if node.module is None:
        return dots
    return dots + cst.Module(body=[]).code_for_node(node.module)


def _member_order(name: str) -> tuple[int, str]:
    """isort's ``force_sort_within_sections=false``, ``order_by_type``: CONSTANTS, Classes,
    functions."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name


def _import_sources(stmt: cst.CSTNode) -> set[str]:
    """``from a.b import x`` -> {"from .. a.b"}; ``import a, b.c`` -> {"import a", "import b.c"}:
    what stays the same when an import loses some of its names."""
    assert isinstance(stmt, cst.SimpleStatementLine)
    out: set[str] = set()
    code = cst.Module([]).code_for_node
    for small in stmt.body:
        if isinstance(small, cst.ImportFrom):
            module = code(small.module) if small.module is not None else ""
            out.add(f"from {'.' * len(small.relative)} {module}")
        elif isinstance(small, cst.Import):
            out.update(f"import {code(alias.name)}" for alias in small.names)
    return out


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Import | cst.ImportFrom) for small in stmt.body
    )
