"""Turn a migration plan's edits into LibCST changes: find each span's node, then edit it.

The plan (``rebalance_lint.analysis.migration``, or ``rebalance_lint.analysis.fixes`` for the
KRB103/KRB104 auto-fixes) decided everything from the ``ast`` model;
this module only locates the planned nodes in the LibCST tree (an ``ast`` span converted from
UTF-8 byte columns to LibCST's code-point columns, and the node kind the action expects) and
builds the replacement. Nothing here decides whether a site may be migrated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst
from libcst.metadata import CodeRange
from rebalance_lint.analysis.edits import Edit, LambdaMethod, MigrationPlan, Span

from rebalance_codemods.syntax import (
    append_param,
    drop_arg,
    drop_param,
    drop_statement,
    find_arg,
    one_line,
)

Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]
#: An edit receives the updated node (children already rewritten) and returns its replacement.
NodeEdit = Callable[[cst.CSTNode], Replacement]
Key = tuple[int, int, int, int]
T = TypeVar("T", bound=cst.CSTNode)

#: ``find`` takes a concrete type; every expression node derives from this one.
_EXPRESSION: type[cst.BaseExpression] = cst.BaseExpression  # type: ignore[type-abstract]
LISTENER_POSITION = 2  # subscribe(topics=(), pattern=None, listener=None) in both clients


class PlanMismatch(Exception):
    """A planned span has no node of the expected kind: the plan and the tree disagree."""


@dataclass
class Located:
    """The plan's edits keyed by the original LibCST nodes they apply to."""

    edits: dict[cst.CSTNode, list[NodeEdit]]
    unused_imports: list[cst.BaseExpression]


def locate(
    plan: MigrationPlan,
    module: cst.Module,
    positions: Mapping[cst.CSTNode, CodeRange],
    parents: Mapping[cst.CSTNode, cst.CSTNode],
) -> Located:
    """Key every edit of ``plan`` by its node in ``module`` (positions from PositionProvider)."""
    finder = _Finder(module, positions, parents)
    edits: dict[cst.CSTNode, list[NodeEdit]] = {}
    for edit in plan.edits:
        node, change = _EDITORS[edit.action](edit, finder)
        edits.setdefault(node, []).append(change)
    unused = [finder.find(span, _EXPRESSION) for span in plan.unused_imports]
    return Located(edits, unused)


def apply(edits: list[NodeEdit], node: cst.CSTNode) -> Replacement:
    """Run ``edits`` in order; a removal or split ends the chain."""
    result: Replacement = node
    for edit in edits:
        if not isinstance(result, cst.CSTNode):
            break
        result = edit(result)
    return result


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


class _Finder:
    def __init__(
        self,
        module: cst.Module,
        positions: Mapping[cst.CSTNode, CodeRange],
        parents: Mapping[cst.CSTNode, cst.CSTNode],
    ) -> None:
        self._lines = re.split("\r\n|\r|\n", module.code)
        self._parents = parents
        self._by_range: dict[Key, list[cst.CSTNode]] = {}
        for node, where in positions.items():
            key = (where.start.line, where.start.column, where.end.line, where.end.column)
            self._by_range.setdefault(key, []).append(node)

    def _column(self, line: int, byte_col: int) -> int:
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def find(self, span: Span, kind: type[T]) -> T:
        key = (
            span.line,
            self._column(span.line, span.col),
            span.end_line,
            self._column(span.end_line, span.end_col),
        )
        for node in self._by_range.get(key, ()):
            if isinstance(node, kind):
                return node
        raise PlanMismatch(f"no {kind.__name__} at {span}")

    def parent(self, node: cst.CSTNode) -> cst.CSTNode:
        return self._parents[node]


Editor = Callable[[Edit, _Finder], tuple[cst.CSTNode, NodeEdit]]
_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _split_subscribe(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``c.subscribe(t, listener=l)`` -> ``set_rebalance_listener(c, l)`` + ``c.subscribe(t)``."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.SimpleStatementLine)
        expr = node.body[0]
        assert isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)
        call = expr.value
        assert isinstance(call.func, cst.Attribute)
        index = find_arg(call.args, "listener", LISTENER_POSITION)
        assert index is not None
        register = cst.Call(
            func=cst.Name(edit.value),
            args=[
                cst.Arg(call.func.value.deep_clone(), comma=_COMMA),
                cst.Arg(call.args[index].value),
            ],
        )
        first = cst.SimpleStatementLine(body=[cst.Expr(register)], leading_lines=node.leading_lines)
        second = node.with_changes(
            leading_lines=(),
            body=[expr.with_changes(value=call.with_changes(args=drop_arg(call.args, index)))],
        )
        return cst.FlattenSentinel([first, second])

    return finder.find(edit.target, cst.SimpleStatementLine), change


