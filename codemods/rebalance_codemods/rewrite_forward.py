"""LibCST editor for helpers that register the callbacks their callers pass
(``rebalance_lint.analysis.shapes.callback_parameters``): ``forward_listener`` puts a listener
class just before the helper's ``subscribe()`` statement, each method calling the helper's
parameter with the view (the callers' callbacks now take it)."""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import _COMMA, Editor, NodeEdit, Replacement, _Finder
from rebalance_codemods.rewrite_gather import _blank


def _forward_listener(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``class <value>(<extra>):`` before the statement ``target``, with one method per
    ``names`` entry: ``def on_partitions_x(self, partitions: <other_type>, consumer:
    <annotation>) -> None: <parameter>(consumer, partitions)`` (awaited with ``index`` 1;
    under ``if <parameter> is not None:`` for the ``delegated`` ones). With ``bound``
    (parameter, annotation): ``def __init__(self, <parameter>: <annotation>) -> None:
    self.<parameter> = <parameter>`` first, the methods calling ``self.<parameter>``."""
    statement = finder.find(edit.target, cst.SimpleStatementLine)
    block = finder.parent(statement)
    least = 2 if isinstance(block, cst.Module) else 1
    first = isinstance(block, cst.Module | cst.IndentedBlock) and block.body[0] is statement
    methods = [
        _method(edit, parameter, method, self_name, i > 0 or bool(edit.bound))
        for i, (parameter, method, self_name) in enumerate(edit.names)
    ]
    if edit.bound:
        methods.insert(0, _init(edit.bound))

    def before(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.SimpleStatementLine)
        blank = [line for line in node.leading_lines if line.comment is None]
        comments = [line for line in node.leading_lines if line.comment is not None]
        listener = cst.ClassDef(
            name=cst.Name(edit.value),
            bases=[cst.Arg(cst.Name(edit.extra))],
            body=cst.IndentedBlock(body=methods),
            leading_lines=blank if first else _blank(blank, least),
        )
        return cst.FlattenSentinel(
            [listener, node.with_changes(leading_lines=_blank(comments, least))]
        )

    return statement, before


def _method(edit: Edit, parameter: str, name: str, self_name: str, spaced: bool) -> cst.FunctionDef:
    awaiting = "await " if edit.index == 1 else ""
    called = f"{self_name}.{parameter}" if edit.bound else parameter
    call = cst.parse_statement(f"{awaiting}{called}(consumer, partitions)\n")
    body: cst.BaseStatement = call
    if parameter in edit.delegated:
        body = cst.If(
            test=cst.parse_expression(f"{called} is not None"),
            body=cst.IndentedBlock(body=[call]),
        )
    params = [
        cst.Param(cst.Name(self_name), comma=_COMMA),
        cst.Param(
            cst.Name("partitions"),
            annotation=cst.Annotation(cst.parse_expression(edit.other_type)),
            comma=_COMMA,
        ),
        cst.Param(cst.Name("consumer"), annotation=cst.Annotation(cst.Name(edit.annotation))),
    ]
    return cst.FunctionDef(
        name=cst.Name(name),
        params=cst.Parameters(params=params),
        body=cst.IndentedBlock(body=[body]),
        returns=cst.Annotation(cst.Name("None")),
        asynchronous=cst.Asynchronous() if edit.index == 1 else None,
        leading_lines=[cst.EmptyLine(indent=False)] if spaced else [],
    )


def _init(bound: tuple[tuple[str, str], ...]) -> cst.FunctionDef:
    """``def __init__(self, a: A, ...) -> None: self.a = a ...``."""
    params = ", ".join(f"{name}: {annotation}" for name, annotation in bound)
    body = "".join(f"    self.{name} = {name}\n" for name, _ in bound)
    init = cst.parse_statement(f"def __init__(self, {params}) -> None:\n{body}")
    assert isinstance(init, cst.FunctionDef)
    return init


#: The actions this module edits (:mod:`.rewrite` dispatches on them).
EDITORS: dict[str, Editor] = {"forward_listener": _forward_listener}
