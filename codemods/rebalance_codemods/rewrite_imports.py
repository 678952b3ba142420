"""The imports of a rewritten module: added ones sorted in, removed ones mended, so the
module's import block looks as if written by hand; and the ``guard_imports`` editor, which
puts the imports of an optional client's names into the ``try:`` block importing it."""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import Editor, NodeEdit, PlanMismatch, _dotted, _Finder


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


def _guard_imports(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """At a ``try:``: ``edit.names`` (module, name, alias) imported after the statement at
    ``edit.other`` of its body (added to a ``from module import ...`` already there, else a new
    statement), and the statements of ``edit.extra`` appended to each ``except`` block that
    does not end in ``raise`` (:mod:`rebalance_lint.analysis.shapes.optional_client_import`).
    Without ``edit.other``, at an import inside a function: ``edit.names`` imported right
    after it (:func:`_after_import`)."""
    if edit.other is None:
        return _after_import(edit, finder)
    block = finder.find(edit.target, cst.Try)
    assert edit.other is not None
    anchor: cst.CSTNode
    try:
        anchor = finder.find(edit.other, cst.ImportFrom)
    except PlanMismatch:
        anchor = finder.find(edit.other, cst.Import)
    line = finder.parent(anchor)
    lines = _lines(block.body)
    position = next((i for i, stmt in enumerate(lines) if stmt is line), len(lines) - 1)
    modules: dict[str, list[cst.ImportAlias]] = {}
    for module, name, alias in edit.names:
        asname = cst.AsName(cst.Name(alias)) if alias else None
        modules.setdefault(module, []).append(cst.ImportAlias(cst.Name(name), asname=asname))
    fallbacks = list(cst.parse_module(edit.extra).body)

    def change(node: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(node, cst.Try)
        body = _lines(node.body)
        added: list[cst.BaseStatement] = []
        for module, aliases in modules.items():
            index = next((i for i, s in enumerate(body) if _imports_from(s, module)), None)
            if index is None:
                names = sorted(aliases, key=lambda a: _member_order(a.evaluated_name))
                added.append(cst.SimpleStatementLine([cst.ImportFrom(_dotted(module), names)]))
            else:
                body[index] = _with_names(body[index], aliases)
        body[position + 1 : position + 1] = added
        handlers = [
            h.with_changes(body=_with_lines(h.body, [*_lines(h.body), *fallbacks]))
            if fallbacks and not _ends_in_raise(_lines(h.body))
            else h
            for h in node.handlers
        ]
        return node.with_changes(body=_with_lines(node.body, body), handlers=handlers)

    return block, change


def _after_import(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """At an import (a client's, inside a function: :mod:`rebalance_lint.analysis.shapes.
    local_client_import`): ``edit.names`` imported in the statements right after it, in the
    same block (its own ``from module import ...`` gains the names from that module), alone on
    their lines when it is alone on its line, else after it on that line."""
    anchor: cst.Import | cst.ImportFrom
    try:
        anchor = finder.find(edit.target, cst.ImportFrom)
    except PlanMismatch:
        anchor = finder.find(edit.target, cst.Import)
    line = finder.parent(anchor)
    own_line = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
    modules: dict[str, list[cst.ImportAlias]] = {}
    for module, name, alias in edit.names:
        asname = cst.AsName(cst.Name(alias)) if alias else None
        modules.setdefault(module, []).append(cst.ImportAlias(cst.Name(name), asname=asname))
    same = (
        _module_of(anchor)
        if isinstance(anchor, cst.ImportFrom)
        and not anchor.relative
        and not isinstance(anchor.names, cst.ImportStar)
        else None
    )
    joined = modules.pop(same, []) if same is not None else []
    added = [
        cst.ImportFrom(
            _dotted(module), sorted(aliases, key=lambda a: _member_order(a.evaluated_name))
        )
        for module, aliases in modules.items()
    ]

    def grown(node: cst.CSTNode) -> cst.BaseSmallStatement:
        if joined and isinstance(node, cst.ImportFrom):
            return _from_with_names(node, joined)
        assert isinstance(node, cst.Import | cst.ImportFrom)
        return node

    def change_line(node: cst.CSTNode) -> cst.CSTNode | cst.FlattenSentinel[cst.CSTNode]:
        assert isinstance(node, cst.SimpleStatementLine)
        first = node.with_changes(body=[grown(node.body[0])])
        return cst.FlattenSentinel([first, *(cst.SimpleStatementLine([s]) for s in added)])

    def change_small(node: cst.CSTNode) -> cst.CSTNode | cst.FlattenSentinel[cst.CSTNode]:
        return cst.FlattenSentinel([grown(node), *added])

    return (line, change_line) if own_line else (anchor, change_small)


def _imports_from(stmt: cst.BaseStatement, module: str) -> bool:
    """Whether ``stmt`` is ``from module import a, b`` alone on its line."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    return (
        isinstance(small, cst.ImportFrom)
        and not small.relative
        and not isinstance(small.names, cst.ImportStar)
        and _module_of(small) == module
    )


def _with_names(stmt: cst.BaseStatement, aliases: list[cst.ImportAlias]) -> cst.BaseStatement:
    """``stmt`` (``from m import ...`` alone on its line) importing ``aliases`` too, in the
    members' order (constants, classes, the rest), each once."""
    assert isinstance(stmt, cst.SimpleStatementLine)
    small = stmt.body[0]
    assert isinstance(small, cst.ImportFrom)
    return stmt.with_changes(body=[_from_with_names(small, aliases)])


def _from_with_names(small: cst.ImportFrom, aliases: list[cst.ImportAlias]) -> cst.ImportFrom:
    assert not isinstance(small.names, cst.ImportStar)
    had = list(small.names)
    seen = {(a.evaluated_name, a.evaluated_alias) for a in had}
    new = [a for a in aliases if (a.evaluated_name, a.evaluated_alias) not in seen]
    if not new:
        return small
    names = sorted([*had, *new], key=lambda a: _member_order(a.evaluated_name))
    names = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in names]
    return small.with_changes(names=names)


def _lines(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block, a one-line suite (``except ImportError: X = None``) as
    one line of an indented block."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    assert isinstance(block, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(block.body, trailing_whitespace=block.trailing_whitespace)]


def _with_lines(block: cst.BaseSuite, lines: list[cst.BaseStatement]) -> cst.BaseSuite:
    if isinstance(block, cst.IndentedBlock):
        return block.with_changes(body=lines)
    return cst.IndentedBlock(lines)


def _ends_in_raise(lines: list[cst.BaseStatement]) -> bool:
    last = lines[-1] if lines else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)


EDITORS: dict[str, Editor] = {"guard_imports": _guard_imports}
