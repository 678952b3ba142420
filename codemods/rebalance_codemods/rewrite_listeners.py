"""LibCST editors for the kafka-python and aiokafka listener shapes: the registration split
into ``set_rebalance_listener`` and ``subscribe``, the injected consumer dropped, the base
renamed and the view appended to the callbacks."""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import (
    _COMMA,
    _EXPRESSION,
    LISTENER_POSITION,
    Editor,
    NodeEdit,
    Replacement,
    _dotted,
    _Finder,
)
from rebalance_codemods.syntax import (
    append_param,
    drop_arg,
    drop_param,
    drop_statement,
    find_arg,
    insert_param,
)


def _split_subscribe(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``c.subscribe(t, listener=l)`` -> ``set_rebalance_listener(c, l)`` + ``c.subscribe(t)``;
    the arguments ``names`` names (by index) first go into those variables."""

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
        args = list(call.args)
        hoists: list[cst.SimpleStatementLine] = []
        for position, name, _ in edit.names:  # shapes.hoisted_arguments: evaluated first
            arg = args[int(position)]
            assign = cst.Assign([cst.AssignTarget(cst.Name(name))], arg.value)
            hoists.append(cst.SimpleStatementLine(body=[assign]))
            args[int(position)] = arg.with_changes(value=cst.Name(name))
        lines = [*hoists, cst.SimpleStatementLine(body=[cst.Expr(register)])]
        lines[0] = lines[0].with_changes(leading_lines=node.leading_lines)
        second = node.with_changes(
            leading_lines=(),
            body=[expr.with_changes(value=call.with_changes(args=drop_arg(args, index)))],
        )
        return cst.FlattenSentinel([*lines, second])

    return finder.find(edit.target, cst.SimpleStatementLine), change


def _replace_with_name(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """The expression becomes the name ``value``, or the attribute for a dotted one."""
    return finder.find(edit.target, _EXPRESSION), lambda _node: _dotted(edit.value)


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


def _drop_header_comment(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``class L(Base):  # type: ignore[misc]`` -> ``class L(Base):`` (the planner read that
    comment on the header; shapes.untyped_base_ignores)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock)
        header = node.body.header
        assert header.comment is not None and header.comment.value == edit.value
        bare = header.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)
        return node.with_changes(body=node.body.with_changes(header=bare))

    return finder.find(edit.target, cst.ClassDef), change


def _append_param(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    param = cst.Param(
        name=cst.Name(edit.value), annotation=cst.Annotation(annotation=cst.Name(edit.annotation))
    )

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        return node.with_changes(params=append_param(node.params, param))

    def before_defaults(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        return node.with_changes(params=insert_param(node.params, param))

    target = finder.find(edit.target, cst.FunctionDef)
    if any(p.default is not None for p in target.params.params):  # shapes.defaulted_parameters
        return target, before_defaults

    return finder.find(edit.target, cst.FunctionDef), change


def _drive_harness(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``x.on_partitions_assigned(p)`` -> ``value(x).extra(p)`` (the listener test harness)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        harness = cst.Call(func=cst.Name(edit.value), args=[cst.Arg(node.func.value)])
        return node.with_changes(func=cst.Attribute(value=harness, attr=cst.Name(edit.extra)))

    return finder.find(edit.target, cst.Call), change


def _chain_call(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``x.on_partitions_assigned(p)`` -> ``value(x, "on_partitions_assigned", p, extra)``
    (rebalance_guard's ``chain_callback``: the view where ``x``'s method takes it)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        (partitions,) = node.args
        args = [
            cst.Arg(node.func.value),
            cst.Arg(cst.SimpleString(f'"{node.func.attr.value}"')),
            partitions.with_changes(comma=_COMMA),
            cst.Arg(cst.Name(edit.extra)),
        ]
        return node.with_changes(func=cst.Name(edit.value), args=args)

    return finder.find(edit.target, cst.Call), change


def _unreturn(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``return x`` -> ``x`` (its side effects kept; a pure ``x`` goes), then ``return``
    unless it was the last thing the function did (then the statement may go altogether)."""
    statement = finder.find(edit.target, cst.SimpleStatementLine)
    if edit.value == "pure" and edit.extra == "last":
        block = finder.parent(statement)

        def drop(node: cst.CSTNode) -> Replacement:
            assert isinstance(node, cst.IndentedBlock)
            return drop_statement(node, statement)

        return block, drop

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.SimpleStatementLine)
        returned = node.body[0]
        assert isinstance(returned, cst.Return) and returned.value is not None
        bare = node.with_changes(body=[cst.Return()])
        if edit.value == "pure":
            return bare
        expression = node.with_changes(body=[cst.Expr(returned.value)])
        if edit.extra == "last":
            return expression
        after = bare.with_changes(leading_lines=(), trailing_whitespace=cst.TrailingWhitespace())
        return cst.FlattenSentinel([expression, after])

    return statement, change


EDITORS: dict[str, Editor] = {
    "split_subscribe": _split_subscribe,
    "replace_with_name": _replace_with_name,
    "drop_param": _drop_param,
    "drop_init_statement": _drop_init_statement,
    "drop_if_empty": _drop_if_empty,
    "drop_call_arg": _drop_call_arg,
    "rename_base": _rename_base,
    "drop_header_comment": _drop_header_comment,
    "append_param": _append_param,
    "drive_harness": _drive_harness,
    "chain_call": _chain_call,
    "unreturn": _unreturn,
}
