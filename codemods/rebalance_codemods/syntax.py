"""Small LibCST helpers for the rewrite: argument, parameter and statement surgery."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def drop_arg(args: Sequence[cst.Arg], index: int) -> list[cst.Arg]:
    """``args`` without ``args[index]``, keeping the trailing-comma style of the call."""
    kept = [arg for i, arg in enumerate(args) if i != index]
    if index == len(args) - 1 and kept:
        kept[-1] = kept[-1].with_changes(comma=args[index].comma)
    return kept


def drop_param(params: cst.Parameters, index: int) -> cst.Parameters:
    """``params`` without positional parameter ``index``, keeping the comma style."""
    old = list(params.params)
    kept = [p for i, p in enumerate(old) if i != index]
    nothing_follows = (
        params.star_arg == cst.MaybeSentinel.DEFAULT
        and not params.kwonly_params
        and params.star_kwarg is None
    )
    if index == len(old) - 1 and kept and nothing_follows:
        kept[-1] = kept[-1].with_changes(comma=old[index].comma)
    return params.with_changes(params=kept)


def append_param(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
    """``params`` plus ``param`` at the end of the positional ones, in the same comma style."""
    old = list(params.params)
    last = old[-1]
    if isinstance(last.comma, cst.Comma):  # trailing comma style: the new one gets it too
        new = [*old, param.with_changes(comma=last.comma)]
    else:
        new = [
            *old[:-1],
            last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            param,
        ]
    return params.with_changes(params=new)


def insert_param(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
    """``params`` plus ``param`` before the first positional one with a default, separated
    from it as the parameter before it is (a wrapped signature stays wrapped)."""
    old = list(params.params)
    at = next(i for i, p in enumerate(old) if p.default is not None)
    comma = old[at - 1].comma if at else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return params.with_changes(params=[*old[:at], param.with_changes(comma=comma), *old[at:]])


def positional_count(args: Sequence[cst.Arg]) -> int:
    """How many leading plain positional arguments a call has."""
    count = 0
    for arg in args:
        if arg.keyword is not None or arg.star:
            break
        count += 1
    return count


def find_arg(args: Sequence[cst.Arg], keyword: str, position: int | None) -> int | None:
    """Index of the argument bound to parameter ``keyword`` (or at ``position``), if any."""
    for i, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            return i
    if position is not None and position < positional_count(args):
        return position
    return None


def comment_lines(stmt: cst.BaseStatement) -> list[cst.EmptyLine]:
    """The comments attached to a statement (own-line ones above it and a trailing one)."""
    if not isinstance(stmt, cst.SimpleStatementLine | cst.BaseCompoundStatement):
        return []
    lines = [line for line in stmt.leading_lines if line.comment is not None]
    if isinstance(stmt, cst.SimpleStatementLine) and stmt.trailing_whitespace.comment is not None:
        lines.append(cst.EmptyLine(comment=stmt.trailing_whitespace.comment))
    return lines


def drop_statement(
    block: cst.IndentedBlock, doomed: cst.BaseStatement, fill: bool = True
) -> cst.IndentedBlock:
    """``block`` without the statement equal to ``doomed``; its comments move to what follows.

    Comments are the author's; deleting a statement is no reason to delete them. A block left
    empty gets a ``pass`` (carrying them), unless ``fill`` is off and there are none: then the
    caller removes the empty block's owner.
    """
    body: list[cst.BaseStatement] = []
    carry: list[cst.EmptyLine] = []
    removed = False
    for stmt in block.body:
        if not removed and stmt.deep_equals(doomed):
            carry = comment_lines(stmt)
            removed = True
            continue
        if carry and isinstance(stmt, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            stmt = stmt.with_changes(leading_lines=[*carry, *stmt.leading_lines])
            carry = []
        body.append(stmt)
    if not body and (carry or fill):  # a block must hold a statement
        body.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=carry))
    elif carry:
        return block.with_changes(body=body, footer=[*carry, *block.footer])
    return block.with_changes(body=body)


class _OneLine(cst.CSTTransformer):
    def leave_Comma(self, original: cst.Comma, updated: cst.Comma) -> cst.Comma:
        if isinstance(original.whitespace_after, cst.ParenthesizedWhitespace):
            return updated.with_changes(whitespace_after=cst.SimpleWhitespace(" "))
        return updated

    def leave_ParenthesizedWhitespace(
        self, original: cst.ParenthesizedWhitespace, updated: cst.ParenthesizedWhitespace
    ) -> cst.BaseParenthesizableWhitespace:
        return cst.SimpleWhitespace("")

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if updated.args and isinstance(updated.args[-1].comma, cst.Comma):
            # a call's trailing comma only kept its closing bracket on a line of its own
            last = updated.args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(args=[*updated.args[:-1], last])
        return updated


def one_line(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` with its line breaks inside brackets removed, so it reads well wherever it
    moves (a comprehension's element becoming a call's argument); unchanged when a comment
    sits inside it (that comment would be lost)."""
    code = cst.Module([]).code_for_node(expr)
    if "\n" not in code or "#" in code:
        return expr
    flat = expr.visit(_OneLine())
    assert isinstance(flat, cst.BaseExpression)
    return flat
