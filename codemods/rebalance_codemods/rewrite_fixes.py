"""LibCST editors for the KRB103/KRB104 auto-fixes: a method renamed, a keyword set, a lost
handler added after the revocation."""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import _COMMA, Editor, NodeEdit, Replacement, _Finder
from rebalance_codemods.syntax import (
    find_arg,
)


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


def _append_arg(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """Expression ``value`` as the last positional argument of a call that has no keyword
    argument (``super().on_partitions_revoked(revoked, consumer)``: the base's positional-only
    view parameter)."""

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.Call) and all(a.keyword is None for a in node.args)
        return node.with_changes(args=_appended(node, cst.Arg(cst.parse_expression(edit.value))))

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


#: The actions this module edits (:mod:`.rewrite` dispatches on them).
EDITORS: dict[str, Editor] = {
    "rename_method": _rename_method,
    "set_keyword": _set_keyword,
    "append_arg": _append_arg,
    "add_stub_after": _add_stub_after,
}