def _replace_with_name(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """The expression becomes the name ``value``, or the attribute for a dotted one."""
    return finder.find(edit.target, _EXPRESSION), lambda _node: _dotted(edit.value)


def _dotted(name: str) -> cst.Name | cst.Attribute:
    head, _, attr = name.rpartition(".")
    if not head:
        return cst.Name(name)
    return cst.Attribute(value=_dotted(head), attr=cst.Name(attr))


def _drop_param(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        return node.with_changes(params=drop_param(node.params, edit.index))

    return finder.find(edit.target, cst.FunctionDef), change


def _drop_init_statement(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    assert edit.other is not None
    doomed = finder.find(edit.other, cst.SimpleStatementLine)

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock)
        return node.with_changes(body=drop_statement(node.body, doomed, fill=False))

    return finder.find(edit.target, cst.FunctionDef), change


def _drop_if_empty(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """An ``__init__`` left with nothing to do goes away (or keeps a ``pass`` if it has params)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        body = node.body
        if isinstance(body, cst.IndentedBlock) and not body.body:
            if (
                len(node.params.params) == 1
                and not node.decorators
                and not node.params.kwonly_params
                and not any(line.comment for line in node.leading_lines)
                and not any(line.comment for line in body.footer)
            ):
                return cst.RemoveFromParent()
            return node.with_changes(
                body=body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
            )
        return node

    return finder.find(edit.target, cst.FunctionDef), change


def _drop_call_arg(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call)
        index = find_arg(node.args, edit.value, edit.index)
        assert index is not None
        return node.with_changes(args=drop_arg(node.args, index))

    return finder.find(edit.target, cst.Call), change


def _rename_base(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    base = finder.parent(finder.find(edit.target, _EXPRESSION))
    assert isinstance(base, cst.Arg)

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Arg)
        return node.with_changes(value=cst.Name(edit.value))

    return base, change


def _append_param(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    param = cst.Param(
        name=cst.Name(edit.value), annotation=cst.Annotation(annotation=cst.Name(edit.annotation))
    )

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        return node.with_changes(params=append_param(node.params, param))

    return finder.find(edit.target, cst.FunctionDef), change


def _gather(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """One listener class from the callbacks: the defs ``names`` and the lambdas ``lambdas``
    become its methods, the parameters ``bound`` (by ``functools.partial``) its
    ``__init__``'s. ``index`` 0: the class replaces the defs in their block, at the first one;
    1: it goes just before the statement ``target`` (the ``subscribe()``: lambdas only);
    2: it replaces the statement ``target``, a lambda's assignment. Assignments of the other
    lambdas go too (they are in the block: the planner checked)."""
    lambdas = [(finder.find(m.target, cst.Lambda), m) for m in edit.lambdas]
    if edit.index == 1:
        statement = finder.find(edit.target, cst.SimpleStatementLine)
        block = finder.parent(statement)
        least = 2 if isinstance(block, cst.Module) else 1
        first = isinstance(block, cst.Module | cst.IndentedBlock) and block.body[0] is statement

        def before(node: cst.CSTNode) -> Replacement:
            assert isinstance(node, cst.SimpleStatementLine)
            blank = [line for line in node.leading_lines if line.comment is None]
            comments = [line for line in node.leading_lines if line.comment is not None]
            listener = _listener(edit, [], {}, lambdas, blank if first else _blank(blank, least))
            return cst.FlattenSentinel(
                [listener, node.with_changes(leading_lines=_blank(comments, least))]
            )

        return statement, before
    if edit.index == 2:
        block = finder.parent(finder.find(edit.target, cst.SimpleStatementLine))
    else:
        block = finder.parent(finder.find(edit.target, cst.FunctionDef))
    assert isinstance(block, cst.Module | cst.IndentedBlock)
    least = 2 if isinstance(block, cst.Module) else 1
    wanted: dict[str, tuple[str, str]] = {}
    aliases: list[tuple[str, str]] = []  # (second name, method): ``revoked = assigned``
    for function, method, self_name in edit.names:
        if function in wanted:
            aliases.append((method, wanted[function][0]))
        else:
            wanted[function] = (method, self_name)
    assignments = [
        line
        for lam, _ in lambdas
        if isinstance(assign := finder.parent(lam), cst.Assign)
        and isinstance(line := finder.parent(assign), cst.SimpleStatementLine)
    ]

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Module | cst.IndentedBlock)
        body: list[cst.BaseStatement] = []
        methods: list[cst.FunctionDef] = []
        bound: dict[str, cst.Param] = {}
        slot = -1
        leading: list[cst.EmptyLine] = []
        carry: list[cst.EmptyLine] = []  # comments of a lambda assignment that goes
        spaced = False  # the next statement followed a lambda's assignment
        for stmt in node.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in wanted:
                if slot < 0:
                    slot = len(body)
                    leading = [line for line in stmt.leading_lines if line.comment is None]
                method, self_name = wanted[stmt.name.value]
                attributes = [p for f, p in edit.bound if f == stmt.name.value]
                for param in _params(stmt):
                    if param.name.value in attributes:
                        bound.setdefault(param.name.value, param)
                methods.append(_method(stmt, method, self_name, edit.annotation, attributes))
                continue
            assert isinstance(stmt, cst.SimpleStatementLine | cst.BaseCompoundStatement)
            if any(stmt.deep_equals(line) for line in assignments):
                if slot < 0:
                    slot, leading = len(body), list(stmt.leading_lines)
                else:
                    carry += [line for line in stmt.leading_lines if line.comment is not None]
                spaced = True
                continue
            lines = [*carry, *stmt.leading_lines]
            carry = []
            if spaced and slot == len(body):
                lines = _blank(lines, least)  # it followed a lambda's assignment, now the class
            spaced = False
            body.append(stmt.with_changes(leading_lines=lines))
        assert slot >= 0, "no callback left in the block"
        if slot > 0 and edit.index == 2:
            leading = _blank(leading, least)
        body.insert(slot, _listener(edit, methods, bound, lambdas, leading, aliases))
        return node.with_changes(body=body)

    return block, change


_ROLES = ["on_partitions_assigned", "on_partitions_revoked", "on_partitions_lost"]


def _listener(
    edit: Edit,
    methods: list[cst.FunctionDef],
    bound: Mapping[str, cst.Param],
    lambdas: list[tuple[cst.Lambda, LambdaMethod]],
    leading: Sequence[cst.EmptyLine],
    aliases: Sequence[tuple[str, str]] = (),
) -> cst.ClassDef:
    """``class <value>(<extra>):`` with ``methods``, the lambdas' (each before the first
    method of a later role: assigned, revoked, lost), an ``__init__`` and, last, each
    ``alias = method`` (one def registered for a second role)."""
    methods = list(methods)
    for lam, lambda_method in lambdas:
        rank = _ROLES.index(lambda_method.method)
        later = (i for i, m in enumerate(methods) if _ROLES.index(m.name.value) > rank)
        methods.insert(
            next(later, len(methods)), _lambda_method(lam, lambda_method, edit.annotation)
        )
    if bound:
        methods.insert(0, _init(list(bound.values()), methods[0]))
    members: list[cst.BaseStatement] = [
        m.with_changes(leading_lines=m.leading_lines if i == 0 else _spaced(m.leading_lines))
        for i, m in enumerate(methods)
    ]
    members += [
        cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(alias))], cst.Name(method))],
            leading_lines=[cst.EmptyLine(indent=False)] if i == 0 else [],
        )
        for i, (alias, method) in enumerate(aliases)
    ]
    return cst.ClassDef(
        name=cst.Name(edit.value),
        bases=[cst.Arg(cst.Name(edit.extra))],
        body=cst.IndentedBlock(body=members),
        leading_lines=leading,
    )


def _blank(lines: Sequence[cst.EmptyLine], count: int) -> list[cst.EmptyLine]:
    """``lines`` with at least ``count`` blank lines before anything else in them."""
    have = 0
    for line in lines:
        if line.comment is not None:
            break
        have += 1
    return [*(cst.EmptyLine(indent=False) for _ in range(count - have)), *lines]


def _params(fn: cst.FunctionDef) -> list[cst.Param]:
    return [*fn.params.params, *fn.params.kwonly_params]


def _spaced(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """A method's leading lines with one blank line first (the methods after the first)."""
    if lines and lines[0].comment is None:
        return list(lines)
    return [cst.EmptyLine(indent=False), *lines]


def _method(
    fn: cst.FunctionDef, name: str, self_name: str, protocol: str, bound: Sequence[str] = ()
) -> cst.FunctionDef:
    """``def on_assign(consumer, partitions)`` -> ``def on_partitions_assigned(self, partitions,
    consumer: RebalanceConsumer)`` with the same body (the ``bound`` parameters dropped)."""
    comments = [line for line in fn.leading_lines if line.comment is not None]
    body = fn.body
    if isinstance(body, cst.IndentedBlock) and not body.body:
        body = body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
    self_param = cst.Param(cst.Name(self_name), comma=_COMMA)
    params = fn.params
    if bound:
        kept = [p for p in params.params if p.name.value not in bound]
        last = kept[-1]
        if isinstance(last.comma, cst.Comma) and isinstance(
            last.comma.whitespace_after, cst.SimpleWhitespace
        ):  # it separated a bound parameter or ``*``, both gone
            kept[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        params = params.with_changes(
            params=kept, kwonly_params=(), star_arg=cst.MaybeSentinel.DEFAULT
        )
    return fn.with_changes(
        name=cst.Name(name),
        params=_listener_params(params, self_param, protocol),
        leading_lines=comments,
        body=body,
    )


def _lambda_method(lam: cst.Lambda, method: LambdaMethod, protocol: str) -> cst.FunctionDef:
    """``lambda c, p: expr`` -> ``def on_partitions_x(self, p: list[TopicPartition], c:
    RebalanceConsumer) -> None: expr`` (a final assign a seek loop, a final unassign or a
    ``None`` body ``pass``)."""
    consumer, partitions = (p.name for p in lam.params.params)
    body: cst.BaseStatement
    value = lam.body
    if method.tail == "drop" or (isinstance(value, cst.Name) and value.value == "None"):
        body = cst.SimpleStatementLine([cst.Pass()])
    elif method.tail:
        assert isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
        seek = cst.Call(
            func=value.func.with_changes(attr=cst.Name("seek")),
            args=[cst.Arg(cst.Name(method.tail))],
        )
        body = cst.For(
            target=cst.Name(method.tail),
            iter=partitions,
            body=cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Expr(seek)])]),
        )
    else:
        body = cst.SimpleStatementLine([cst.Expr(_statement_expression(value))])
    params = [
        cst.Param(cst.Name(method.self_name), comma=_COMMA),
        cst.Param(
            partitions,
            annotation=cst.Annotation(cst.parse_expression(method.partitions_type)),
            comma=_COMMA,
        ),
        cst.Param(consumer, annotation=cst.Annotation(cst.Name(protocol)) if protocol else None),
    ]
    return cst.FunctionDef(
        name=cst.Name(method.method),
        params=cst.Parameters(params=params),
        body=cst.IndentedBlock(body=[body]),
        returns=cst.Annotation(cst.Name("None")),
    )


