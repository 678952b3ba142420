"""LibCST editor for the confluent functions, lambdas and partials: ``gather`` makes the
listener class where the callbacks were (their defs become its methods, a lambda's body a
method, a partial's bound values constructor parameters)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst
from rebalance_lint.analysis.edits import Edit, LambdaMethod

from rebalance_codemods.rewrite_base import _COMMA, Editor, NodeEdit, Replacement, _dotted, _Finder


def _gather(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """One listener class from the callbacks: the defs ``names`` and the lambdas ``lambdas``
    become its methods, the parameters ``bound`` (by ``functools.partial``) its
    ``__init__``'s. ``index`` 0: the class replaces the defs in their block, at the first one;
    1: it goes just before the statement ``target`` (the ``subscribe()``: lambdas only);
    2: it replaces the statement ``target``, a lambda's assignment. Assignments of the other
    lambdas go too, and the statements ``dropped`` (they are in the block: the planner
    checked)."""
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
    ] + [finder.find(dropped, cst.SimpleStatementLine) for dropped in edit.dropped]

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
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in edit.delegated:
                body.append(stmt)  # it stays for its other uses; the class goes after it
                if slot < 0:
                    slot, leading = len(body), _blank([], least)
                method, self_name = wanted[stmt.name.value]
                methods.append(_delegate(stmt, method, self_name, edit.annotation))
                continue
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


def _delegate(fn: cst.FunctionDef, name: str, self_name: str, protocol: str) -> cst.FunctionDef:
    """``def track(consumer, partitions)`` kept for its other uses -> the listener method
    ``def on_partitions_x(self, partitions, consumer: RebalanceConsumer): track(consumer,
    partitions)`` (awaited where ``track`` is ``async def``: the method is too)."""
    consumer, partitions = (p.name.value for p in fn.params.params[:2])
    awaiting = "await " if fn.asynchronous is not None else ""
    call = cst.parse_statement(f"{awaiting}{fn.name.value}({consumer}, {partitions})")
    params = cst.Parameters(params=[p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT)
                                    for p in fn.params.params[:2]])  # fmt: skip
    return cst.FunctionDef(
        name=cst.Name(name),
        params=_listener_params(params, cst.Param(cst.Name(self_name), comma=_COMMA), protocol),
        body=cst.IndentedBlock(body=[call]),
        asynchronous=fn.asynchronous,
        returns=fn.returns,
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
    protocol)``: the KIP-1306 order, the consumer now the view (unannotated if no protocol);
    parameters with defaults after them stay where they are.

    The two parameters swap places, not layouts: each slot keeps its comma and the
    whitespace after it, so a signature wrapped over lines stays wrapped the same way.
    ``self_param`` is either the method's own first parameter or a new one put in front."""
    positional = list(params.params)
    own = len(positional)
    while own and positional[own - 1].default is not None:
        own -= 1  # extra parameters with defaults stay last (shapes.defaulted_parameters)
    *head, consumer, partitions = positional[:own]
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
            *positional[own:],
        ]
    )


#: The actions this module edits (:mod:`.rewrite` dispatches on them).
EDITORS: dict[str, Editor] = {"gather": _gather}
