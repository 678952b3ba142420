"""LibCST editors for the confluent owner shapes and the callbacks' bodies: the owner gains
the listener base and its methods their listener names, ``subscribe`` takes the listener, a
final assign becomes seeks and a final release goes."""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import _COMMA, Editor, NodeEdit, Replacement, _Finder
from rebalance_codemods.rewrite_gather import _lambda_method, _listener_params
from rebalance_codemods.syntax import (
    drop_statement,
    find_arg,
    one_line,
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


def _lambda_methods(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """After the method the lambdas were written in, each lambda as a method of its class
    (``gather``'s lambda method: the body a statement, the parameters annotated), one blank
    line before each."""
    methods = [
        _lambda_method(finder.find(m.target, cst.Lambda), m, edit.annotation).with_changes(
            leading_lines=[cst.EmptyLine(indent=False)]
        )
        for m in edit.lambdas
    ]

    def change(node: cst.CSTNode) -> Replacement:
        return cst.FlattenSentinel([node, *methods])

    return finder.find(edit.target, cst.FunctionDef), change


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


def _class_aliases(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``on_partitions_revoked = on_partitions_assigned`` right after the listener method it
    names (``listener_method`` renamed it already), after a blank line: one method serving a
    second role under that role's listener name."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock)
        body = list(node.body.body)
        for alias, method, _ in reversed(edit.names):
            at = next(
                i
                for i, statement in enumerate(body)
                if isinstance(statement, cst.FunctionDef) and statement.name.value == method
            )
            line = cst.parse_statement(f"{alias} = {method}")
            body.insert(at + 1, line.with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
        return node.with_changes(body=node.body.with_changes(body=body))

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


#: The actions this module edits (:mod:`.rewrite` dispatches on them).
EDITORS: dict[str, Editor] = {
    "resubscribe": _resubscribe,
    "seek_loop": _seek_loop,
    "drop_final": _drop_final,
    "add_base": _add_base,
    "class_aliases": _class_aliases,
    "listener_method": _listener_method,
    "keep_method": _keep_method,
    "lambda_methods": _lambda_methods,
}