def _statement_expression(value: cst.BaseExpression) -> cst.BaseExpression:
    """A lambda's body as an expression statement: without its own parentheses when it is a
    statement so (a call may span lines inside its own), else parenthesized (``a and`` on one
    line and ``b`` on the next, or a comment inside the parentheses); continuation lines
    re-indented for the method's body."""
    bare = value.with_changes(lpar=(), rpar=())
    code = cst.Module(body=[]).code_for_node(bare)
    try:
        cst.parse_statement(code + "\n")
    except cst.ParserSyntaxError:
        pass
    else:
        if "#" not in cst.Module(body=[]).code_for_node(value) or "#" in code:
            return _reindented(bare)
    if not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return _reindented(value)


def _reindented(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` with its continuation lines indented from where it starts: the lambda's were
    indented for the ``subscribe()`` call, the method body is deeper (unchanged when a string
    spans lines: its lines are data)."""
    code = cst.Module(body=[]).code_for_node(value)
    first, *rest = code.split("\n")
    lines = [line for line in rest if line.strip()]
    if not lines or any("\n" in node.value for node in _strings(value)):
        return value
    least = min(len(line) - len(line.lstrip(" ")) for line in lines)
    shallowest = next(line for line in lines if len(line) - len(line.lstrip(" ")) == least)
    base = 0 if shallowest.lstrip(" ")[:1] in ")]}" else 4
    moved = [line[least:] if line.strip() else line for line in rest]
    text = "\n".join([first, *((" " * base + line) if line.strip() else line for line in moved)])
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return value


def _strings(node: cst.CSTNode) -> list[cst.SimpleString | cst.FormattedStringText]:
    found: list[cst.SimpleString | cst.FormattedStringText] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleString | cst.FormattedStringText):
            found.append(current)
        stack.extend(current.children)
    return found


def _init(params: list[cst.Param], first: cst.FunctionDef) -> cst.FunctionDef:
    """``def __init__(self, a: A) -> None: self.a = a`` for the parameters partials bound (the
    annotations the functions gave them; ``-> None`` always, so calling it stays a typed call)."""
    self_name = first.params.params[0].name.value
    body = [
        cst.SimpleStatementLine(
            [
                cst.Assign(
                    targets=[cst.AssignTarget(_dotted(f"{self_name}.{p.name.value}"))],
                    value=cst.Name(p.name.value),
                )
            ]
        )
        for p in params
    ]
    own = [
        p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT, comma=_COMMA) for p in params
    ]
    own[-1] = own[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cst.FunctionDef(
        name=cst.Name("__init__"),
        params=cst.Parameters(params=[cst.Param(cst.Name(self_name), comma=_COMMA), *own]),
        body=cst.IndentedBlock(body=body),
        returns=cst.Annotation(cst.Name("None")),
    )


def _listener_params(
    params: cst.Parameters, self_param: cst.Param, protocol: str
) -> cst.Parameters:
    """``(consumer, partitions)`` after ``self_param`` -> ``(self, partitions, consumer:
    protocol)``: the KIP-1306 order, the consumer now the view (unannotated if no protocol).

    The two parameters swap places, not layouts: each slot keeps its comma and the
    whitespace after it, so a signature wrapped over lines stays wrapped the same way.
    ``self_param`` is either the method's own first parameter or a new one put in front."""
    *head, consumer, partitions = params.params
    if not head or head[0] is not self_param:
        head = [self_param.with_changes(comma=_COMMA)]
    annotation = cst.Annotation(cst.Name(protocol)) if protocol else None

    def into(slot: cst.Param, param: cst.Param) -> cst.Param:
        return param.with_changes(
            comma=slot.comma, whitespace_after_param=slot.whitespace_after_param
        )

    return params.with_changes(
        params=[
            *head,
            into(consumer, partitions),
            into(partitions, consumer.with_changes(annotation=annotation)),
        ]
    )


def _listener_method(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """A method ``_on_assign(self, consumer, partitions)`` of the owner becomes its listener
    method ``on_partitions_assigned(self, partitions, consumer: RebalanceConsumer)``; a
    ``@staticmethod _on_assign(consumer, partitions)`` (``extra="static"``) loses its decorator
    and gains the ``self`` it does not use."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        params = node.params
        if edit.extra == "static":
            kept = [line for d in node.decorators for line in d.leading_lines]
            node = node.with_changes(
                decorators=(),
                leading_lines=[*node.leading_lines, *kept, *node.lines_after_decorators],
                lines_after_decorators=(),
            )
            self_param = cst.Param(cst.Name("self"))
        else:
            self_param = params.params[0]
        params = _listener_params(params, self_param, edit.annotation)
        return node.with_changes(name=cst.Name(edit.value), params=params)

    return finder.find(edit.target, cst.FunctionDef), change


def _keep_method(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """A method something else also calls, now a listener method: after it, the method under its
    old name and signature again, calling the listener method (``listener_method`` ran first)."""
    original = finder.find(edit.target, cst.FunctionDef)

    def change(node: cst.CSTNode) -> Replacement:
        self_param, consumer, partitions = (p.name.value for p in original.params.params[:3])
        awaiting = "await " if edit.index == 1 else ""
        call = f"{awaiting}{self_param}.{edit.value}({partitions}, {consumer})"
        wrapper = original.with_changes(
            body=cst.IndentedBlock(body=[cst.parse_statement(call)]),
            leading_lines=[cst.EmptyLine(indent=False)],
            decorators=(),
        )
        return cst.FlattenSentinel([node, wrapper])

    return original, change


def _add_base(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``class Worker(Base):`` -> ``class Worker(Base, RebalanceListener):``.

    An explicit ``object`` base is replaced, not followed: ``class Sink(object,
    RebalanceListener)`` has no consistent MRO and fails at import.
    """

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.ClassDef)
        bases = list(node.bases)
        new = cst.Arg(cst.Name(edit.value))
        explicit_object = [
            i for i, arg in enumerate(bases)
            if arg.keyword is None
            and not arg.star
            and isinstance(arg.value, cst.Name)
            and arg.value.value == "object"
        ]  # fmt: skip
        if explicit_object:
            i = explicit_object[0]
            bases[i] = bases[i].with_changes(value=new.value)
            return node.with_changes(bases=bases)
        if bases:
            last = bases[-1]
            if isinstance(last.comma, cst.Comma):  # a trailing comma stays trailing
                new = new.with_changes(comma=last.comma)
            bases[-1] = last.with_changes(comma=_COMMA)
            return node.with_changes(bases=[*bases, new])
        return node.with_changes(bases=[new], lpar=cst.LeftParen(), rpar=cst.RightParen())

    return finder.find(edit.target, cst.ClassDef), change


def _resubscribe(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``c.subscribe(topics, on_assign=f)`` -> ``subscribe(c, topics, RebalanceCallbacks())``
    (or ``self`` when the owner is the listener); an ``await`` around it stays."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        topics_index = find_arg(node.args, "topics", 0)
        assert topics_index is not None
        topics = node.args[topics_index].with_changes(
            keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=_COMMA
        )
        listener = cst.Arg(cst.parse_expression(edit.extra))
        return node.with_changes(
            func=cst.Name(edit.value),
            args=[cst.Arg(node.func.value, comma=_COMMA), topics, listener],
            whitespace_before_args=cst.SimpleWhitespace(""),
        )

    return finder.find(edit.target, cst.Call), change


def _seek_loop(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``consumer.assign(partitions)`` -> ``for p in partitions: consumer.seek(p)`` (awaited
    seeks for an awaited assign: the AIOConsumer view); ``consumer.assign([TopicPartition(p.topic,
    p.partition, offset) for p in partitions])`` -> ``for p in partitions:
    consumer.seek(TopicPartition(p.topic, p.partition, offset))``."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.SimpleStatementLine)
        expr = node.body[0]
        assert isinstance(expr, cst.Expr)
        awaited = isinstance(expr.value, cst.Await)
        call = expr.value.expression if isinstance(expr.value, cst.Await) else expr.value
        assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        assigned = call.args[0].value
        target: cst.BaseAssignTargetExpression = cst.Name(edit.extra)
        each: cst.BaseExpression = cst.Name(edit.extra)
        over: cst.BaseExpression = cst.Name(edit.value)
        if isinstance(assigned, cst.ListComp):  # checked by the planner: one plain ``for``
            target, over = assigned.for_in.target, assigned.for_in.iter
            each = one_line(assigned.elt)
        seek: cst.BaseExpression = cst.Call(
            func=call.func.with_changes(attr=cst.Name("seek")), args=[cst.Arg(each)]
        )
        if awaited:
            seek = cst.Await(seek)
        return cst.For(
            target=target,
            iter=over,
            body=cst.IndentedBlock(
                body=[node.with_changes(body=[cst.Expr(seek)], leading_lines=())]
            ),
            leading_lines=node.leading_lines,
        )

    return finder.find(edit.target, cst.SimpleStatementLine), change


def _drop_final(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    statement = finder.find(edit.target, cst.SimpleStatementLine)
    block = finder.parent(statement)

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.IndentedBlock)
        return drop_statement(node, statement)

    return block, change


def _rename_method(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``x.commit_async(offsets)`` -> ``x.commit(offsets)`` (KRB103)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        return node.with_changes(func=node.func.with_changes(attr=cst.Name(edit.value)))

    return finder.find(edit.target, cst.Call), change


def _set_keyword(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``keyword=expression`` in a call: the value replaced if the keyword is there, else the
    argument appended in the call's own comma style (KRB103 ``asynchronous=False``, KRB104
    ``on_lost=``)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call)
        value = cst.parse_expression(edit.extra)
        index = find_arg(node.args, edit.value, None)
        if index is not None:
            args = list(node.args)
            args[index] = args[index].with_changes(value=value)
            return node.with_changes(args=args)
        arg = cst.Arg(
            value=value,
            keyword=cst.Name(edit.value),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.SimpleWhitespace(""),
            ),
        )
        return node.with_changes(args=_appended(node, arg))

    return finder.find(edit.target, cst.Call), change


def _appended(call: cst.Call, arg: cst.Arg) -> list[cst.Arg]:
    """``call``'s arguments plus ``arg`` at the end: after a trailing comma the new argument
    takes that comma and the old last one gets the separator the others use (one per line)."""
    args = list(call.args)
    if not args:
        return [arg]
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        before = args[-2].comma if len(args) > 1 else cst.MaybeSentinel.DEFAULT
        if isinstance(before, cst.Comma):
            separator = before
        elif isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
            separator = cst.Comma(whitespace_after=call.whitespace_before_args)
        else:
            separator = _COMMA
        return [*args[:-1], last.with_changes(comma=separator), arg.with_changes(comma=last.comma)]
    return [*args[:-1], last.with_changes(comma=_COMMA), arg]


def _add_stub_after(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """After a def, a copy of its signature (``async`` and annotations included) named
    ``value`` that does only the def's body statements ``keep`` (its logging) under the comment
    ``extra``, or nothing: ``pass  # extra`` (KRB104's lost handler)."""
    original = finder.find(edit.target, cst.FunctionDef)
    blank = _blank_lines(finder.parent(original), original)

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        body: list[cst.BaseStatement]
        if edit.keep:
            assert isinstance(original.body, cst.IndentedBlock)
            body = [original.body.body[i] for i in edit.keep]
            body[0] = body[0].with_changes(
                leading_lines=[cst.EmptyLine(comment=cst.Comment(edit.extra))]
            )
        else:
            body = [
                cst.SimpleStatementLine(
                    [cst.Pass()],
                    trailing_whitespace=cst.TrailingWhitespace(
                        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(edit.extra)
                    ),
                )
            ]
        renames = {old: new for old, new, _ in edit.names}
        params = node.params.with_changes(
            params=[_renamed(p, renames) for p in node.params.params],
            posonly_params=[_renamed(p, renames) for p in node.params.posonly_params],
            kwonly_params=[_renamed(p, renames) for p in node.params.kwonly_params],
        )
        stub = node.with_changes(
            name=cst.Name(edit.value),
            params=params,
            decorators=(),
            leading_lines=[cst.EmptyLine(indent=False) for _ in range(blank)],
            body=cst.IndentedBlock(body=body),
        )
        return cst.FlattenSentinel([node, stub])

    return original, change


def _renamed(param: cst.Param, renames: Mapping[str, str]) -> cst.Param:
    new = renames.get(param.name.value)
    return param if new is None else param.with_changes(name=cst.Name(new))


def _blank_lines(block: cst.CSTNode, stmt: cst.BaseStatement) -> int:
    """How many blank lines separate ``stmt`` from what follows it (or precede it), so a
    definition added after it is spaced like its neighbours."""
    body = list(block.body) if isinstance(block, cst.Module | cst.IndentedBlock) else []
    index = next((i for i, s in enumerate(body) if s is stmt), -1)
    least = 2 if isinstance(block, cst.Module) else 1
    following = body[index + 1 : index + 2] if index >= 0 else []
    for neighbour in (following, [stmt]):
        for other in neighbour:
            if isinstance(other, cst.SimpleStatementLine | cst.BaseCompoundStatement):
                count = sum(1 for line in other.leading_lines if line.comment is None)
                if count:
                    return max(least, count)
    return least


_EDITORS: dict[str, Editor] = {
    "split_subscribe": _split_subscribe,
    "replace_with_name": _replace_with_name,
    "drop_param": _drop_param,
    "drop_init_statement": _drop_init_statement,
    "drop_if_empty": _drop_if_empty,
    "drop_call_arg": _drop_call_arg,
    "rename_base": _rename_base,
    "append_param": _append_param,
    "gather": _gather,
    "resubscribe": _resubscribe,
    "seek_loop": _seek_loop,
    "drop_final": _drop_final,
    "add_base": _add_base,
    "listener_method": _listener_method,
    "keep_method": _keep_method,
    "rename_method": _rename_method,
    "set_keyword": _set_keyword,
    "add_stub_after": _add_stub_after,
}
