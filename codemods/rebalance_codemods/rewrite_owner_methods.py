"""LibCST editors for an owner's methods taking the view
(:mod:`rebalance_lint.analysis.shapes.owner_method_takes_view`): a keyword-only parameter
defaulted to None, and an expression replaced by another."""

from __future__ import annotations

import libcst as cst
from rebalance_lint.analysis.edits import Edit

from rebalance_codemods.rewrite_base import _EXPRESSION, Editor, NodeEdit, Replacement, _Finder


def _keyword_param(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """``def m(self, a)`` -> ``def m(self, a, *, value: annotation = None)`` (after any
    keyword-only parameters it has); ``extra`` "required": no default
    (:mod:`rebalance_lint.analysis.shapes.listener_helper_methods`)."""
    annotation = (
        cst.Annotation(annotation=cst.parse_expression(edit.annotation))
        if edit.annotation
        else None
    )
    spaced = edit.annotation != ""
    param = cst.Param(name=cst.Name(edit.value), annotation=annotation)
    if edit.extra != "required":
        param = param.with_changes(
            default=cst.Name("None"),
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(" " if spaced else ""),
                whitespace_after=cst.SimpleWhitespace(" " if spaced else ""),
            ),
        )

    def change(node: cst.CSTNode) -> Replacement:
        assert isinstance(node, cst.FunctionDef)
        params = node.params
        positional, keywords = list(params.params), list(params.kwonly_params)
        before = [*positional, *keywords]
        last = before[-1] if before else None
        if last is None or not isinstance(last.comma, cst.Comma):
            star = params.star_arg
            if isinstance(star, cst.MaybeSentinel):
                star = cst.ParamStar(comma=_COMMA)
            return node.with_changes(
                params=params.with_changes(star_arg=star, kwonly_params=[*keywords, param])
            )
        # a trailing comma (one parameter a line): the new one takes it, the old last one and
        # the ``*`` get the separator the others use
        previous = before[-2].comma if len(before) > 1 else None
        separator = previous if isinstance(previous, cst.Comma) else _COMMA
        if keywords:
            keywords[-1] = last.with_changes(comma=separator)
        else:
            positional[-1] = last.with_changes(comma=separator)
        star = params.star_arg
        if isinstance(star, cst.MaybeSentinel):
            star = cst.ParamStar(comma=separator)
        new = param.with_changes(comma=last.comma)
        return node.with_changes(
            params=params.with_changes(
                params=positional, star_arg=star, kwonly_params=[*keywords, new]
            )
        )

    return finder.find(edit.target, cst.FunctionDef), change


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _replace_with_expression(edit: Edit, finder: _Finder) -> tuple[cst.CSTNode, NodeEdit]:
    """The expression becomes ``value`` (parsed; the plan parenthesises it as needed)."""
    return finder.find(edit.target, _EXPRESSION), lambda _node: cst.parse_expression(edit.value)


#: The actions this module edits (:mod:`.rewrite` dispatches on them).
EDITORS: dict[str, Editor] = {
    "keyword_param": _keyword_param,
    "replace_with_expression": _replace_with_expression,
}
